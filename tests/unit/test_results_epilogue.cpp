// The epilogue in the results file and the report: an epilogue run's file carries an epilogue
// column after acc (and dtype), a plain run's file is what it always was (and files without the
// column hold plain rows), row keys tell epilogues apart, and the report never compares rows of
// different epilogues while it sets hgemm against hgemm-unfused when that has rows.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bench/report.hpp"
#include "bench/results_csv.hpp"

namespace {

using hgemm::bench::ResultRow;

ResultRow row(const std::string& impl, const std::string& epilogue, double ms,
              const std::string& dtype = "f16") {
  ResultRow r;
  r.m = r.n = r.k = 4096;
  r.layout = "tn";
  r.acc = "f32";
  r.dtype = dtype;
  r.epilogue = epilogue;
  r.impl = impl;
  r.mode = "graph";
  r.disposition = "passed";
  r.ms = ms;
  r.tflops = r.flops() / (ms * 1e-3) / 1e12;
  r.detail = "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn (shipped table), PDL";
  return r;
}

std::string error_of(const std::string& text) {
  try {
    hgemm::bench::parse_results(text, "fused.csv");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no exception";
}

}  // namespace

TEST(ResultsEpilogue, ColumnOnlyInEpilogueFiles) {
  using hgemm::bench::columns;
  using hgemm::bench::header_line;
  EXPECT_EQ(header_line(), header_line(false, false));
  EXPECT_EQ(header_line().find("epilogue"), std::string::npos);
  EXPECT_EQ(header_line(true).find("epilogue"), std::string::npos);
  EXPECT_EQ(columns(false, true).size(), columns().size() + 1);
  EXPECT_EQ(columns(true, true).size(), columns().size() + 2);
  EXPECT_EQ(header_line(false, true).rfind("m,n,k,layout,acc,epilogue,impl,mode,", 0), 0u);
  EXPECT_EQ(header_line(true, true).rfind("m,n,k,layout,acc,dtype,epilogue,impl,mode,", 0), 0u);
  // A plain row is written as before epilogues existed.
  const ResultRow plain = row("hgemm", "none", 0.5);
  EXPECT_EQ(hgemm::bench::format_row(plain).rfind("4096,4096,4096,tn,f32,hgemm,graph,passed,", 0),
            0u);
  EXPECT_EQ(hgemm::bench::row_key(plain), "4096x4096x4096|tn|f32|hgemm|graph");
}

TEST(ResultsEpilogue, RoundTrip) {
  for (bool with_dtype : {false, true}) {
    const std::string dtype = with_dtype ? "bf16" : "f16";
    const std::vector<ResultRow> rows = {row("hgemm", "bias_gelu", 0.75, dtype),
                                         row("hgemm-unfused", "bias_gelu", 0.9, dtype),
                                         row("cublaslt-best", "relu", 0.8, dtype)};
    std::string text = "# epilogue=bias_gelu: C = gelu_tanh(A*B + bias)\n" +
                       hgemm::bench::header_line(with_dtype, true) + "\n";
    for (const ResultRow& r : rows) text += hgemm::bench::format_row(r, with_dtype, true) + "\n";
    const auto file = hgemm::bench::parse_results(text, "fused.csv");
    ASSERT_EQ(file.rows.size(), rows.size());
    ASSERT_EQ(file.environment.size(), 1u);
    EXPECT_EQ(file.environment[0].first, "epilogue");
    EXPECT_EQ(file.environment[0].second, "bias_gelu: C = gelu_tanh(A*B + bias)");
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(file.rows[i].epilogue, rows[i].epilogue);
      EXPECT_EQ(file.rows[i].dtype, dtype);
      EXPECT_EQ(file.rows[i].impl, rows[i].impl);
      EXPECT_EQ(file.rows[i].acc, "f32");
      EXPECT_DOUBLE_EQ(file.rows[i].ms, rows[i].ms);
      EXPECT_EQ(file.rows[i].detail, rows[i].detail);
      EXPECT_EQ(hgemm::bench::row_key(file.rows[i]), hgemm::bench::row_key(rows[i]));
    }
    EXPECT_EQ(hgemm::bench::row_key(file.rows[0]),
              with_dtype ? "4096x4096x4096|tn|f32|bf16|bias_gelu|hgemm|graph"
                         : "4096x4096x4096|tn|f32|bias_gelu|hgemm|graph");
    EXPECT_EQ(hgemm::bench::row_key(4096, 4096, 4096, "tn", "f32", "hgemm", "graph", dtype,
                                    "bias_gelu"),
              hgemm::bench::row_key(file.rows[0]));
    // The same shape and impl without the epilogue is another row.
    EXPECT_NE(hgemm::bench::row_key(row("hgemm", "none", 0.75, dtype)),
              hgemm::bench::row_key(file.rows[0]));
  }
}

TEST(ResultsEpilogue, FilesWithoutTheColumnHoldPlainRows) {
  const auto old = hgemm::bench::parse_results(
      "m,n,k,layout,acc,impl,mode,disposition,ms\n64,64,64,nn,f32,cublas,offline,passed,1\n");
  ASSERT_EQ(old.rows.size(), 1u);
  EXPECT_EQ(old.rows[0].epilogue, "none");
  EXPECT_EQ(hgemm::bench::row_key(old.rows[0]), "64x64x64|nn|f32|cublas|offline");
  const auto empty = hgemm::bench::parse_results(
      "m,n,k,layout,acc,epilogue,impl,mode,disposition,ms\n"
      "64,64,64,nn,f32,,cublas,offline,passed,1\n");
  ASSERT_EQ(empty.rows.size(), 1u);
  EXPECT_EQ(empty.rows[0].epilogue, "none");
}

TEST(ResultsEpilogue, UnknownEpilogueNamesTheLine) {
  std::string line = hgemm::bench::format_row(row("hgemm", "bias", 1.0), false, true);
  line.replace(line.find(",bias,"), 6, ",bias_silu,");
  const std::string message =
      error_of(hgemm::bench::header_line(false, true) + "\n" + line + "\n");
  EXPECT_NE(message.find("fused.csv:2: column 'epilogue': 'bias_silu' is not one of none, bias,"),
            std::string::npos)
      << message;
}

TEST(ResultsEpilogue, EpilogueRowNeedsTheColumn) {
  EXPECT_THROW(hgemm::bench::format_row(row("hgemm", "gelu", 1.0)), std::invalid_argument);
  EXPECT_THROW(hgemm::bench::format_row(row("hgemm", "gelu", 1.0, "bf16"), true),
               std::invalid_argument);
  EXPECT_NO_THROW(hgemm::bench::format_row(row("hgemm", "none", 1.0), false, true));
}

// One shape timed plain and with bias + GELU: each hgemm row is compared with cuBLASLt under its
// own epilogue only, and the fused rows also with the unfused path.
TEST(ResultsEpilogue, ReportKeepsEpiloguesApart) {
  const std::vector<ResultRow> rows = {
      row("hgemm", "none", 1.0),          row("cublaslt-best", "none", 1.1),
      row("hgemm", "bias_gelu", 1.0),     row("cublaslt-best", "bias_gelu", 1.5),
      row("hgemm-unfused", "bias_gelu", 1.25)};
  EXPECT_EQ(hgemm::bench::report_acc(rows[0]), "f32");
  EXPECT_EQ(hgemm::bench::report_acc(rows[2]), "f32_bias_gelu");
  EXPECT_EQ(hgemm::bench::report_acc(row("hgemm", "relu", 1.0, "bf16")), "f32_bf16_relu");

  const hgemm::bench::BaselineSpec best{"cublaslt-best", hgemm::bench::BaselineLayout::kMax};
  const auto plain = hgemm::bench::compare(rows, "hgemm", best, "graph", "f32");
  ASSERT_EQ(plain.shapes.size(), 1u);
  EXPECT_DOUBLE_EQ(plain.shapes[0].speedup, 1.1);
  const auto fused = hgemm::bench::compare(rows, "hgemm", best, "graph", "f32_bias_gelu");
  ASSERT_EQ(fused.shapes.size(), 1u);
  EXPECT_DOUBLE_EQ(fused.shapes[0].speedup, 1.5);

  const auto baselines = hgemm::bench::report_baselines(rows);
  ASSERT_GE(baselines.size(), 6u);
  EXPECT_EQ(baselines[0].label(), "cublaslt-best-nn");
  EXPECT_EQ(baselines[3].label(), "hgemm-unfused-nn");
  const hgemm::bench::BaselineSpec unfused{"hgemm-unfused", hgemm::bench::BaselineLayout::kMax};
  const auto against_unfused = hgemm::bench::compare(rows, "hgemm", unfused, "graph",
                                                     "f32_bias_gelu");
  ASSERT_EQ(against_unfused.shapes.size(), 1u);
  EXPECT_DOUBLE_EQ(against_unfused.shapes[0].speedup, 1.25);
  EXPECT_TRUE(hgemm::bench::compare(rows, "hgemm", unfused, "graph", "f32").shapes.empty());

  hgemm::bench::ResultsFile file;
  file.rows = rows;
  const std::string report = hgemm::bench::render_report({{"fused.csv", file}}, {});
  EXPECT_NE(report.find("| vs cublaslt-best-max | vs hgemm-unfused-max |"), std::string::npos)
      << report;
  EXPECT_NE(report.find("| device time | graph | f32 | hgemm | 1.100 (1/1) | - |"),
            std::string::npos)
      << report;
  EXPECT_NE(
      report.find("| device time | graph | f32_bias_gelu | hgemm | 1.500 (1/1) | 1.250 (1/1) |"),
      std::string::npos)
      << report;
}

// hgemm-plain, the call without its epilogue timed in the same run, is a baseline of the fused
// rows: its speedup is the plain time over the fused one (issue 20's bar: at least 0.98).
TEST(ResultsEpilogue, PlainCallIsTheEpiloguesBaseline) {
  const std::vector<ResultRow> rows = {row("hgemm", "bias_gelu", 1.0),
                                       row("cublaslt-best", "bias_gelu", 1.1),
                                       row("hgemm-plain", "bias_gelu", 0.96)};
  const auto baselines = hgemm::bench::report_baselines(rows);
  ASSERT_GE(baselines.size(), 6u);
  EXPECT_EQ(baselines[3].label(), "hgemm-plain-nn");
  const hgemm::bench::BaselineSpec plain{"hgemm-plain", hgemm::bench::BaselineLayout::kMax};
  const auto cost = hgemm::bench::compare(rows, "hgemm", plain, "graph", "f32_bias_gelu");
  ASSERT_EQ(cost.shapes.size(), 1u);
  EXPECT_DOUBLE_EQ(cost.shapes[0].speedup, 0.96);

  hgemm::bench::ResultsFile file;
  file.rows = rows;
  const std::string report = hgemm::bench::render_report({{"fused.csv", file}}, {});
  EXPECT_NE(report.find("| vs cublaslt-best-max | vs hgemm-plain-max |"), std::string::npos)
      << report;
}
