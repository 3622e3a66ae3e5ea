// hgemm report: reads results CSVs (from hgemm bench and python -m hgemm.bench), merges them and
// prints the paper's summary tables as Markdown. The arithmetic lives in src/bench/report.cpp.
// --html hands the same files to python/hgemm_report.py, which draws the figures with matplotlib.
#include <cerrno>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "args.hpp"
#include "bench/report.hpp"
#include "bench/results_csv.hpp"
#include "bench/timing.hpp"
#include "commands.hpp"
#include "core/file_io.hpp"

namespace hgemm::cli {
namespace {

constexpr const char* kHelp = R"(usage: hgemm report FILE... [options]

Summarizes results CSVs (hgemm bench, python -m hgemm.bench) as Markdown: speedup statistics per
baseline and mode (Table 1), the same clipped at 1 (Table 2), geometric means by FLOP bucket, and
the worst shapes per baseline. Definitions: docs/benchmarking.md.

  --candidate IMPL   the implementation compared against the baselines (default hgemm;
                     e.g. config:NAME)
  --worst N          shapes listed per baseline in the worst-shapes section (default 10)
  --worst-mode MODE  timing mode of the worst-shapes section (default offline)
  --out FILE         write the Markdown to FILE instead of stdout
  --html DIR         also write the HTML report (DIR/index.html and its PNG figures) with
                     python/hgemm_report.py; needs python3 with matplotlib and numpy
  --db FILE          with --html: a tuning database (JSON Lines, may be .gz) whose winners the
                     report plots (tile, stages, split-K, cluster against M, N, K)
  --ablation FILE    with --html: `hgemm ablate`'s ablation.csv, drawn as curves
)";

// The HTML report script: beside an installed binary (BIN/../share/hgemm), else in the source
// tree this binary was built from.
std::filesystem::path html_script() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path candidates[] = {
      ec ? fs::path() : exe.parent_path().parent_path() / "share" / "hgemm" / "hgemm_report.py",
      fs::path(HGEMM_SOURCE_DIR) / "python" / "hgemm_report.py"};
  for (const fs::path& p : candidates)
    if (!p.empty() && fs::is_regular_file(p, ec)) return p;
  throw ArgError("cannot find hgemm_report.py (looked in " + candidates[0].string() + " and " +
                 candidates[1].string() + ")");
}

// Runs python3 on the script with `argv` (no shell, so paths need no quoting); returns its exit
// status, 127 when python3 could not be started.
int run_python(const std::vector<std::string>& argv) {
  std::vector<char*> c_argv;
  for (const auto& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  if (posix_spawnp(&pid, "python3", nullptr, nullptr, c_argv.data(), environ) != 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int cmd_report(const Args& raw) {
  try {
    ParsedArgs args(raw, {"candidate", "worst", "worst-mode", "out", "html", "db", "ablation"}, {"help"});
    if (args.flag("help")) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    if (args.positional().empty()) throw ArgError("at least one results file is required");
    bench::ReportOptions options;
    options.candidate = args.get_or("candidate", "hgemm");
    if (options.candidate.empty()) throw ArgError("--candidate must not be empty");
    const long long worst = args.int_or("worst", 10);
    if (worst < 0 || worst > 100000) throw ArgError("--worst must be 0..100000");
    options.worst_count = size_t(worst);
    options.worst_mode = args.get_or("worst-mode", "offline");
    if (!bench::parse_mode(options.worst_mode))
      throw ArgError("unknown mode '" + options.worst_mode +
                     "' (offline, graph, latency, server)");

    if (auto out = args.get("out")) require_writable(*out, "--out");

    std::vector<bench::NamedResults> inputs;
    for (const std::string& path : args.positional()) {
      try {
        inputs.push_back({path, bench::read_results(path)});
      } catch (const std::exception& e) {
        throw ArgError(e.what());
      }
    }
    if (!args.get("html") && (args.get("db") || args.get("ablation")))
      throw ArgError("--db and --ablation only go with --html");
    const std::string markdown = bench::render_report(inputs, options);
    if (auto out = args.get("out")) {
      write_file_atomically(*out, markdown);
    } else {
      std::fputs(markdown.c_str(), stdout);
    }
    if (auto dir = args.get("html")) {
      std::vector<std::string> argv{"python3", html_script().string(), "--html", *dir,
                                    "--candidate", options.candidate};
      for (const char* key : {"db", "ablation"})
        if (auto v = args.get(key)) argv.insert(argv.end(), {std::string("--") + key, *v});
      argv.insert(argv.end(), args.positional().begin(), args.positional().end());
      const int rc = run_python(argv);
      if (rc == 127) {
        std::fprintf(stderr,
                     "hgemm report: cannot run python3 for --html (install Python 3 with "
                     "matplotlib and numpy, e.g. apt-get install python3-matplotlib)\n");
        return 1;
      }
      if (rc != 0) {
        std::fprintf(stderr, "hgemm report: the HTML report failed (python3 exited %d)\n", rc);
        return 1;
      }
    }
    return 0;
  } catch (const ArgError& e) {
    std::fprintf(stderr, "hgemm report: %s\n", e.what());
    return 2;
  }
}

}  // namespace hgemm::cli
