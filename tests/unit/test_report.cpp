// `hgemm report` arithmetic on a hand-made CSV with answers worked out by hand: speedup
// statistics (plain and clipped), layout matching and best-of-layouts, failed rows, duplicate
// rows, FLOP bucket edges, worst shapes; and the command's argument errors (exit 2, no device).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <sys/wait.h>

#include "bench/report.hpp"
#include "bench/results_csv.hpp"

namespace {

using hgemm::bench::BaselineLayout;
using hgemm::bench::BaselineSpec;

// Offline, f32. Shapes and times (ms), hgemm vs cublas:
//   64x64x64      (5.2e5 FLOP, bucket 0)  hgemm nn 1, tn 2      cublas nn 2,   tn 1
//   1000x1000x500 (exactly 1e9, bucket 1) hgemm nn 1, tn 1      cublas nn 1.5, tn 1.25
//   999x1000x500  (9.99e8, bucket 0)      hgemm nn 2, tn 4      cublas nn 1,   tn 4
//   4096^3        (1.4e11, bucket 3)      hgemm nn FAILED, tn 1 cublas nn 1,   tn 1.1
// Speedups: nn [2, 1.5, 0.5] (+1 hgemm missing), tn [0.5, 1.25, 1, 1.1],
//           max [1/1, 1.25/1, 1/2, 1/1] = [1, 1.25, 0.5, 1].
// The first cublas row for 64^3 nn (5 ms) is superseded by a later row for the same key.
// One graph-mode pair checks that modes stay separate: speedup 4.
const char* kCsv = R"(# gpu=Test GPU
# git=0123abcd
m,n,k,layout,acc,impl,mode,disposition,ms,detail
64,64,64,nn,f32,cublas,offline,passed,5,superseded
64,64,64,nn,f32,hgemm,offline,passed,1,
64,64,64,tn,f32,hgemm,offline,passed,2,
64,64,64,nn,f32,cublas,offline,passed,2,
64,64,64,tn,f32,cublas,offline,passed,1,
1000,1000,500,nn,f32,hgemm,offline,passed,1,
1000,1000,500,tn,f32,hgemm,offline,passed,1,
1000,1000,500,nn,f32,cublas,offline,passed,1.5,
1000,1000,500,tn,f32,cublas,offline,passed,1.25,
999,1000,500,nn,f32,hgemm,offline,passed,2,
999,1000,500,tn,f32,hgemm,offline,passed,4,
999,1000,500,nn,f32,cublas,offline,passed,1,
999,1000,500,tn,f32,cublas,offline,passed,4,
4096,4096,4096,nn,f32,hgemm,offline,incorrect,,"INCORRECT random_normal, rel_fro 1e-2"
4096,4096,4096,tn,f32,hgemm,offline,passed,1,
4096,4096,4096,nn,f32,cublas,offline,passed,1,
4096,4096,4096,tn,f32,cublas,offline,passed,1.1,
64,64,64,nn,f32,hgemm,graph,passed,0.25,
64,64,64,nn,f32,cublas,graph,passed,1,
)";

std::vector<hgemm::bench::ResultRow> rows() {
  return hgemm::bench::parse_results(kCsv, "hand-made").rows;
}

hgemm::bench::Comparison vs_cublas(const std::vector<hgemm::bench::ResultRow>& r,
                                   BaselineLayout layout, const std::string& mode = "offline",
                                   const std::string& acc = "f32") {
  return hgemm::bench::compare(r, "hgemm", {"cublas", layout}, mode, acc);
}

std::vector<double> speedups(const hgemm::bench::Comparison& c) {
  std::vector<double> out;
  for (const auto& s : c.shapes) out.push_back(s.speedup);
  return out;
}

}  // namespace

TEST(Report, LayoutMatchedSpeedups) {
  const auto r = rows();
  const auto nn = vs_cublas(r, BaselineLayout::kNN);
  // Sorted by shape: 64^3, 999x1000x500, 1000x1000x500.
  ASSERT_EQ(nn.shapes.size(), 3u);
  EXPECT_DOUBLE_EQ(nn.shapes[0].speedup, 2.0);  // the later 2 ms row won over the 5 ms one
  EXPECT_DOUBLE_EQ(nn.shapes[1].speedup, 0.5);
  EXPECT_DOUBLE_EQ(nn.shapes[2].speedup, 1.5);
  EXPECT_EQ(nn.candidate_missing, 1);  // 4096^3 nn failed verification for hgemm
  const auto tn = vs_cublas(r, BaselineLayout::kTN);
  EXPECT_EQ(speedups(tn), (std::vector<double>{0.5, 1.0, 1.25, 1.1}));
  EXPECT_EQ(tn.candidate_missing, 0);
}

TEST(Report, MaxComparesBestLayoutOfEachSide) {
  const auto c = vs_cublas(rows(), BaselineLayout::kMax, "offline", "f32");
  EXPECT_EQ(speedups(c), (std::vector<double>{1.0, 0.5, 1.25, 1.0}));
  ASSERT_EQ(c.shapes.size(), 4u);
  // 999x1000x500: hgemm's best is nn (2 ms), cublas's best is nn (1 ms).
  EXPECT_EQ(c.shapes[1].candidate_layout, "nn");
  EXPECT_EQ(c.shapes[1].baseline_layout, "nn");
  // 4096^3: hgemm nn failed, so its best passed layout is tn.
  EXPECT_EQ(c.shapes[3].candidate_layout, "tn");
  EXPECT_DOUBLE_EQ(c.shapes[3].candidate_ms, 1.0);
  EXPECT_EQ(c.candidate_missing, 0);
}

TEST(Report, ModesAreSeparate) {
  const auto g = vs_cublas(rows(), BaselineLayout::kNN, "graph", "f32");
  EXPECT_EQ(speedups(g), (std::vector<double>{4.0}));
  const auto none = vs_cublas(rows(), BaselineLayout::kNN, "offline", "f16");
  EXPECT_TRUE(none.shapes.empty());
}

TEST(Report, StatsOfSpeedupMinusOne) {
  // nn: gains [1, -0.5, 0.5]: mean 1/3, median 0.5, sample std sqrt(7/12), 2 of 3 faster.
  const auto s = hgemm::bench::speedup_stats({2.0, 0.5, 1.5}, false);
  EXPECT_EQ(s.n, 3);
  EXPECT_NEAR(s.mean, 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(s.median, 0.5, 1e-12);
  EXPECT_NEAR(s.stddev, std::sqrt(7.0 / 12.0), 1e-12);
  EXPECT_EQ(s.wins, 2);
  // Clipped: gains [1, 0, 0.5]: mean 0.5, median 0.5, std 0.5; wins unchanged.
  const auto c = hgemm::bench::speedup_stats({2.0, 0.5, 1.5}, true);
  EXPECT_NEAR(c.mean, 0.5, 1e-12);
  EXPECT_NEAR(c.median, 0.5, 1e-12);
  EXPECT_NEAR(c.stddev, 0.5, 1e-12);
  EXPECT_EQ(c.wins, 2);
  // tn: gains [-0.5, 0, 0.25, 0.1]: mean -0.0375, median (0 + 0.1) / 2; 1.0 is not a win.
  const auto t = hgemm::bench::speedup_stats({0.5, 1.0, 1.25, 1.1}, false);
  EXPECT_NEAR(t.mean, -0.0375, 1e-12);
  EXPECT_NEAR(t.median, 0.05, 1e-12);
  EXPECT_EQ(t.wins, 2);
  const auto one = hgemm::bench::speedup_stats({1.2}, false);
  EXPECT_NEAR(one.mean, 0.2, 1e-12);
  EXPECT_EQ(one.stddev, 0.0);
  EXPECT_EQ(hgemm::bench::speedup_stats({}, false).n, 0);
}

TEST(Report, FlopBucketEdges) {
  EXPECT_EQ(hgemm::bench::flop_bucket(std::nextafter(1e9, 0.0)), 0);
  EXPECT_EQ(hgemm::bench::flop_bucket(1e9), 1);  // exactly 1e9 goes to 1e9-1e10
  EXPECT_EQ(hgemm::bench::flop_bucket(2.0 * 1000 * 1000 * 500), 1);
  EXPECT_EQ(hgemm::bench::flop_bucket(2.0 * 999 * 1000 * 500), 0);
  EXPECT_EQ(hgemm::bench::flop_bucket(1e10), 2);
  EXPECT_EQ(hgemm::bench::flop_bucket(std::nextafter(1e10, 0.0)), 1);
  EXPECT_EQ(hgemm::bench::flop_bucket(1e11), 3);
  EXPECT_EQ(hgemm::bench::flop_bucket(1e12), 4);
  EXPECT_EQ(hgemm::bench::flop_bucket(2.0 * 16384 * 16384 * 16384), 4);
  EXPECT_EQ(hgemm::bench::flop_bucket(2.0 * 64 * 64 * 64), 0);
  EXPECT_STREQ(hgemm::bench::bucket_labels()[1], "1e9-1e10");
}

TEST(Report, GeomeanByBucket) {
  const auto nn = vs_cublas(rows(), BaselineLayout::kNN);
  const auto b = hgemm::bench::bucket_stats(nn.shapes);
  // Bucket 0: 64^3 (2.0) and 999x1000x500 (0.5): geomean 1, one slower.
  EXPECT_EQ(b[0].n, 2);
  EXPECT_NEAR(b[0].geomean, 1.0, 1e-12);
  EXPECT_EQ(b[0].slower, 1);
  // Bucket 1: 1000x1000x500 (1.5) alone.
  EXPECT_EQ(b[1].n, 1);
  EXPECT_NEAR(b[1].geomean, 1.5, 1e-12);
  EXPECT_EQ(b[1].slower, 0);
  EXPECT_EQ(b[2].n, 0);
  EXPECT_EQ(b[3].n, 0);  // 4096^3 is missing for hgemm nn
  // All: (2 * 0.5 * 1.5)^(1/3).
  EXPECT_EQ(b[5].n, 3);
  EXPECT_NEAR(b[5].geomean, std::cbrt(1.5), 1e-12);
  EXPECT_EQ(b[5].slower, 1);
  const auto tn = vs_cublas(rows(), BaselineLayout::kTN);
  const auto bt = hgemm::bench::bucket_stats(tn.shapes);
  EXPECT_EQ(bt[3].n, 1);
  EXPECT_NEAR(bt[3].geomean, 1.1, 1e-12);
}

TEST(Report, WorstShapesLowestFirst) {
  const auto nn = vs_cublas(rows(), BaselineLayout::kNN);
  const auto w = hgemm::bench::worst_shapes(nn.shapes, 2);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].m, 999);
  EXPECT_DOUBLE_EQ(w[0].speedup, 0.5);
  EXPECT_EQ(w[1].m, 1000);
  EXPECT_DOUBLE_EQ(w[1].speedup, 1.5);
  EXPECT_EQ(hgemm::bench::worst_shapes(nn.shapes, 10).size(), 3u);
}

TEST(Report, LaterFailedRowHidesEarlierPass) {
  const std::string csv =
      std::string(kCsv) + "1000,1000,500,nn,f32,cublas,offline,launch_failed,,rerun\n";
  const auto r = hgemm::bench::parse_results(csv).rows;
  const auto nn = vs_cublas(r, BaselineLayout::kNN);
  EXPECT_EQ(speedups(nn), (std::vector<double>{2.0, 0.5}));
}

TEST(Report, BaselineListAddsTorchOnlyWhenPresent) {
  const auto without = hgemm::bench::report_baselines(rows());
  ASSERT_EQ(without.size(), 12u);
  EXPECT_EQ(without[0].label(), "cublaslt-best-nn");
  EXPECT_EQ(without[2].label(), "cublaslt-best-max");
  EXPECT_EQ(without[3].label(), "cublas-nn");
  EXPECT_EQ(without[11].label(), "cublaslt-autotune-max");
  std::string csv = std::string(kCsv) + "64,64,64,nn,f32,torch,offline,passed,3,\n";
  const auto with = hgemm::bench::report_baselines(hgemm::bench::parse_results(csv).rows);
  ASSERT_EQ(with.size(), 15u);
  EXPECT_EQ(with[0].label(), "cublaslt-best-nn");
  EXPECT_EQ(with[3].label(), "torch-nn");
  const auto t = hgemm::bench::compare(hgemm::bench::parse_results(csv).rows, "hgemm",
                                       {"torch", BaselineLayout::kNN}, "offline", "f32");
  EXPECT_EQ(speedups(t), (std::vector<double>{3.0}));
}

TEST(Report, RenderedMarkdownCarriesTheNumbers) {
  const std::string md = hgemm::bench::render_report(
      {{"hand.csv", hgemm::bench::parse_results(kCsv, "hand.csv")}}, {});
  auto has = [&](const std::string& needle) {
    EXPECT_NE(md.find(needle), std::string::npos) << "missing: " << needle << "\n" << md;
  };
  has("## Table 1");
  has("## Table 2");
  has("`hand.csv`: 19 rows, gpu Test GPU, git 0123abcd");
  // Table 1, cublas-nn offline: N 3, mean +33.3%, median +50.0%, std 76.4%, 2/3 faster, 1 missing.
  has("| cublas-nn | offline | f32 | 3 | +33.3% | +50.0% | 76.4% | 2/3 | 1 |");
  // Table 2, the same clipped at 1.
  has("| cublas-nn | offline | f32 | 3 | +50.0% | +50.0% | 50.0% | 2/3 | 1 |");
  has("| cublas-tn | offline | f32 | 4 | -3.");  // mean -3.75% (rounding depends on the last bit)
  has("% | +5.0% |");
  // Buckets: <1e9 geomean 1 (1 slower of 2), 1e9-1e10 1.5 (0 of 1), all cbrt(1.5) = 1.145.
  has("| cublas-nn | offline | f32 | 1.000 (1/2) | 1.500 (0/1) | - | - | - | 1.145 (1/3) |");
  has("### cublas-nn, f32");
  has("| 999x1000x500 | nn | 2.00000 | nn | 1.00000 | 0.500 |");
  // No cuBLASLt rows in the file: no cuBLASLt lines in the tables.
  EXPECT_EQ(md.find("cublaslt-heuristic-nn |"), std::string::npos);
}

// The worst-shapes table names what each side ran: hgemm's config from its detail column and
// cuBLASLt's algorithm, its tile and stages spelled from enum values where an older file gives
// numbers (33 is 128x96, 35 is 64xAUTO in cublasLt.h).
TEST(Report, WorstShapesNameBothKernels) {
  const char* csv = R"csv(m,n,k,layout,acc,impl,mode,disposition,ms,detail
333,5632,2048,tn,f32,hgemm,graph,passed,2,"sm90_ws_112x128x64_s7_c1x1_w2_m8_st_sk1_f32_tn_swap, PDL"
333,5632,2048,tn,f32,cublaslt-best,graph,passed,1,"COMPUTE_32F candidate 0 of 8, the autotune pick (id 66 tile 33 stages 35 splitk 1); graph ms #0 1"
64,64,64,tn,f32,hgemm,graph,passed,1,"sm90_ws_64x64x64_s4_c1x1_w1_m8_st_sk1_f32_tn, PDL"
64,64,64,tn,f32,cublaslt-best,graph,passed,1,"COMPUTE_32F candidate 1 of 8 (id 21 tile 64x64 stages 64xAUTO splitk 1)"
)csv";
  hgemm::bench::ReportOptions options;
  options.worst_mode = "graph";
  const std::string md = hgemm::bench::render_report(
      {{"kernels.csv", hgemm::bench::parse_results(csv, "kernels.csv")}}, options);
  EXPECT_NE(md.find("| 333x5632x2048 | tn | 2.00000 | tn | 1.00000 | 0.500 | "
                    "sm90_ws_112x128x64_s7_c1x1_w2_m8_st_sk1_f32_tn_swap | "
                    "id 66 tile 128x96 stages 64xAUTO splitk 1 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| sm90_ws_64x64x64_s4_c1x1_w1_m8_st_sk1_f32_tn | "
                    "id 21 tile 64x64 stages 64xAUTO splitk 1 |"),
            std::string::npos)
      << md;
}

// tests/data/report-small.csv (also committed gzip-compressed as .csv.gz), f32. Graph mode, ms,
// each side's faster layout against cublaslt-best's faster layout:
//   64^3        hgemm 0.004 (nn)  best 0.0052 (tn)  -> 1.3    nopdl 0.005  -> 1.04   torch 0.008 -> 2
//   1024^3      hgemm 0.020       best 0.018  (nn)  -> 0.9    nopdl 0.021  -> 6/7    torch 0.020 -> 1
//   4096^3      hgemm 0.200 (nn)  best 0.240  (nn)  -> 1.2    nopdl 0.200  -> 1.2    torch 0.240 -> 1.2
//   8192^3      hgemm 1.50  (tn)  best 1.50         -> 1.0    nopdl 1.50   -> 1      torch 1.50  -> 1
//   2048^3      hgemm failed verification: missing (1)
// Geomeans: hgemm (1.3*0.9*1.2)^(1/4) = 1.0885; nopdl (1.04*6/7*1.2)^(1/4) = 1.0170;
// vs torch 2.4^(1/4) = 1.2447. Latency: vs best [1.2, 1.1, 1, 1] -> 1.32^(1/4) = 1.0719,
// vs torch [2, 1.5, 1.1, 1] -> 3.3^(1/4) = 1.3478. Offline vs best [1.6, 1.05, 1.2, 1] -> 1.1916.
// The Python HTML report (tests/python/test_hgemm_report.py) checks the same numbers.
std::string data_path(const std::string& name) {
  return std::string(HGEMM_SOURCE_DIR) + "/tests/data/" + name;
}

TEST(Report, ReadsGzipCompressedResults) {
  const auto plain = hgemm::bench::read_results(data_path("report-small.csv"));
  const auto packed = hgemm::bench::read_results(data_path("report-small.csv.gz"));
  ASSERT_EQ(plain.rows.size(), 74u);
  ASSERT_EQ(packed.rows.size(), plain.rows.size());
  EXPECT_EQ(packed.environment, plain.environment);
  for (size_t i = 0; i < plain.rows.size(); ++i)
    EXPECT_EQ(hgemm::bench::format_row(packed.rows[i]), hgemm::bench::format_row(plain.rows[i]));
  // A committed grid run, as the README's report command reads it.
  const auto grid = hgemm::bench::read_results(
      std::string(HGEMM_SOURCE_DIR) +
      "/bench/results/2026-11-24-h100-grid/f32/bench-grid-f32.csv.gz");
  EXPECT_EQ(grid.rows.size(), 8000u);
  // A truncated archive is refused, not read up to the damage.
  const std::string cut = testing::TempDir() + "report_cut.csv.gz";
  {
    std::ifstream in(data_path("report-small.csv.gz"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(cut, std::ios::binary);
    out << bytes.substr(0, bytes.size() / 2);
  }
  EXPECT_THROW(hgemm::bench::read_results(cut), std::runtime_error);
  std::remove(cut.c_str());
}

TEST(Report, HeadlineLeadsWithDeviceTimeAndLatency) {
  const auto rows = hgemm::bench::read_results(data_path("report-small.csv.gz")).rows;
  EXPECT_EQ(hgemm::bench::headline_reference(rows), "cublaslt-best");
  const auto lines = hgemm::bench::headline(rows, "hgemm");
  // graph: hgemm, hgemm-nopdl; latency: hgemm; offline: hgemm (no server rows).
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].metric, "device time");
  EXPECT_EQ(lines[0].mode, "graph");
  EXPECT_EQ(lines[0].candidate, "hgemm");
  ASSERT_EQ(lines[0].cells.size(), 2u);
  EXPECT_EQ(lines[0].cells[0].baseline, "cublaslt-best");
  EXPECT_EQ(lines[0].cells[0].n, 4);
  EXPECT_NEAR(lines[0].cells[0].geomean, std::pow(1.3 * 0.9 * 1.2, 0.25), 1e-12);
  EXPECT_EQ(lines[0].cells[0].faster, 2);
  EXPECT_EQ(lines[0].cells[0].candidate_missing, 1);
  EXPECT_EQ(lines[0].cells[1].baseline, "torch");
  EXPECT_NEAR(lines[0].cells[1].geomean, std::pow(2.4, 0.25), 1e-12);
  EXPECT_EQ(lines[1].candidate, "hgemm-nopdl");
  EXPECT_NEAR(lines[1].cells[0].geomean, std::pow(1.04 * 6.0 / 7.0 * 1.2, 0.25), 1e-12);
  EXPECT_EQ(lines[2].metric, "call latency");
  EXPECT_NEAR(lines[2].cells[0].geomean, std::pow(1.32, 0.25), 1e-12);
  EXPECT_NEAR(lines[2].cells[1].geomean, std::pow(3.3, 0.25), 1e-12);
  EXPECT_EQ(lines[2].cells[1].faster, 3);
  EXPECT_EQ(lines[3].metric, "offline");
  EXPECT_NEAR(lines[3].cells[0].geomean, std::pow(1.6 * 1.05 * 1.2, 0.25), 1e-12);
  EXPECT_EQ(lines[3].cells[1].n, 0);  // no torch offline rows

  const std::string md = hgemm::bench::render_report(
      {{"report-small.csv", hgemm::bench::read_results(data_path("report-small.csv"))}}, {});
  auto has = [&](const std::string& needle) {
    EXPECT_NE(md.find(needle), std::string::npos) << "missing: " << needle << "\n" << md;
  };
  EXPECT_LT(md.find("## Headline"), md.find("## Table 1"));
  has("| metric | mode | acc | candidate | vs cublaslt-best-max | vs torch-max |");
  has("| device time | graph | f32 | hgemm | 1.089 (2/4) | 1.245 (2/4) |");
  has("| device time | graph | f32 | hgemm-nopdl | 1.017 (2/4) | ");
  has("| call latency | latency | f32 | hgemm | 1.072 (2/4) | 1.348 (3/4) |");
  has("| offline | offline | f32 | hgemm | 1.192 (3/4) | - |");
  has("launched with it in 24 of 24 rows");
  has("- **graph**: CUDA graphs");
  // Table 1 and 2 for cublaslt-best-max in graph mode: gains [0.3, -0.1, 0.2, 0] and clipped
  // [0.3, 0, 0.2, 0].
  has("| cublaslt-best-max | graph | f32 | 4 | +10.0% | +10.0% | 18.3% | 2/4 | 1 |");
  has("| cublaslt-best-max | graph | f32 | 4 | +12.5% | +10.0% | 15.0% | 2/4 | 1 |");
  has("| cublaslt-best-max | graph | f32 | 1.300 (0/1) | 0.900 (1/1) | - | 1.200 (0/1) | "
      "1.000 (0/1) | 1.089 (1/4) |");
}

TEST(Report, HeadlineFallsBackForFilesBeforeCublasltBest) {
  // The hand-made file above has only cublas rows.
  const auto r = rows();
  EXPECT_EQ(hgemm::bench::headline_reference(r), "cublas");
  const std::string md = hgemm::bench::render_report(
      {{"hand.csv", hgemm::bench::parse_results(kCsv, "hand.csv")}}, {});
  EXPECT_NE(md.find("`cublas` stands in as the reference"), std::string::npos) << md;
  EXPECT_NE(md.find("| device time | graph | f32 | hgemm | 4.000 (1/1) |"), std::string::npos)
      << md;
}

#ifdef HGEMM_CLI_PATH
#include "cli_runner.hpp"

namespace {

void expect_report_error(const std::string& args, const std::string& needle) {
  CliResult r = run_cli("report " + args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find("hgemm report: "), std::string::npos) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << args << "\n" << r.output;
}

}  // namespace

TEST(ReportCli, ArgumentErrorsExitTwo) {
  const std::string path = testing::TempDir() + "report_ok.csv";
  {
    std::ofstream f(path);
    f << kCsv;
  }
  expect_report_error("", "at least one results file is required");
  expect_report_error("/nonexistent_hgemm/results.csv", "cannot read");
  expect_report_error(path + " --worst x", "expects an integer");
  expect_report_error(path + " --worst-mode warm", "unknown mode 'warm'");
  expect_report_error(path + " --bogus", "unknown option --bogus");
  const std::string bad = testing::TempDir() + "report_bad.csv";
  {
    std::ofstream f(bad);
    f << "m,n,k\n1,2,3\n";
  }
  expect_report_error(bad, "lacks the required column");
  CliResult r = run_cli("report " + path);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("| cublas-nn | offline | f32 | 3 |"), std::string::npos) << r.output;
  std::remove(path.c_str());
  std::remove(bad.c_str());
}
#endif  // HGEMM_CLI_PATH
