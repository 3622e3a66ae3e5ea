// hgemm ablate: compares the search policies offline (issue 5) by replaying them against a
// table that `hgemm tune --policy exhaustive` measured on the GPU. The replay and the metrics
// are src/tuner/ablation.hpp; this file reads the inputs and writes the report.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "args.hpp"
#include "core/file_io.hpp"
#include "tuner/ablation.hpp"
#include "tuner/db/database.hpp"
#include "tuner/space/space.hpp"
#include "tuner_commands.hpp"

namespace hgemm::cli {
namespace {

using namespace hgemm::tuner;

constexpr const char* kHelp =
    R"(usage: hgemm ablate --table EXH.jsonl --out DIR [options]

Replays the rl, random and exhaustive policies against a tuning database that an exhaustive run
measured (hgemm tune --policy exhaustive): every answer is a measured time, only the order in
which each policy asks is simulated. Method and metrics: docs/tuner.md ("Ablation").

  --table PATH       the exhaustive run's database: its problems are the ablation's problems
  --history PATH     also run "rl warm": rl warm-started from this database, every record on one
                     of the table's shapes (any layout or accumulation) held out
  --max-evals N      evaluations per problem, the curves' x range (default 64)
  --seeds N          runs averaged for random and rl (default 32)
  --seed S           seed of the first run; run i uses S + i (default 24301)
  --threads N        runs in parallel (default: every core)
  --space table|catalog
                     the candidates the policies choose from: `table` (default) the kernel
                     instances the table measured, expanded over their run-time axes, so every
                     candidate has an answer; `catalog` this build's catalog, where instances
                     added since the table was measured are answered not_supported
  --out DIR          writes ablation.md and ablation.csv (`hgemm report --html ... --ablation
                     DIR/ablation.csv` draws the curves)

exit codes: 0 done (whatever the verdict), 1 an output could not be written, 2 bad arguments or
an unusable table
)";

struct Settings {
  std::string table;
  std::optional<std::string> history;
  AblationOptions options;
  std::string out;
  bool table_space = true;
};

Settings parse_settings(const Args& raw, bool* help) {
  ParsedArgs args(raw,
                  {"table", "history", "max-evals", "seeds", "seed", "threads", "out", "space"},
                  {"help"});
  Settings s;
  *help = args.flag("help");
  if (*help) return s;
  if (!args.positional().empty())
    throw ArgError("unexpected argument '" + args.positional().front() + "'");
  const auto table = args.get("table"), out = args.get("out");
  if (!table) throw ArgError("--table is required");
  if (!out) throw ArgError("--out is required");
  s.table = *table;
  s.out = *out;
  s.history = args.get("history");
  const long long max_evals = args.int_or("max-evals", 64);
  if (max_evals < 1 || max_evals > 100000) throw ArgError("--max-evals must be 1..100000");
  const long long seeds = args.int_or("seeds", 32);
  if (seeds < 1 || seeds > 10000) throw ArgError("--seeds must be 1..10000");
  const long long threads = args.int_or("threads", 0);
  if (threads < 0 || threads > 1024) throw ArgError("--threads must be 0..1024");
  s.options.max_evals = int(max_evals);
  s.options.seeds = int(seeds);
  s.options.seed = uint64_t(args.int_or("seed", 24301));
  s.options.threads = int(threads);
  const std::string space = args.get_or("space", "table");
  if (space != "table" && space != "catalog")
    throw ArgError("--space must be table or catalog, not '" + space + "'");
  s.table_space = space == "table";
  return s;
}

// load_database() reads a missing file as an empty database; here that is an error.
Database load_input(const std::string& path, const char* option) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || !std::ifstream(path))
    throw ArgError(std::string("cannot read ") + option + " " + path);
  Database db = load_database(path);
  for (const std::string& e : db.errors)
    std::fprintf(stderr, "hgemm ablate: error: %s (line skipped; the rest is used)\n", e.c_str());
  if (db.records.empty()) throw ArgError(path + " holds no measurement records");
  return db;
}

// A report from an earlier run is replaced whole or not at all.
void write_file(const std::filesystem::path& path, const std::string& text) {
  write_file_atomically(path.string(), text);
}

int run(const Settings& s, const Args& raw) {
  const Database table = load_input(s.table, "--table");
  std::optional<Database> history;
  if (s.history) history = load_input(*s.history, "--history");

  AblationReportInfo info;
  info.command = "hgemm ablate";
  for (const std::string& a : raw) info.command += " " + a;
  info.table_path = s.table;
  info.history_path = s.history.value_or("");
  info.csv = "ablation.csv";

  // The space the table was measured in: this build's catalog on the table's device.
  const std::string gpu = fingerprint_value(table.header, "gpu");
  const int sms = std::atoi(fingerprint_value(table.header, "sm_count").c_str());
  info.table_gpu = (gpu.empty() ? "unknown GPU" : gpu) + ", " +
                   (sms > 0 ? std::to_string(sms) : "132 (assumed)") + " SMs";
  if (fingerprint_value(table.header, "measurer") == "synthetic")
    info.notes.push_back("the table comes from `--measurer synthetic`: its times are made up, "
                         "so these curves only exercise the pipeline.");
  if (!table.errors.empty())
    info.notes.push_back(std::to_string(table.errors.size()) +
                         " unreadable lines of the table were skipped.");
  if (history && !compare_fingerprints(history->header, table.header).same_device) {
    auto device = [](const Database& db) {
      const std::string g = fingerprint_value(db.header, "gpu");
      return (g.empty() ? "unknown GPU" : g) + ", sm_count " +
             fingerprint_value(db.header, "sm_count");
    };
    const std::string note = "the history was measured on another device (" + device(*history) +
                             ") than the table (" + device(table) + ")";
    std::fprintf(stderr, "hgemm ablate: warning: %s\n", note.c_str());
    info.notes.push_back(note + ".");
  }
  const DeviceInfo device = database_device(table.header);
  std::vector<KernelConfig> measured;
  if (s.table_space)
    for (const Record& r : table.records)
      if (auto c = KernelConfig::parse(r.config)) measured.push_back(*c);
  const SearchSpace space =
      s.table_space ? SearchSpace(measured, device) : SearchSpace::from_catalog(device);
  info.notes.push_back(s.table_space
                           ? "candidates: the kernel instances the table measured, over their "
                             "run-time axes (`--space table`)."
                           : "candidates: this build's catalog (`--space catalog`); instances "
                             "the table lacks are answered not_supported.");

  // Before the runs, so an unusable --out fails at once.
  const std::filesystem::path out(s.out);
  std::filesystem::create_directories(out);

  AblationResult result;
  try {
    result = run_ablation(table.records, history ? &history->records : nullptr, space, s.options);
  } catch (const std::invalid_argument& e) {
    throw ArgError(s.table + ": " + e.what());
  }

  write_file(out / info.csv, ablation_csv(result));
  write_file(out / "ablation.md", ablation_markdown(result, info));

  std::printf("ablate: %zu problems, %d evaluations each at most, %d seeds\n",
              result.problems.size(), s.options.max_evals, s.options.seeds);
  for (const PolicyCurve& c : result.curves)
    std::printf("  %-10s geomean ratio to optimum at n=%d: %.4f; reaches 0.98 at n = %s\n",
                c.policy.c_str(), s.options.max_evals, c.geomean_ratio.back(),
                c.evals_to_target ? std::to_string(*c.evals_to_target).c_str() : "never");
  for (const char* policy : {"rl cold", "rl warm"})
    if (result.curve(policy)) {
      const Acceptance a = judge(result, policy);
      std::printf("  acceptance (%s): %s: %s\n", policy, std::string(to_string(a.outcome)).c_str(),
                  a.explanation.c_str());
    }
  std::printf("  report: %s\n", (out / "ablation.md").c_str());
  return 0;
}

}  // namespace

int cmd_ablate(const Args& raw) {
  bool help = false;
  try {
    const Settings settings = parse_settings(raw, &help);
    if (help) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    return run(settings, raw);
  } catch (const ArgError& e) {
    std::fprintf(stderr, "hgemm ablate: %s\n", e.what());
    return 2;
  }
}

}  // namespace hgemm::cli
