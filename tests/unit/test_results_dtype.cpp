// The element type in the results file and the report: a bf16 run's file carries a dtype column
// after acc, an fp16 run's file is what it always was (and files without the column read as
// fp16), row keys tell the two apart, and the report never compares rows of different types.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bench/report.hpp"
#include "bench/results_csv.hpp"

namespace {

using hgemm::bench::ResultRow;

ResultRow row(const std::string& impl, const std::string& dtype, double ms) {
  ResultRow r;
  r.m = r.n = r.k = 4096;
  r.layout = "tn";
  r.acc = "f32";
  r.dtype = dtype;
  r.impl = impl;
  r.mode = "graph";
  r.disposition = "passed";
  r.ms = ms;
  r.tflops = r.flops() / (ms * 1e-3) / 1e12;
  return r;
}

std::string error_of(const std::string& text) {
  try {
    hgemm::bench::parse_results(text, "typed.csv");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no exception";
}

}  // namespace

TEST(ResultsDtype, Fp16FilesKeepTheirColumns) {
  EXPECT_EQ(hgemm::bench::header_line(), hgemm::bench::header_line(false));
  EXPECT_EQ(hgemm::bench::header_line().find("dtype"), std::string::npos);
  const auto& typed = hgemm::bench::columns(true);
  ASSERT_EQ(typed.size(), hgemm::bench::columns().size() + 1);
  EXPECT_EQ(typed[4], "acc");
  EXPECT_EQ(typed[5], "dtype");
  EXPECT_EQ(hgemm::bench::header_line(true).rfind("m,n,k,layout,acc,dtype,impl,mode,", 0), 0u);
  // An fp16 row is written the same way as before bf16 existed.
  const ResultRow f16 = row("hgemm", "f16", 0.5);
  EXPECT_EQ(hgemm::bench::format_row(f16).rfind("4096,4096,4096,tn,f32,hgemm,graph,passed,", 0),
            0u);
  EXPECT_EQ(hgemm::bench::row_key(f16), "4096x4096x4096|tn|f32|hgemm|graph");
}

TEST(ResultsDtype, Bf16RowsRoundTripWithTheColumn) {
  const ResultRow bf16 = row("cublaslt-best", "bf16", 0.75);
  const ResultRow f16 = row("cublaslt-best", "f16", 0.5);
  const std::string text = hgemm::bench::header_line(true) + "\n" +
                           hgemm::bench::format_row(bf16, true) + "\n" +
                           hgemm::bench::format_row(f16, true) + "\n";
  const auto file = hgemm::bench::parse_results(text, "typed.csv");
  ASSERT_EQ(file.rows.size(), 2u);
  EXPECT_EQ(file.rows[0].dtype, "bf16");
  EXPECT_EQ(file.rows[0].acc, "f32");
  EXPECT_EQ(file.rows[0].impl, "cublaslt-best");
  EXPECT_DOUBLE_EQ(file.rows[0].ms, 0.75);
  EXPECT_EQ(file.rows[1].dtype, "f16");
  EXPECT_EQ(hgemm::bench::row_key(file.rows[0]),
            "4096x4096x4096|tn|f32|bf16|cublaslt-best|graph");
  EXPECT_NE(hgemm::bench::row_key(file.rows[0]), hgemm::bench::row_key(file.rows[1]));
  EXPECT_EQ(hgemm::bench::row_key(4096, 4096, 4096, "tn", "f32", "cublaslt-best", "graph", "bf16"),
            hgemm::bench::row_key(file.rows[0]));
}

TEST(ResultsDtype, FilesWithoutTheColumnHoldFp16Rows) {
  const auto file = hgemm::bench::parse_results(
      "m,n,k,layout,acc,impl,mode,disposition,ms\n64,64,64,nn,f32,cublas,offline,passed,1\n");
  ASSERT_EQ(file.rows.size(), 1u);
  EXPECT_EQ(file.rows[0].dtype, "f16");
  // An empty field means the same.
  const auto empty = hgemm::bench::parse_results(
      "m,n,k,layout,acc,dtype,impl,mode,disposition,ms\n"
      "64,64,64,nn,f32,,cublas,offline,passed,1\n");
  ASSERT_EQ(empty.rows.size(), 1u);
  EXPECT_EQ(empty.rows[0].dtype, "f16");
}

TEST(ResultsDtype, UnknownDtypeNamesTheLine) {
  const std::string header = hgemm::bench::header_line(true) + "\n";
  ResultRow r = row("hgemm", "bf16", 1.0);
  std::string line = hgemm::bench::format_row(r, true);
  line.replace(line.find(",bf16,"), 6, ",fp8,");
  const std::string message = error_of(header + line + "\n");
  EXPECT_NE(message.find("typed.csv:2: column 'dtype': 'fp8' is not f16 or bf16"),
            std::string::npos)
      << message;
}

TEST(ResultsDtype, Bf16RowNeedsTheColumn) {
  EXPECT_THROW(hgemm::bench::format_row(row("hgemm", "bf16", 1.0)), std::invalid_argument);
}

// Same shape, impl and accumulation in both types: each type is compared with its own baseline.
TEST(ResultsDtype, ReportKeepsTypesApart) {
  const std::vector<ResultRow> rows = {row("hgemm", "f16", 1.0), row("cublaslt-best", "f16", 2.0),
                                       row("hgemm", "bf16", 1.0),
                                       row("cublaslt-best", "bf16", 4.0)};
  EXPECT_EQ(hgemm::bench::report_acc(rows[0]), "f32");
  EXPECT_EQ(hgemm::bench::report_acc(rows[2]), "f32_bf16");
  const hgemm::bench::BaselineSpec best{"cublaslt-best", hgemm::bench::BaselineLayout::kTN};
  const auto f16 = hgemm::bench::compare(rows, "hgemm", best, "graph", "f32");
  ASSERT_EQ(f16.shapes.size(), 1u);
  EXPECT_DOUBLE_EQ(f16.shapes[0].speedup, 2.0);
  const auto bf16 = hgemm::bench::compare(rows, "hgemm", best, "graph", "f32_bf16");
  ASSERT_EQ(bf16.shapes.size(), 1u);
  EXPECT_DOUBLE_EQ(bf16.shapes[0].speedup, 4.0);

  hgemm::bench::ResultsFile file;
  file.rows = rows;
  const std::string report = hgemm::bench::render_report({{"typed.csv", file}}, {});
  EXPECT_NE(report.find("| device time | graph | f32 | hgemm | 2.000 (1/1) |"), std::string::npos)
      << report;
  EXPECT_NE(report.find("| device time | graph | f32_bf16 | hgemm | 4.000 (1/1) |"),
            std::string::npos)
      << report;
}
