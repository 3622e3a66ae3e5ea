// hgemm report: reads results CSVs (from hgemm bench and python/bench_torch.py), merges them and
// prints the paper's summary tables as Markdown. The arithmetic lives in src/bench/report.cpp.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "args.hpp"
#include "bench/report.hpp"
#include "bench/results_csv.hpp"
#include "bench/timing.hpp"
#include "commands.hpp"
#include "core/file_io.hpp"

namespace hgemm::cli {
namespace {

constexpr const char* kHelp = R"(usage: hgemm report FILE... [options]

Summarizes results CSVs (hgemm bench, python/bench_torch.py) as Markdown: speedup statistics per
baseline and mode (Table 1), the same clipped at 1 (Table 2), geometric means by FLOP bucket, and
the worst shapes per baseline. Definitions: docs/benchmarking.md.

  --candidate IMPL   the implementation compared against the baselines (default hgemm;
                     e.g. config:NAME)
  --worst N          shapes listed per baseline in the worst-shapes section (default 10)
  --worst-mode MODE  timing mode of the worst-shapes section (default offline)
  --out FILE         write the Markdown to FILE instead of stdout
  --charts DIR       also draw the speedup over cublaslt-best (faster layout of each side) by
                     problem size, one line per timing mode: DIR/speedup-ACC.svg per accumulation,
                     linked at the top of the report
)";

}  // namespace

int cmd_report(const Args& raw) {
  try {
    ParsedArgs args(raw, {"candidate", "worst", "worst-mode", "out", "charts"}, {"help"});
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
    if (auto dir = args.get("charts")) {
      const std::vector<bench::ResultRow> rows = bench::merged_rows(inputs);
      const bench::BaselineSpec baseline{"cublaslt-best", bench::BaselineLayout::kMax};
      std::error_code ec;
      std::filesystem::create_directories(*dir, ec);
      if (ec) throw ArgError("cannot create --charts directory " + *dir + ": " + ec.message());
      const std::filesystem::path report_dir =
          args.get("out") ? std::filesystem::absolute(*args.get("out")).parent_path()
                          : std::filesystem::current_path();
      for (const auto& chart : bench::speedup_charts(rows, options.candidate, baseline)) {
        const std::filesystem::path path =
            std::filesystem::path(*dir) / ("speedup-" + chart.acc + ".svg");
        write_file_atomically(path.string(), bench::render_svg(chart.chart));
        options.chart_links.emplace_back(
            chart.chart.title,
            std::filesystem::absolute(path).lexically_relative(report_dir).generic_string());
      }
    }
    const std::string markdown = bench::render_report(inputs, options);
    if (auto out = args.get("out")) {
      write_file_atomically(*out, markdown);
    } else {
      std::fputs(markdown.c_str(), stdout);
    }
    return 0;
  } catch (const ArgError& e) {
    std::fprintf(stderr, "hgemm report: %s\n", e.what());
    return 2;
  }
}

}  // namespace hgemm::cli
