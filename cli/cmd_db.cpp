// hgemm db: reads and maintains tuning databases (schema: docs/tuner.md).
//   show    the best config per tuned shape, as dispatch would pick it
//   stats   counts by disposition, the blocklist, win counts, the geomean speedup
//   export  the best-per-shape table as CSV, the dispatch table (--table), the winners merged
//           into the user table (--user-table), or the database rewritten without its bad lines
//   merge   several databases (e.g. from other machines' runs of the same GPU) into one
//   predict what dispatch would run for given shapes, and where the answer comes from
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "args.hpp"
#include "core/device.hpp"
#include "core/file_io.hpp"
#include "dispatch/locate.hpp"
#include "dispatch/model.hpp"
#include "dispatch/table.hpp"
#include "core/suite.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/sm90_jit.hpp"
#include "tuner/ablation.hpp"
#include "tuner/db/database.hpp"
#include "tuner/db/leave_one_out.hpp"
#include "tuner/db/table_export.hpp"
#include "tuner/db/tuned_table.hpp"
#include "tuner/db/user_table.hpp"
#include "tuner/policy/softmax_policy.hpp"
#include "tuner/space/space.hpp"
#include "tuner_commands.hpp"

namespace hgemm::cli {
namespace {

using namespace hgemm::tuner;

constexpr const char* kHelp = R"(usage: hgemm db <show|stats|export|merge|predict|loo> [PATH] [options]

  show [PATH]                     the best passing config per tuned shape x layout x acc
  stats [PATH]                    records by disposition, blocklist, wins per config, geomean
  export [PATH] --out FILE [--format csv|jsonl]
                                  csv: the best-per-shape table; jsonl: the database rewritten
                                  without its unreadable lines (atomically)
  export [PATH] --table FILE      the dispatch table of --acc's winners (what the library ships
                                  and reads; docs/tuner.md), written atomically
  export [PATH] --user-table [--table FILE]
                                  --acc's winners merged into the user table (what hgemm tune
                                  writes; its other shapes are kept), or into FILE; default:
                                  $HGEMM_USER_TABLE, else $XDG_CACHE_HOME/hgemm/tables/, else
                                  ~/.cache/hgemm/tables/<gpu>-<acc>.table
  merge --out FILE IN...          IN files (and FILE, if it exists) merged into FILE (atomically);
                                  refuses files of different devices
  predict [PATH] (--shape LIST | --suite S) [--rule R] [--rank all|LIST] [--model FILE]
                                  per shape x layout, the config the database gives on its own
                                  device (tuned winner, else rule R's pick from the tuned
                                  neighbours, default siblings as dispatch, else the saved
                                  policy's pick) and both predictions; no GPU needed. --rank:
                                  then the saved policy's rank, probability and score of every
                                  candidate (all) or of those whose names contain one of LIST
  loo [PATH] [--table FILE] [--rule LIST] [--worst N] [--model FILE] [--twins-as-direct]
                                  scores the rules for untuned shapes (nearest, cost, scaled,
                                  siblings, transfer) offline: each measured problem of FILE
                                  (default PATH) left out of its own neighbours, each pick scored
                                  by FILE's measurement of it there (its speedup over the best
                                  measured config's); --worst N lists each rule's N worst
                                  problems with the pick and the best; --twins-as-direct scores
                                  a swap-AB pick that stores C through TMA, where FILE never
                                  measured it, by its direct-store tile's measurement (the twins
                                  ran 1.036 as fast; histories before them have none); no GPU
                                  needed

  HGEMM_JIT=1: configs outside the catalog count as dispatch then sees them (hgemm jit --help)
  PATH defaults to --db, then $HGEMM_DB, then data/tuned/<this gpu>-<acc>.jsonl
  --acc A        f32 (default) or f16: which default database
  --layout L     show/export/predict/loo: only this layout
  --shape LIST   predict: e.g. 4096x4096x4096,128x16384x1024
  --suite S      predict: a named suite or a file of "M N K" lines
  --rank LIST    predict: e.g. all, or 128x256x64_s3,_swap (substrings, as tune --include)
  --model FILE   predict, loo: the dispatch model (data/tables/<gpu>-<acc>.model) that transfer
                 consults where no other tuned problem has the N and K, as dispatch does with
                 the one beside its table
)";

struct Row {
  TunedKey key;
  TunedEntry entry;
};

std::vector<Row> sorted_rows(const TunedTable& table, const std::optional<Layout>& layout) {
  std::vector<Row> rows;
  for (const auto& [key, entry] : table.entries())
    if (!layout || key.layout == *layout) rows.push_back({key, entry});
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.key.m, a.key.n, a.key.k, a.key.layout, a.key.accum) <
           std::tie(b.key.m, b.key.n, b.key.k, b.key.layout, b.key.accum);
  });
  return rows;
}

double geomean(const std::vector<Row>& rows) {
  double sum = 0;
  for (const Row& r : rows) sum += std::log(r.entry.speedup());
  return rows.empty() ? 0.0 : std::exp(sum / double(rows.size()));
}

// The table exactly as the database's own device would see it through this build's catalog, and
// with HGEMM_JIT=1 through the JIT's declared instances too, as dispatch then does.
TunedTable table_of(const Database& db) {
  const DeviceInfo device = database_device(db.header);
  return TunedTable(db,
                    jit::enabled() ? SearchSpace::with_declared(device, {"all"})
                                   : SearchSpace::from_catalog(device),
                    /*exact=*/true);
}

// A saved rl state that does not load leaves dispatch without the policy's predictions.
bool policy_readable(const Database& db) {
  return db.policy && (db.policy->policy != "rl" || SoftmaxPolicy::load(db.policy->state).has_value());
}

// Refuses (ArgError) a path that names no file, and a file none of whose lines is a database
// line: a foreign file gets one message, not one error per line.
Database load_existing(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw ArgError("no tuning database at " + path + " (no such file)");
  if (std::filesystem::is_directory(path, ec))
    throw ArgError(path + " is a directory, not a tuning database");
  if (!std::ifstream(path)) throw ArgError("cannot read " + path);
  Database db = load_database(path);
  if (db.header.empty() && db.records.empty() && !db.policy && !db.errors.empty())
    throw ArgError(path + " is not a tuning database (" + std::to_string(db.errors.size()) +
                   " unreadable lines and no header, measurement or policy line; the first: " +
                   db.errors.front().substr(0, 200) + ")");
  return db;
}

Database load_reporting(const std::string& path, bool compare_device) {
  Database db = load_existing(path);
  for (const std::string& e : db.errors)
    std::fprintf(stderr, "hgemm db: error: %s (line skipped; the rest is used)\n", e.c_str());
  if (db.header.empty() && db.records.empty())
    std::fprintf(stderr, "hgemm db: %s is empty\n", path.c_str());
  if (db.policy && !policy_readable(db))
    std::fprintf(stderr,
                 "hgemm db: warning: %s: the saved policy state is corrupt or from another "
                 "version and is ignored: untuned shapes get the nearest tuned problem's winner, "
                 "not the policy's pick (hgemm tune saves a new state)\n",
                 path.c_str());
  const DeviceInfo* device = nullptr;
  if (compare_device && query_current_device(&device).ok()) {
    const FingerprintCheck check = compare_fingerprints(
        db.header, {{"gpu", device->name}, {"sm_count", std::to_string(device->sm_count)}});
    if (!check.same_device)
      std::fprintf(stderr,
                   "hgemm db: warning: %s was tuned on another device (%s); dispatch here uses "
                   "only its predictions\n",
                   path.c_str(), check.differences.front().c_str());
  }
  return db;
}

void print_header(const std::string& path, const Database& db) {
  std::printf("database %s\n ", path.c_str());
  for (const auto& [key, value] : db.header) std::printf(" %s=%s", key.c_str(), value.c_str());
  std::printf("\n");
}

int show(const std::string& path, const std::optional<Layout>& layout) {
  const Database db = load_reporting(path, true);
  print_header(path, db);
  const TunedTable table = table_of(db);
  const auto rows = sorted_rows(table, layout);
  std::printf("%-8s %-8s %-8s %-3s %-4s %-52s %12s %12s %8s %4s\n", "m", "n", "k", "lay", "acc",
              "config", "median_us", "cublaslt_us", "speedup", "runs");
  for (const Row& r : rows)
    std::printf("%-8lld %-8lld %-8lld %-3s %-4s %-52s %12.3f %12.3f %7.3fx %4d\n",
                (long long)r.key.m, (long long)r.key.n, (long long)r.key.k,
                std::string(to_string(r.key.layout)).c_str(),
                std::string(to_string(r.key.accum)).c_str(), r.entry.config.name().c_str(),
                r.entry.median_us, r.entry.reference_us, r.entry.speedup(), r.entry.samples);
  std::printf("%zu tuned problems, geomean speedup over cuBLASLt %.3fx%s\n", rows.size(),
              geomean(rows), !db.policy           ? ""
                                 : policy_readable(db) ? ", policy state saved"
                                                       : ", policy state unreadable");
  return db.errors.empty() ? 0 : 1;
}

int stats(const std::string& path) {
  const Database db = load_reporting(path, true);
  print_header(path, db);
  std::map<std::string, int> by_disposition;
  std::map<std::string, int> problems, configs;
  int not_compiled = 0;
  const TunedTable table = table_of(db);
  const SearchSpace space = SearchSpace::from_catalog(nominal_device());
  for (const Record& r : db.records) {
    ++by_disposition[std::string(to_string(r.measurement.disposition))];
    ++problems[r.problem.name()];
    ++configs[r.config];
    if (auto c = KernelConfig::parse(r.config); !c || !space.compiled(*c)) ++not_compiled;
  }
  std::printf("%zu records over %zu problems and %zu configs; %zu unreadable lines\n",
              db.records.size(), problems.size(), configs.size(), db.errors.size());
  for (const auto& [d, n] : by_disposition) std::printf("  %-14s %d\n", d.c_str(), n);
  if (!db.variants.empty())
    std::printf("  %zu variant lines (source rewrites with their provenance; never dispatched)\n",
                db.variants.size());
  if (not_compiled)
    std::printf("  %d records name configs this build does not compile (ignored by dispatch)\n",
                not_compiled);
  std::printf("blocklist: %zu configs\n", table.blocklist().size());
  for (const auto& [config, why] : table.blocklist())
    std::printf("  %s: %s\n", config.c_str(), why.c_str());
  const auto rows = sorted_rows(table, std::nullopt);
  std::map<std::string, int> wins;
  for (const Row& r : rows) ++wins[r.entry.config.name()];
  std::vector<std::pair<int, std::string>> ranked;
  for (const auto& [name, n] : wins) ranked.push_back({-n, name});
  std::sort(ranked.begin(), ranked.end());
  std::printf("wins per config over %zu tuned problems:\n", rows.size());
  for (const auto& [n, name] : ranked) std::printf("  %5d  %s\n", -n, name.c_str());
  std::printf("geomean best speedup over cuBLASLt: %.3fx; policy state %s\n", geomean(rows),
              !db.policy ? "absent" : policy_readable(db) ? "saved" : "unreadable");
  return db.errors.empty() ? 0 : 1;
}

int export_db(const std::string& path, const std::string& out, const std::string& format,
              const std::optional<Layout>& layout) {
  const Database db = load_reporting(path, false);
  if (format == "jsonl") {
    Database clean = db;
    clean.errors.clear();
    if (layout)
      std::erase_if(clean.records, [&](const Record& r) { return r.problem.layout != *layout; });
    write_database(out, clean);
    std::printf("wrote %zu records to %s\n", clean.records.size(), out.c_str());
    return 0;
  }
  std::ostringstream csv;
  csv << "m,n,k,layout,acc,config,median_us,reference_us,speedup,samples\n";
  const auto rows = sorted_rows(table_of(db), layout);
  for (const Row& r : rows) {
    char line[320];
    std::snprintf(line, sizeof line, "%lld,%lld,%lld,%s,%s,%s,%.4f,%.4f,%.5f,%d\n",
                  (long long)r.key.m, (long long)r.key.n, (long long)r.key.k,
                  std::string(to_string(r.key.layout)).c_str(),
                  std::string(to_string(r.key.accum)).c_str(), r.entry.config.name().c_str(),
                  r.entry.median_us, r.entry.reference_us, r.entry.speedup(), r.entry.samples);
    csv << line;
  }
  write_file_atomically(out, csv.str());
  std::printf("wrote %zu rows to %s\n", rows.size(), out.c_str());
  return 0;
}

int export_table(const std::string& path, const std::string& out, Accum accum) {
  const Database db = load_reporting(path, false);
  if (db.header.empty()) throw ArgError(path + " has no header: not a tuning database");
  const dispatch::Table table =
      export_table(db, accum, std::filesystem::path(path).filename().string());
  write_file_atomically(out, dispatch::format_table(table));
  std::printf("wrote %zu %s entries (%s, %d SMs) to %s\n", table.entries.size(),
              std::string(to_string(accum)).c_str(), table.gpu.c_str(), table.sm_count,
              out.c_str());
  return db.errors.empty() ? 0 : 1;
}

// For a database tuned before hgemm tune wrote user tables, or tuned with --no-user-table.
int export_user_table(const std::string& path, const std::optional<std::string>& into,
                      Accum accum) {
  const Database db = load_reporting(path, false);
  if (db.header.empty()) throw ArgError(path + " has no header: not a tuning database");
  const dispatch::Table tuned =
      export_table(db, accum, std::filesystem::path(path).filename().string());
  const std::string target = into ? *into : dispatch::user_table_path(tuned.gpu, accum);
  if (target.empty())
    throw ArgError("no cache directory (neither XDG_CACHE_HOME nor HOME is set): name the user "
                   "table with --table FILE");
  std::vector<Problem> shapes;
  for (const dispatch::TableEntry& e : tuned.entries)
    shapes.push_back({e.m, e.n, e.k, e.layout, accum});
  const UserTableWrite w = update_user_table(target, tuned, shapes);
  std::printf("merged %zu %s entries (%s, %d SMs) into the user table %s (%zu entries)\n",
              w.written, std::string(to_string(accum)).c_str(), tuned.gpu.c_str(), tuned.sm_count,
              w.path.c_str(), w.entries);
  return db.errors.empty() ? 0 : 1;
}

// The policy's whole distribution, not only its argmax: how far a config is from being picked
// (issue 22 asks whether proposals move the policy's preferences, which the argmax rarely shows).
void print_ranks(const TunedTable& table, const std::vector<Problem>& problems,
                 const std::vector<std::string>& rank) {
  const bool all = std::find(rank.begin(), rank.end(), "all") != rank.end();
  std::printf("\npolicy ranks: the saved policy's softmax (temperature 1) over each shape's "
              "candidates (legal here, not blocklisted); rank 1 is its pick\n");
  std::printf("%-8s %-8s %-8s %-3s %-4s %10s %5s %12s %10s %s\n", "m", "n", "k", "lay", "acc",
              "candidates", "rank", "probability", "score", "config");
  for (const Problem& p : problems) {
    const std::vector<PolicyRank> ranking = table.policy_ranking(p);
    for (const PolicyRank& r : ranking) {
      const std::string name = r.config.name();
      if (!all && std::none_of(rank.begin(), rank.end(), [&](const std::string& part) {
            return name.find(part) != std::string::npos;
          }))
        continue;
      std::printf("%-8lld %-8lld %-8lld %-3s %-4s %10zu %5d %12.6e %10.4f %s\n", (long long)p.m,
                  (long long)p.n, (long long)p.k, std::string(to_string(p.layout)).c_str(),
                  std::string(to_string(p.accum)).c_str(), ranking.size(), r.rank, r.probability,
                  r.score, name.c_str());
    }
  }
}

int predict(const std::string& path, Accum accum, const std::vector<Shape>& shapes,
            const std::optional<Layout>& layout, NeighborRule rule,
            const std::vector<std::string>& rank,
            std::shared_ptr<const dispatch::DispatchModel> model) {
  const Database db = load_reporting(path, false);
  print_header(path, db);
  TunedTable table = table_of(db);
  table.set_model(std::move(model));
  auto name = [](const std::optional<KernelConfig>& c) { return c ? c->name() : std::string("-"); };
  std::printf("%-8s %-8s %-8s %-3s %-4s %-8s %-52s %-52s %s\n", "m", "n", "k", "lay", "acc", "from",
              "dispatch", "nearest", "policy");
  for (const Shape& sh : shapes)
    for (Layout l : {Layout::kNN, Layout::kTN}) {
      if (layout && l != *layout) continue;
      const Problem p{sh.m, sh.n, sh.k, l, accum};
      const TunedEntry* tuned = table.find(p);
      const auto nearest = table.predict_nearest(p, rule);
      const auto policy = table.predict_policy(p);
      const auto chosen =
          tuned ? std::optional<KernelConfig>(tuned->config) : table.predict(p, rule);
      const char* from = tuned                     ? "tuned"
                         : !chosen                 ? "none"
                         : chosen == nearest       ? "nearest"
                                                   : "policy";
      std::printf("%-8lld %-8lld %-8lld %-3s %-4s %-8s %-52s %-52s %s\n", (long long)sh.m,
                  (long long)sh.n, (long long)sh.k, std::string(to_string(l)).c_str(),
                  std::string(to_string(accum)).c_str(), from, name(chosen).c_str(),
                  name(nearest).c_str(), name(policy).c_str());
    }
  std::printf("without a decision from the database (\"none\"), dispatch uses the cost heuristic\n");
  if (!rank.empty()) {
    if (!table.has_policy()) {
      std::fprintf(stderr, "hgemm db: --rank: %s has no readable rl policy state\n", path.c_str());
      return 1;
    }
    std::vector<Problem> problems;
    for (const Shape& sh : shapes)
      for (Layout l : {Layout::kNN, Layout::kTN})
        if (!layout || l == *layout) problems.push_back({sh.m, sh.n, sh.k, l, accum});
    print_ranks(table, problems, rank);
  }
  return db.errors.empty() ? 0 : 1;
}

int loo(const std::string& path, const std::string& table_path,
        const std::vector<NeighborRule>& rules, const std::optional<Layout>& layout,
        size_t worst, std::shared_ptr<const dispatch::DispatchModel> model,
        bool twins_as_direct) {
  const Database db = load_reporting(path, false);
  const Database table = table_path == path ? db : load_reporting(table_path, false);
  print_header(path, db);
  if (table_path != path) std::printf("measurements from %s\n", table_path.c_str());
  if (model)
    std::printf("dispatch model %s (where no other problem has the N and K)\n",
                model->source.c_str());
  TunedTable neighbours = table_of(db);
  neighbours.set_model(std::move(model));
  const std::vector<RuleScore> scores =
      leave_one_out(neighbours, table, rules, layout, twins_as_direct);
  std::printf("%-9s %9s %8s %6s %9s %8s %9s %9s | %7s %9s %9s\n", "rule", "problems", "covered",
              "best", "ratio", "within2%", "speedup", "ceiling", "common", "ratio", "speedup");
  for (const RuleScore& s : scores)
    std::printf("%-9s %9d %8d %6d %9.4f %8.3f %9.4f %9.4f | %7d %9.4f %9.4f\n",
                std::string(to_string(s.rule)).c_str(), s.problems, s.covered, s.best, s.ratio,
                s.within_2pct, s.speedup, s.best_speedup, s.common, s.common_ratio,
                s.common_speedup);
  std::printf("\ncommon ratio by size (2MNK FLOP):\n%-9s", "rule");
  for (int b = 0; b < kSizeBuckets; ++b)
    std::printf(" %14s", (size_bucket_label(b) + " (" +
                          std::to_string(scores.empty() ? 0 : scores[0].bucket_count[b]) + ")")
                             .c_str());
  std::printf("\n");
  for (const RuleScore& s : scores) {
    std::printf("%-9s", std::string(to_string(s.rule)).c_str());
    for (double r : s.bucket_ratio) std::printf(" %14.4f", r);
    std::printf("\n");
  }
  std::printf(
      "\neach problem is left out of its own neighbours. ratio: geomean of the pick's speedup "
      "over the best measured config's (each time over its own interleaved cuBLASLt reference: "
      "a problem's configs ran at different clocks), over the covered problems (those whose "
      "pick was measured there); speedup: the picks' over cuBLASLt; ceiling: the best measured "
      "config's; common: the problems every rule covered\n");
  if (twins_as_direct)
    for (const RuleScore& s : scores)
      std::printf("%s: %d of the %d covered picks are TMA-store twins scored by their "
                  "direct-store tile's measurement\n",
                  std::string(to_string(s.rule)).c_str(), s.as_direct, s.covered);
  for (const RuleScore& s : scores) {
    if (worst == 0) break;
    std::printf("\n%s, the %zu worst covered problems (ratio, pick, best measured):\n",
                std::string(to_string(s.rule)).c_str(), std::min(worst, s.picks.size()));
    for (size_t i = 0; i < s.picks.size() && i < worst; ++i) {
      const PickScore& p = s.picks[i];
      std::printf("  %-24s %7.4f  %-52s %s%s%s\n", p.problem.name().c_str(), p.ratio,
                  p.pick.c_str(), p.best.c_str(), p.scored_as.empty() ? "" : "  scored as ",
                  p.scored_as.c_str());
    }
  }
  return db.errors.empty() && table.errors.empty() ? 0 : 1;
}

int merge(const std::string& out, const std::vector<std::string>& inputs) {
  // FILE is replaced by the merge, so one that is not a database is refused, not overwritten.
  std::error_code ec;
  std::vector<Database> parts{std::filesystem::exists(out, ec) ? load_existing(out) : Database{}};
  size_t total = parts.front().records.size();
  for (const std::string& file : inputs) {
    Database db = load_existing(file);
    if (db.header.empty() && db.records.empty()) throw ArgError(file + " is empty");
    total += db.records.size();
    parts.push_back(std::move(db));
  }
  Database merged = merge_databases(parts);
  for (const std::string& e : merged.errors)
    std::fprintf(stderr, "hgemm db: error: %s (line skipped)\n", e.c_str());
  const bool had_errors = !merged.errors.empty();
  merged.errors.clear();
  write_database(out, merged);
  std::printf("merged %zu files into %s: %zu records (%zu duplicates dropped)\n", inputs.size(),
              out.c_str(), merged.records.size(), total - merged.records.size());
  return had_errors ? 1 : 0;
}

// default_db_path answers $HGEMM_DB before it looks at the GPU's name, so when the answer does
// not depend on the name, no device is needed (reading a database never needs one).
std::string default_path(Accum accum) {
  const DeviceInfo* device = nullptr;
  const Status status = query_current_device(&device);
  if (status.ok()) return default_db_path(device->name, accum);
  const std::string path = default_db_path("gpu-a", accum);
  if (path == default_db_path("gpu-b", accum)) return path;
  throw ArgError(status.message + "; name a database (PATH, --db or $HGEMM_DB)");
}

}  // namespace

int cmd_db(const Args& raw) {
  try {
    ParsedArgs args(raw, {"db", "acc", "layout", "out", "format", "shape", "suite", "table", "rule",
                          "rank", "worst", "model"},
                    {"help", "user-table", "twins-as-direct"});
    const auto& pos = args.positional();
    if (args.flag("help") || pos.empty()) {
      std::fputs(kHelp, pos.empty() && !args.flag("help") ? stderr : stdout);
      return args.flag("help") ? 0 : 2;
    }
    const std::string sub = pos[0];
    const auto accum = parse_accum(args.get_or("acc", "f32"));
    if (!accum) throw ArgError("--acc must be f32 or f16");
    std::optional<Layout> layout;
    if (auto l = args.get("layout")) {
      layout = parse_layout(*l);
      if (!layout) throw ArgError("--layout must be nn or tn");
    }
    if (sub == "merge") {
      const auto out = args.get("out");
      if (!out) throw ArgError("merge needs --out FILE");
      require_writable(*out, "--out");
      if (pos.size() < 2) throw ArgError("merge needs at least one input file");
      return merge(*out, std::vector<std::string>(pos.begin() + 1, pos.end()));
    }
    if (sub != "show" && sub != "stats" && sub != "export" && sub != "predict" && sub != "loo")
      throw ArgError("unknown db command '" + sub + "' (show, stats, export, merge, predict, loo)");
    if (pos.size() > 2) throw ArgError("unexpected argument '" + pos[2] + "'");
    if (args.flag("user-table") && sub != "export")
      throw ArgError("--user-table belongs to export");
    if (args.get("rank") && sub != "predict") throw ArgError("--rank belongs to predict");
    if (args.get("worst") && sub != "loo") throw ArgError("--worst belongs to loo");
    if (args.flag("twins-as-direct") && sub != "loo")
      throw ArgError("--twins-as-direct belongs to loo");
    if (args.get("model") && sub != "loo" && sub != "predict")
      throw ArgError("--model belongs to predict and loo");
    std::shared_ptr<const dispatch::DispatchModel> model;
    if (auto m = args.get("model")) {
      try {
        model = std::make_shared<const dispatch::DispatchModel>(dispatch::load_model(*m));
      } catch (const Error& e) {
        throw ArgError("--model: " + e.message());
      }
      if (model->accum != *accum)
        throw ArgError("--model: " + *m + " was fitted for " +
                       std::string(to_string(model->accum)) + ", not --acc " +
                       std::string(to_string(*accum)));
    }
    std::string path;
    if (pos.size() == 2) path = pos[1];
    else if (auto db = args.get("db")) path = *db;
    else path = default_path(*accum);
    if (sub == "show") return show(path, layout);
    if (sub == "predict") {
      const auto shape = args.get("shape");
      const auto suite = args.get("suite");
      if (!shape == !suite) throw ArgError("predict needs one of --shape or --suite");
      std::vector<Shape> shapes;
      if (suite) {
        try {
          shapes = load_suite(*suite);
        } catch (const Error& e) {
          throw ArgError(e.message());
        }
      } else {
        shapes = parse_shapes(*shape);
      }
      const std::string rule_name = args.get_or("rule", std::string(to_string(kDefaultNeighborRule)));
      const auto rule = parse_neighbor_rule(rule_name);
      if (!rule)
        throw ArgError("unknown --rule '" + rule_name + "' (nearest, cost, scaled, siblings, transfer)");
      std::vector<std::string> rank;
      if (args.get("rank")) rank = args.list_or("rank", "");
      return predict(path, *accum, shapes, layout, *rule, rank, model);
    }
    if (sub == "loo") {
      std::vector<NeighborRule> rules;
      for (const std::string& name : args.list_or("rule", "nearest,cost,scaled,siblings,transfer")) {
        const auto rule = parse_neighbor_rule(name);
        if (!rule) throw ArgError("unknown --rule '" + name + "' (nearest, cost, scaled, siblings, transfer)");
        rules.push_back(*rule);
      }
      const long long worst = args.int_or("worst", 0);
      if (worst < 0) throw ArgError("--worst takes a count of problems, 0 or more, got " +
                                    std::to_string(worst));
      return loo(path, args.get_or("table", path), rules, layout, size_t(worst), model,
                 args.flag("twins-as-direct"));
    }
    if (sub == "stats") return stats(path);
    if (args.flag("user-table")) {
      if (args.get("out")) throw ArgError("export --user-table takes no --out");
      return export_user_table(path, args.get("table"), *accum);
    }
    if (auto table = args.get("table")) {
      if (args.get("out")) throw ArgError("export takes --out FILE or --table FILE, not both");
      return export_table(path, *table, *accum);
    }
    const auto out = args.get("out");
    if (!out) throw ArgError("export needs --out FILE (or --table FILE)");
    const std::string format = args.get_or("format", "csv");
    if (format != "csv" && format != "jsonl") throw ArgError("--format must be csv or jsonl");
    require_writable(*out, "--out");
    return export_db(path, *out, format, layout);
  } catch (const ArgError& e) {
    std::fprintf(stderr, "hgemm db: %s\n", e.what());
    return 2;
  }
}

}  // namespace hgemm::cli
