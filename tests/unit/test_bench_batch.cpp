// `hgemm bench --batch` and `hgemm verify --batch` without a device: the option's values and
// errors (exit 2 before any device call), which implementations a batched run takes or refuses,
// the batch column (only in batched files, after acc, dtype and epilogue; files without it hold
// single GEMMs), row keys and FLOP counts that include the batch, --resume refusing a file of
// another batch count, the report keeping batch counts apart, and the general call and verifier
// batches the benchmark builds.
#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/epilogue.hpp"
#include "bench/report.hpp"
#include "bench/results_csv.hpp"
#include "cli_runner.hpp"
#include "hgemm/hgemm.hpp"
#include "verify/verifier.hpp"

namespace {

using hgemm::bench::ResultRow;

ResultRow row(const std::string& impl, int64_t batch, double ms, const std::string& layout = "tn") {
  ResultRow r;
  r.m = r.n = 128;
  r.k = 64;
  r.layout = layout;
  r.acc = "f32";
  r.batch = batch;
  r.impl = impl;
  r.mode = "graph";
  r.disposition = "passed";
  r.ms = ms;
  r.tflops = r.flops() / (ms * 1e-3) / 1e12;
  r.detail = "sm90_ws_128x128x64_s4_c1x1_w2_m8_tma_sk1_f32_tn (shipped table), PDL";
  return r;
}

std::string parse_error(const std::string& text) {
  try {
    hgemm::bench::parse_results(text, "batched.csv");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no exception";
}

void expect_usage_error(const std::string& args, const std::string& needle) {
  const CliResult r = run_cli(args, kNoDevice);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << args << "\n" << r.output;
}

// An accepted line gets past the arguments and stops at the device, which kNoDevice hides.
void expect_accepted(const std::string& args) {
  const CliResult r = run_cli(args, kNoDevice);
  EXPECT_NE(r.code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << args << "\n" << r.output;
}

}  // namespace

TEST(BenchBatch, ColumnOnlyInBatchedFiles) {
  using hgemm::bench::columns;
  using hgemm::bench::header_line;
  // Unbatched files are exactly what they were.
  for (bool dtype : {false, true})
    for (bool epilogue : {false, true}) {
      EXPECT_EQ(header_line(dtype, epilogue, false), header_line(dtype, epilogue));
      EXPECT_EQ(header_line(dtype, epilogue).find("batch"), std::string::npos);
      EXPECT_EQ(columns(dtype, epilogue, true).size(), columns(dtype, epilogue).size() + 1);
    }
  EXPECT_EQ(header_line(false, false, true).rfind("m,n,k,layout,acc,batch,impl,mode,", 0), 0u);
  EXPECT_EQ(header_line(true, false, true).rfind("m,n,k,layout,acc,dtype,batch,impl,", 0), 0u);
  EXPECT_EQ(header_line(false, true, true).rfind("m,n,k,layout,acc,epilogue,batch,impl,", 0), 0u);
  EXPECT_EQ(header_line(true, true, true).rfind("m,n,k,layout,acc,dtype,epilogue,batch,impl,", 0),
            0u);
  // A single-GEMM row is written and keyed as before batches existed.
  const ResultRow single = row("hgemm", 1, 0.01);
  EXPECT_EQ(hgemm::bench::format_row(single).rfind("128,128,64,tn,f32,hgemm,graph,passed,", 0),
            0u);
  EXPECT_EQ(hgemm::bench::row_key(single), "128x128x64|tn|f32|hgemm|graph");
  // A batched row needs the column, which would otherwise lose its count.
  EXPECT_THROW(hgemm::bench::format_row(row("hgemm", 64, 0.01)), std::invalid_argument);
  EXPECT_THROW(hgemm::bench::format_row(row("hgemm", 64, 0.01), true, true),
               std::invalid_argument);
  EXPECT_EQ(hgemm::bench::format_row(row("hgemm", 64, 0.01), false, false, true)
                .rfind("128,128,64,tn,f32,64,hgemm,graph,passed,", 0),
            0u);
  EXPECT_NO_THROW(hgemm::bench::format_row(single, false, false, true));
}

TEST(BenchBatch, RoundTripKeysAndFlops) {
  for (bool with_dtype : {false, true}) {
    for (bool with_epilogue : {false, true}) {
      std::vector<ResultRow> rows = {row("hgemm", 64, 0.02), row("hgemm-loop", 64, 0.2),
                                     row("cublaslt-best", 64, 0.021, "nn")};
      for (ResultRow& r : rows) {
        if (with_dtype) r.dtype = "bf16";
        if (with_epilogue) r.epilogue = "bias_gelu";
      }
      std::string text = "# batch=64 packed products per call (strides M*K, K*N, M*N)\n" +
                         hgemm::bench::header_line(with_dtype, with_epilogue, true) + "\n";
      for (const ResultRow& r : rows)
        text += hgemm::bench::format_row(r, with_dtype, with_epilogue, true) + "\n";
      const auto file = hgemm::bench::parse_results(text, "batched.csv");
      ASSERT_EQ(file.rows.size(), rows.size());
      for (size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(file.rows[i].batch, 64);
        EXPECT_EQ(file.rows[i].impl, rows[i].impl);
        EXPECT_EQ(file.rows[i].dtype, rows[i].dtype);
        EXPECT_EQ(file.rows[i].epilogue, rows[i].epilogue);
        EXPECT_EQ(hgemm::bench::row_key(file.rows[i]), hgemm::bench::row_key(rows[i]));
      }
      const std::string want_key = std::string("128x128x64|tn|f32|") +
                                   (with_dtype ? "bf16|" : "") +
                                   (with_epilogue ? "bias_gelu|" : "") + "b64|hgemm|graph";
      EXPECT_EQ(hgemm::bench::row_key(file.rows[0]), want_key);
    }
  }
  // The same shape and impl unbatched, or with another count, is another row.
  EXPECT_NE(hgemm::bench::row_key(row("hgemm", 64, 1)), hgemm::bench::row_key(row("hgemm", 1, 1)));
  EXPECT_NE(hgemm::bench::row_key(row("hgemm", 64, 1)), hgemm::bench::row_key(row("hgemm", 8, 1)));
  EXPECT_EQ(hgemm::bench::row_key(128, 128, 64, "tn", "f32", "hgemm", "graph", "f16", "none", 64),
            "128x128x64|tn|f32|b64|hgemm|graph");
  // FLOP/s count every batch: 64 heads of 128x128x64 are 64 x 2 x 128 x 128 x 64 FLOP.
  EXPECT_DOUBLE_EQ(row("hgemm", 64, 1).flops(), 64.0 * 2 * 128 * 128 * 64);
  const auto no_tflops = hgemm::bench::parse_results(
      "m,n,k,layout,acc,batch,impl,mode,disposition,ms\n128,128,64,tn,f32,64,hgemm,graph,passed,"
      "0.01\n");
  ASSERT_EQ(no_tflops.rows.size(), 1u);
  EXPECT_NEAR(no_tflops.rows[0].tflops, 64.0 * 2 * 128 * 128 * 64 / 1e-5 / 1e12, 1e-9);
}

TEST(BenchBatch, FilesWithoutTheColumnHoldSingleGemms) {
  const auto old = hgemm::bench::parse_results(
      "m,n,k,layout,acc,impl,mode,disposition,ms\n64,64,64,nn,f32,cublas,offline,passed,1\n");
  ASSERT_EQ(old.rows.size(), 1u);
  EXPECT_EQ(old.rows[0].batch, 1);
  EXPECT_EQ(hgemm::bench::row_key(old.rows[0]), "64x64x64|nn|f32|cublas|offline");
  const auto empty = hgemm::bench::parse_results(
      "m,n,k,layout,acc,batch,impl,mode,disposition,ms\n"
      "64,64,64,nn,f32,,cublas,offline,passed,1\n");
  ASSERT_EQ(empty.rows.size(), 1u);
  EXPECT_EQ(empty.rows[0].batch, 1);
  const std::string header = "m,n,k,layout,acc,batch,impl,mode,disposition,ms\n";
  EXPECT_NE(parse_error(header + "64,64,64,nn,f32,0,hgemm,graph,passed,1\n")
                .find("batched.csv:2: column 'batch': 0 < 1"),
            std::string::npos);
  EXPECT_NE(parse_error(header + "64,64,64,nn,f32,many,hgemm,graph,passed,1\n")
                .find("batched.csv:2: column 'batch': 'many' is not an integer"),
            std::string::npos);
}

// 64 heads timed batched, as 64 calls and by cuBLASLt, next to the same shape unbatched: each
// batched row meets only rows of its own batch count, hgemm-loop becomes a baseline, and the FLOP
// buckets count the whole call.
TEST(BenchBatch, ReportKeepsBatchCountsApart) {
  const std::vector<ResultRow> rows = {
      row("hgemm", 1, 0.010),          row("cublaslt-best", 1, 0.011),
      row("hgemm", 64, 0.020),         row("cublaslt-best", 64, 0.025),
      row("hgemm-loop", 64, 0.200),    row("hgemm", 8, 0.012),
      row("cublaslt-best", 8, 0.012)};
  EXPECT_EQ(hgemm::bench::report_acc(rows[0]), "f32");
  EXPECT_EQ(hgemm::bench::report_acc(rows[2]), "f32_b64");
  ResultRow typed = row("hgemm", 64, 1);
  typed.dtype = "bf16";
  typed.epilogue = "bias";
  EXPECT_EQ(hgemm::bench::report_acc(typed), "f32_bf16_bias_b64");

  const hgemm::bench::BaselineSpec best{"cublaslt-best", hgemm::bench::BaselineLayout::kMax};
  const auto single = hgemm::bench::compare(rows, "hgemm", best, "graph", "f32");
  ASSERT_EQ(single.shapes.size(), 1u);
  EXPECT_DOUBLE_EQ(single.shapes[0].speedup, 1.1);
  EXPECT_EQ(single.shapes[0].batch, 1);
  const auto heads = hgemm::bench::compare(rows, "hgemm", best, "graph", "f32_b64");
  ASSERT_EQ(heads.shapes.size(), 1u);
  EXPECT_DOUBLE_EQ(heads.shapes[0].speedup, 1.25);
  EXPECT_EQ(heads.shapes[0].batch, 64);
  // 64 x 2 x 128 x 128 x 64 = 1.3e8 FLOP per call, one bucket below what 64 calls would suggest
  // for one call's 2.1e6: the bucket is the call's.
  EXPECT_EQ(hgemm::bench::flop_bucket(heads.shapes[0].flops()), 0);
  EXPECT_DOUBLE_EQ(heads.shapes[0].flops(), 64.0 * 2 * 128 * 128 * 64);

  const auto baselines = hgemm::bench::report_baselines(rows);
  ASSERT_GE(baselines.size(), 6u);
  EXPECT_EQ(baselines[3].label(), "hgemm-loop-nn");
  const hgemm::bench::BaselineSpec loop{"hgemm-loop", hgemm::bench::BaselineLayout::kMax};
  const auto against_loop = hgemm::bench::compare(rows, "hgemm", loop, "graph", "f32_b64");
  ASSERT_EQ(against_loop.shapes.size(), 1u);
  EXPECT_DOUBLE_EQ(against_loop.shapes[0].speedup, 10.0);
  EXPECT_TRUE(hgemm::bench::compare(rows, "hgemm", loop, "graph", "f32_b8").shapes.empty());

  hgemm::bench::ResultsFile file;
  file.rows = rows;
  const std::string report = hgemm::bench::render_report({{"batched.csv", file}}, {});
  EXPECT_NE(report.find("| vs cublaslt-best-max | vs hgemm-loop-max |"), std::string::npos)
      << report;
  EXPECT_NE(report.find("| device time | graph | f32 | hgemm | 1.100 (1/1) | - |"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("| device time | graph | f32_b64 | hgemm | 1.250 (1/1) | 10.000 (1/1) |"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("| device time | graph | f32_b8 | hgemm | 1.000 (0/1) | - |"),
            std::string::npos)
      << report;
}

// What the benchmark asks hgemm and the verifier for: N packed matrices per operand.
TEST(BenchBatch, GeneralCallAndVerifierBatch) {
  for (hgemm::Layout layout : {hgemm::Layout::kNN, hgemm::Layout::kTN}) {
    const hgemm::Problem p{100, 72, 40, layout, hgemm::Accum::kF32};
    const hgemm::verify::Batch batch = hgemm::verify::Batch::packed(p, 3);
    EXPECT_EQ(batch.count, 3);
    EXPECT_EQ(batch.stride_a, 100 * 40);
    EXPECT_EQ(batch.stride_b, 40 * 72);
    EXPECT_EQ(batch.stride_c, 100 * 72);
    EXPECT_TRUE(batch.batched());
    const hgemm::GemmDesc d = hgemm::bench::general_call(p, {}, batch);
    EXPECT_EQ(d.batch_count, 3);
    EXPECT_EQ(d.stride_a, batch.stride_a);
    EXPECT_EQ(d.stride_b, batch.stride_b);
    EXPECT_EQ(d.stride_c, batch.stride_c);
    EXPECT_EQ(d.order_b, layout == hgemm::Layout::kNN ? hgemm::Order::kRow : hgemm::Order::kCol);
    EXPECT_TRUE(d.validate().ok()) << d.validate().message;
    // One batch is the plain descriptor, as before batches.
    const hgemm::GemmDesc one = hgemm::bench::general_call(p, {});
    EXPECT_EQ(one.batch_count, 1);
    EXPECT_EQ(one.stride_a, 0);
    EXPECT_EQ(hgemm::bench::general_call(p, {}, hgemm::verify::Batch::packed(p, 1)).batch_count,
              1);
  }
  EXPECT_FALSE(hgemm::verify::Options{}.batch.batched());
  EXPECT_EQ(hgemm::verify::Options{}.batch.count, 1);
}

TEST(BenchBatch, OptionAccepted) {
  const std::string out = testing::TempDir() + "hgemm_cli_batch.csv";
  std::remove(out.c_str());
  const std::string bench = "bench --shape 128x128x64 --modes graph --out " + out;
  for (const std::string& args :
       {bench + " --batch 64", bench + " --batch=1", bench + " --batch 64 --impl hgemm,hgemm-loop",
        bench + " --batch 3 --impl all --dtype bf16",
        bench + " --batch 5 --epilogue bias_gelu --impl all,hgemm-unfused",
        bench + " --batch 2 --impl cublas,cublaslt-best", bench + " --batch 1 --impl all"})
    expect_accepted(args);
  std::FILE* f = std::fopen(out.c_str(), "r");
  EXPECT_EQ(f, nullptr) << "a run without a device wrote " << out;
  if (f) std::fclose(f);
  for (const char* args : {"verify --suite smoke --batch 4", "verify --suite smoke --batch 3 "
                                                             "--dtype bf16 --epilogue bias --quick",
                           "verify --suite smoke --batch 1 --impl family:sm80 --quick"})
    expect_accepted(args);
}

TEST(BenchBatch, OptionErrors) {
  const std::string bench = "bench --shape 128x128x64 --modes graph --out " + testing::TempDir() +
                            "hgemm_cli_batch_error.csv";
  for (const char* bad : {"0", "-3", "2147483648"})
    expect_usage_error(bench + " --batch " + bad,
                       std::string("--batch must be an integer from 1 to 2147483647, got ") + bad);
  expect_usage_error(bench + " --batch x", "option --batch expects an integer, got 'x'");
  expect_usage_error(bench + " --batch 4.5", "option --batch expects an integer, got '4.5'");
  expect_usage_error(bench + " --batch", "option --batch needs a value");
  expect_usage_error(bench + " --batch=", "option --batch expects an integer, got ''");
  // The loop is what batching must beat: meaningless without batches.
  for (const char* batch : {"", " --batch 1"})
    expect_usage_error(bench + " --impl hgemm,hgemm-loop" + batch,
                       "hgemm-loop is one hgemm call per batch, what a batched call must beat: it "
                       "needs --batch B with B > 1");
  expect_usage_error(bench + " --batch 4 --impl config:sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_"
                             "f32_tn",
                     "takes no batches, so it cannot run --batch 4: time hgemm (one batched "
                     "call) or hgemm-loop (one call per batch)");
  expect_usage_error(bench + " --batch 4 --impl hgemm-lopo", "unknown implementation 'hgemm-lopo'");
  // Sizes the general call refuses are refused before the device.
  expect_usage_error("bench --shape 65536x65536x65536 --modes graph --out " + testing::TempDir() +
                         "hgemm_cli_batch_error.csv --batch 2000000000",
                     "--batch 2000000000 of 65536x65536x65536");
  expect_usage_error("verify --suite smoke --batch 0", "--batch must be an integer from 1");
  expect_usage_error("verify --suite smoke --batch 4 --impl family:sm90",
                     "--batch needs --impl dispatch");
  expect_usage_error("verify --suite smoke --batch 4 --impl config:sm90_ws_128x256x64_s4_c2x1_w2_"
                     "m8_tma_sk1_f32_tn",
                     "--batch needs --impl dispatch");
}

TEST(BenchBatch, HelpNamesTheOption) {
  for (const char* command : {"bench --help", "verify --help"}) {
    const CliResult r = run_cli(command);
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("--batch B"), std::string::npos) << command << "\n" << r.output;
  }
  EXPECT_NE(run_cli("bench --help").output.find("hgemm-loop"), std::string::npos);
}

// A results file holds rows of one batch count: --resume refuses another count (by the column, by
// the rows, or by the environment line of a file that has no rows yet) before any device work.
TEST(BenchBatch, ResumeRefusesAnotherBatchCount) {
  const std::string path = testing::TempDir() + "hgemm_cli_resume_batch.csv";
  const std::string resume =
      "bench --shape 128x128x64 --impl hgemm --modes graph --resume --out " + path;
  using hgemm::bench::header_line;
  write(path, "# gpu=x\n" + header_line() + "\n");
  expect_usage_error(resume + " --batch 64",
                     "it holds rows without a batch column (single GEMMs) and this run is "
                     "--batch 64");
  write(path, "# gpu=x\n# batch=8 packed products per call\n" + header_line(false, false, true) +
                  "\n");
  expect_usage_error(resume, "it holds rows with a batch column (batched calls) and this run is "
                             "--batch 1");
  expect_usage_error(resume + " --batch 64",
                     "it holds rows of --batch 8 and this run is --batch 64");
  expect_usage_error(resume + " --batch 4 --dtype bf16 --epilogue relu",
                     "it holds f16 rows and this run is --dtype bf16; it holds rows without an "
                     "epilogue column and this run is --epilogue relu");
  ResultRow eight = row("hgemm", 8, 0.01);
  write(path, "# gpu=x\n" + header_line(false, false, true) + "\n" +
                  hgemm::bench::format_row(eight, false, false, true) + "\n");
  expect_usage_error(resume + " --batch 64",
                     "it holds rows of --batch 8 and this run is --batch 64");
  // The matching count is accepted and the run goes on to look for the device.
  expect_accepted(resume + " --batch 8");
  write(path, "# gpu=x\n# batch=8 packed products per call\n" + header_line(false, false, true) +
                  "\n");
  expect_accepted(resume + " --batch 8");
  std::remove(path.c_str());
}
