// Argument errors of the `hgemm` command: exit code 2 and a message naming the problem, before
// any device work (these run on the CPU-only CI machine).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cli_runner.hpp"

namespace {

void expect_usage_error(const std::string& args, const std::string& needle) {
  CliResult r = run_cli(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << args << "\n" << r.output;
}

}  // namespace

TEST(Cli, UnknownCommandAndNoCommand) {
  expect_usage_error("", "usage: hgemm");
  expect_usage_error("frobnicate", "unknown command 'frobnicate'");
}

TEST(Cli, VerifyArgumentErrors) {
  expect_usage_error("verify", "--suite is required");
  expect_usage_error("verify --suite smoke --layout nt", "unknown layout 'nt'");
  expect_usage_error("verify --suite smoke --acc f64", "unknown accumulation 'f64'");
  expect_usage_error("verify --suite smoke --impl config:bogus", "not a kernel config name");
  expect_usage_error("verify --suite smoke --impl family:sm70", "unknown family");
  expect_usage_error("verify --suite smoke --bogus", "unknown option --bogus");
  expect_usage_error("verify --suite smoke --misalign x", "expects an integer");
  expect_usage_error("verify --suite", "needs a value");
  expect_usage_error("verify --suite smoke --quick=1", "takes no value");
}

TEST(Cli, TuneRemeasureArgumentErrors) {
  const std::string tune = "tune --shape 256x256x256 --measurer synthetic ";
  expect_usage_error(tune + "--remeasure-before 2026-11-23T18:00:00Z", "needs --include");
  expect_usage_error(tune + "--include 128x256 --remeasure-before yesterday",
                     "wants a UTC time like");
  expect_usage_error(tune + "--include 128x256 --remeasure-before 2999-01-01T00:00:00Z",
                     "is in the future");
}

// A run that stopped before writing its header (no device) leaves an empty file; --resume starts
// it afresh instead of refusing it.
TEST(Cli, BenchResumeTreatsAnEmptyFileAsNew) {
  const std::string path = testing::TempDir() + "hgemm_cli_empty_resume.csv";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  CliResult r = run_cli("bench --shape 64x64x64 --layout tn --acc f32 --impl hgemm --modes offline "
                        "--loops 5 --resume --out " + path);
  EXPECT_EQ(r.output.find("cannot resume"), std::string::npos) << r.output;
  std::remove(path.c_str());
}

TEST(Cli, HelpExitsZero) {
  CliResult r = run_cli("verify --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.output.find("--suite"), std::string::npos);
  r = run_cli("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.output.find("verify"), std::string::npos);
}

// `hgemm db predict` needs no GPU: a tuned shape answers with its winner, another shape with the
// nearest tuned problem's winner; bad arguments are usage errors.
TEST(Cli, DbPredict) {
  const std::string path = testing::TempDir() + "hgemm_cli_predict.jsonl";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "{\"type\":\"header\",\"schema\":1,\"gpu\":\"NVIDIA H100 80GB HBM3\",\"sm_count\":\"132\"}\n"
        "{\"type\":\"measurement\",\"m\":4096,\"n\":4096,\"k\":4096,\"layout\":\"tn\",\"acc\":\"f32\","
        "\"config\":\"sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn\",\"disposition\":\"passed\","
        "\"median_us\":190.0,\"p20_us\":189.0,\"p80_us\":191.0,\"reference_us\":194.0,"
        "\"speedup\":1.02,\"policy\":\"rl\",\"timestamp\":\"2026-11-23T00:00:00Z\"}\n",
        f);
    std::fclose(f);
  }
  CliResult r = run_cli("db predict " + path + " --shape 4096x4096x4096,4000x4096x4096 --layout tn");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("tuned    sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("4000     4096     4096     tn  f32  nearest  "
                          "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn"),
            std::string::npos)
      << r.output;
  expect_usage_error("db predict " + path, "one of --shape or --suite");
  expect_usage_error("db predict " + path + " --shape 1x2", "--shape expects MxNxK");
  std::remove(path.c_str());
}

// A shipped (compressed) database is read by every reader but never tuned into: the run stops
// before it measures anything, with the way out in the message, also as the launcher of several
// GPUs, which would otherwise fail only at its final merge.
TEST(Cli, TuneRefusesACompressedDatabase) {
  const std::string path = testing::TempDir() + "hgemm_cli_tune.jsonl.gz";
  const std::string tune = "tune --measurer synthetic --shape 128x128x128 --layout tn --acc f32 "
                           "--budget 1 --db " + path;
  expect_usage_error(tune, "gzip-compressed");
  expect_usage_error(tune + " --gpus 0,1", "gunzip -k");
  CliResult r = run_cli("db loo " + path + " --rule closest");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown --rule 'closest'"), std::string::npos) << r.output;
}
