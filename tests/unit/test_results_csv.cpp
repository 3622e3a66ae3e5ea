// The results CSV (schema round trip, tolerant reading, errors with line numbers), the harness's
// pure helpers (rotation set count, percentiles, the spread of a timing and the bars derived
// from it), and `hgemm bench` argument errors, which must exit 2 before any device call (this
// binary runs on the CPU-only CI machine).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "bench/results_csv.hpp"
#include "bench/timing.hpp"

namespace {

using hgemm::bench::ResultRow;

ResultRow sample_row() {
  ResultRow r;
  r.m = 4096;
  r.n = 1024;
  r.k = 8192;
  r.layout = "tn";
  r.acc = "f32";
  r.impl = "cublaslt-autotune";
  r.mode = "offline";
  r.disposition = "passed";
  r.ms = 0.123456;
  r.tflops = r.flops() / (r.ms * 1e-3) / 1e12;
  r.p20_ms = 0.12;
  r.p80_ms = 0.125;
  r.min_ms = 0.119;
  r.max_ms = 0.13;
  r.samples = 5;
  r.calls_per_sample = 13;
  r.sets = 3;
  r.sm_clock_before_mhz = 1755;
  r.sm_clock_after_mhz = 1980;
  r.detail = "algo 2/8: id 21, \"quoted\", tile 18";
  return r;
}

void expect_same(const ResultRow& a, const ResultRow& b) {
  EXPECT_EQ(a.m, b.m);
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.k, b.k);
  EXPECT_EQ(a.layout, b.layout);
  EXPECT_EQ(a.acc, b.acc);
  EXPECT_EQ(a.impl, b.impl);
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.disposition, b.disposition);
  auto same = [](double x, double y) {
    return (std::isnan(x) && std::isnan(y)) || std::abs(x - y) <= 1e-5 * std::abs(y);
  };
  EXPECT_TRUE(same(a.ms, b.ms)) << a.ms << " vs " << b.ms;
  EXPECT_TRUE(same(a.tflops, b.tflops)) << a.tflops << " vs " << b.tflops;
  EXPECT_TRUE(same(a.p20_ms, b.p20_ms));
  EXPECT_TRUE(same(a.p80_ms, b.p80_ms));
  EXPECT_TRUE(same(a.min_ms, b.min_ms));
  EXPECT_TRUE(same(a.max_ms, b.max_ms));
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_EQ(a.calls_per_sample, b.calls_per_sample);
  EXPECT_EQ(a.sets, b.sets);
  EXPECT_EQ(a.sm_clock_before_mhz, b.sm_clock_before_mhz);
  EXPECT_EQ(a.sm_clock_after_mhz, b.sm_clock_after_mhz);
  EXPECT_EQ(a.detail, b.detail);
}

}  // namespace

TEST(ResultsCsv, RoundTripKeepsEveryField) {
  ResultRow timed = sample_row();
  ResultRow failed = sample_row();
  failed.impl = "hgemm";
  failed.disposition = "incorrect";
  const double nan = std::numeric_limits<double>::quiet_NaN();
  failed.ms = failed.tflops = failed.p20_ms = failed.p80_ms = failed.min_ms = failed.max_ms = nan;
  failed.samples = 0;
  failed.detail = "INCORRECT random_normal: rel_fro 3.1e-03 > tol 6.0e-04 at (12,40)\nsecond line";

  hgemm::bench::Environment env = {{"gpu", "NVIDIA H100 80GB HBM3"}, {"git", "abc123"},
                                   {"command", "hgemm bench --suite grid --out x.csv"}};
  const std::string text = hgemm::bench::format_environment(env) + hgemm::bench::header_line() +
                           "\n" + hgemm::bench::format_row(timed) + "\n" +
                           hgemm::bench::format_row(failed) + "\n";
  const auto file = hgemm::bench::parse_results(text, "roundtrip");
  ASSERT_EQ(file.environment.size(), 3u);
  EXPECT_EQ(file.environment[0].first, "gpu");
  EXPECT_EQ(file.environment[0].second, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(file.environment[2].second, "hgemm bench --suite grid --out x.csv");
  ASSERT_EQ(file.rows.size(), 2u);
  expect_same(file.rows[0], timed);
  failed.detail = "INCORRECT random_normal: rel_fro 3.1e-03 > tol 6.0e-04 at (12,40) second line";
  expect_same(file.rows[1], failed);
  EXPECT_TRUE(file.rows[0].timed());
  EXPECT_FALSE(file.rows[1].timed());
  // A failed row's time columns are empty, not zero.
  EXPECT_NE(hgemm::bench::format_row(file.rows[1]).find(",incorrect,,,"), std::string::npos);
}

TEST(ResultsCsv, HeaderNamesTheSchemaColumns) {
  const std::string header = hgemm::bench::header_line();
  EXPECT_EQ(header.rfind("m,n,k,layout,acc,impl,mode,disposition,ms,tflops,", 0), 0u) << header;
  EXPECT_EQ(hgemm::bench::columns().size(), 20u);
  EXPECT_EQ(hgemm::bench::columns().back(), "detail");
}

TEST(ResultsCsv, ColumnsAreFoundByNameAndOptionalOnesDefault) {
  // Reordered, an extra column, no spread/clock columns, no tflops (computed from ms).
  const std::string text =
      "impl,mode,acc,layout,k,n,m,ms,disposition,extra\n"
      "torch,offline,f32,nn,1024,1024,1024,0.5,passed,whatever\n";
  const auto file = hgemm::bench::parse_results(text);
  ASSERT_EQ(file.rows.size(), 1u);
  const ResultRow& r = file.rows[0];
  EXPECT_EQ(r.impl, "torch");
  EXPECT_EQ(r.m, 1024);
  EXPECT_DOUBLE_EQ(r.ms, 0.5);
  EXPECT_NEAR(r.tflops, 2.0 * 1024 * 1024 * 1024 / 0.5e-3 / 1e12, 1e-9);
  EXPECT_EQ(r.sm_clock_before_mhz, -1);
  EXPECT_TRUE(std::isnan(r.p20_ms));
  EXPECT_TRUE(r.timed());
}

TEST(ResultsCsv, MalformedInputNamesTheLine) {
  auto message_of = [](const std::string& text) -> std::string {
    try {
      hgemm::bench::parse_results(text, "bad.csv");
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no exception";
  };
  const std::string header = hgemm::bench::header_line() + "\n";
  EXPECT_NE(message_of("m,n,k,layout,acc,impl,mode,ms\n").find("'disposition'"),
            std::string::npos);
  EXPECT_NE(message_of(header + "1,2\n").find("bad.csv:2: expected 20 fields"), std::string::npos);
  std::string row = hgemm::bench::format_row(sample_row());
  row.replace(row.find("0.123456"), 8, "0.12abc");
  EXPECT_NE(message_of("# gpu=x\n" + header + row + "\n").find("bad.csv:3: column 'ms'"),
            std::string::npos);
  EXPECT_NE(message_of("").find("no header"), std::string::npos);
  ResultRow zero = sample_row();
  zero.m = 0;
  EXPECT_NE(message_of(header + hgemm::bench::format_row(zero)).find("positive"),
            std::string::npos);
}

TEST(ResultsCsv, QuotingAndKeys) {
  EXPECT_EQ(hgemm::bench::csv_quote("plain"), "plain");
  EXPECT_EQ(hgemm::bench::csv_quote("a,b"), "\"a,b\"");
  EXPECT_EQ(hgemm::bench::csv_quote("say \"hi\""), "\"say \"\"hi\"\"\"");
  const auto fields = hgemm::bench::csv_split("1,\"a,b\",\"x\"\"y\",");
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[1], "a,b");
  EXPECT_EQ(fields[2], "x\"y");
  EXPECT_EQ(fields[3], "");
  const ResultRow r = sample_row();
  EXPECT_EQ(hgemm::bench::row_key(r), "4096x1024x8192|tn|f32|cublaslt-autotune|offline");
}

TEST(BenchMath, RotationSetsExceedTwiceTheL2) {
  const int64_t l2 = 50 * 1024 * 1024;
  // 64^3: A, B and C are 8 KiB each.
  const int64_t small = 3 * 64 * 64 * 2;
  const int sets = hgemm::bench::rotation_sets(small, l2);
  EXPECT_EQ(sets, 4268);  // ceil(2 * 50 MiB / 24 KiB) + 1
  EXPECT_GE(int64_t(sets - 1) * small, 2 * l2);
  // Exactly the L2 per set: two others hold 2x L2, plus the one in use.
  EXPECT_EQ(hgemm::bench::rotation_sets(l2, l2), 3);
  // One set of a 16384^3 problem is far beyond 2x L2: two sets, never one.
  EXPECT_EQ(hgemm::bench::rotation_sets(int64_t(3) * 16384 * 16384 * 2, l2), 2);
  EXPECT_EQ(hgemm::bench::rotation_sets(1, l2, 100), 100);
}

TEST(BenchMath, PercentilesInterpolate) {
  const std::vector<double> v = {5, 1, 4, 2, 3};
  EXPECT_DOUBLE_EQ(hgemm::bench::percentile(v, 0.5), 3);
  EXPECT_DOUBLE_EQ(hgemm::bench::percentile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(hgemm::bench::percentile(v, 1.0), 5);
  EXPECT_DOUBLE_EQ(hgemm::bench::percentile(v, 0.2), 1.8);
  EXPECT_DOUBLE_EQ(hgemm::bench::percentile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_TRUE(std::isnan(hgemm::bench::percentile({}, 0.5)));
}

TEST(BenchMath, RelativeSpreadIsP20ToP80OverTheMedian) {
  using hgemm::bench::relative_spread;
  using Samples = std::vector<double>;
  // p20 1.8, median 3, p80 4.2: (4.2 - 1.8) / 3.
  EXPECT_NEAR(relative_spread(Samples{5, 1, 4, 2, 3}), 0.8, 1e-12);
  EXPECT_DOUBLE_EQ(relative_spread(Samples{2, 2, 2}), 0);
  EXPECT_TRUE(std::isnan(relative_spread(Samples{})));
  EXPECT_TRUE(std::isnan(relative_spread(Samples{0, 0, 0})));

  hgemm::bench::Timing t;
  t.samples = 9;
  t.p20_ms = 0.19;
  t.median_ms = 0.2;
  t.p80_ms = 0.21;
  EXPECT_NEAR(t.relative_spread(), 0.1, 1e-12);
  // A timing with no rounds, or one whose contender threw, has no spread to offer.
  EXPECT_TRUE(std::isnan(hgemm::bench::Timing{}.relative_spread()));
  t.failure = std::make_exception_ptr(std::runtime_error("planted"));
  EXPECT_TRUE(std::isnan(t.relative_spread()));
}

TEST(BenchMath, SpreadBarHasAFloorAndFailsAboveItsCeiling) {
  using hgemm::bench::spread_bar;
  // A quiet run: the floor.
  auto b = spread_bar(0.001, 2, 0.03, 0.15);
  EXPECT_DOUBLE_EQ(b.spread, 0.001);
  EXPECT_DOUBLE_EQ(b.bar, 0.03);
  EXPECT_TRUE(b.usable);
  // A noisy run: k times its spread.
  b = spread_bar(0.06, 2, 0.03, 0.15);
  EXPECT_DOUBLE_EQ(b.bar, 0.12);
  EXPECT_TRUE(b.usable);
  EXPECT_TRUE(spread_bar(0.075, 2, 0.03, 0.15).usable);
  // Too noisy to compare anything: not usable, so a check built on it fails.
  b = spread_bar(0.08, 2, 0.03, 0.15);
  EXPECT_DOUBLE_EQ(b.bar, 0.16);
  EXPECT_FALSE(b.usable);
  EXPECT_FALSE(spread_bar(std::nan(""), 2, 0.03, 0.15).usable);
}

TEST(BenchMath, ModeNames) {
  for (auto m : {hgemm::bench::Mode::kOffline, hgemm::bench::Mode::kGraph,
                 hgemm::bench::Mode::kLatency, hgemm::bench::Mode::kServer})
    EXPECT_EQ(hgemm::bench::parse_mode(hgemm::bench::to_string(m)), m);
  EXPECT_FALSE(hgemm::bench::parse_mode("warm").has_value());
}

#ifdef HGEMM_CLI_PATH
#include "cli_runner.hpp"

namespace {

void expect_bench_error(const std::string& args, const std::string& needle) {
  CliResult r = run_cli("bench " + args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find("hgemm bench: "), std::string::npos) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << args << "\n" << r.output;
}

}  // namespace

TEST(BenchCli, ArgumentErrorsExitTwoBeforeTouchingTheDevice) {
  const std::string out = "--out " + testing::TempDir() + "bench_args.csv";
  expect_bench_error("", "--suite or --shape is required");
  expect_bench_error("--suite smoke", "--out is required");
  expect_bench_error("--suite smoke --shape 64x64x64 " + out, "exclusive");
  expect_bench_error("--suite no_such_suite " + out, "no suite file");
  expect_bench_error("--shape 64x64 " + out, "--shape expects MxNxK");
  expect_bench_error("--shape 64x0x64 " + out, "--shape expects MxNxK");
  expect_bench_error("--suite smoke " + out + " --impl cublas,bogus", "unknown implementation");
  expect_bench_error("--suite smoke " + out + " --impl torch", "python -m hgemm.bench");
  expect_bench_error("--suite smoke " + out + " --impl config:bogus", "not a kernel config name");
  expect_bench_error("--suite smoke " + out + " --modes offline,warm", "unknown mode 'warm'");
  expect_bench_error("--suite smoke " + out + " --layout nt", "unknown layout 'nt'");
  expect_bench_error("--suite smoke " + out + " --acc f64", "unknown accumulation 'f64'");
  expect_bench_error("--suite smoke " + out + " --loops 3", "--loops must be 5..1000");
  expect_bench_error("--suite smoke " + out + " --loop-ms 0", "--loop-ms");
  expect_bench_error("--suite smoke " + out + " --qps -1", "--qps");
  expect_bench_error("--suite smoke " + out + " --server-calls x", "expects an integer");
  expect_bench_error("--suite smoke " + out + " --bogus", "unknown option --bogus");
  expect_bench_error("--suite smoke " + out + " stray", "unexpected argument 'stray'");
  expect_bench_error("--suite smoke --out /nonexistent_dir_hgemm/x.csv", "cannot write");
}

TEST(BenchCli, ResumeRefusesAMalformedFile) {
  const std::string path = testing::TempDir() + "bench_resume_bad.csv";
  {
    std::ofstream f(path);
    f << "not,a,results,file\n1,2,3,4\n";
  }
  expect_bench_error("--suite smoke --out " + path + " --resume", "cannot resume from");
  // Readable, but in another column order: appended rows would not line up.
  {
    std::ofstream f(path);
    f << "impl,mode,acc,layout,k,n,m,ms,disposition\ntorch,offline,f32,nn,64,64,64,0.01,passed\n";
  }
  expect_bench_error("--suite smoke --out " + path + " --resume", "header row differs");
  std::remove(path.c_str());
}

TEST(BenchCli, HelpExitsZero) {
  CliResult r = run_cli("bench --help");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("--resume"), std::string::npos);
  EXPECT_NE(r.output.find("--server-calls"), std::string::npos);
}
#endif  // HGEMM_CLI_PATH
