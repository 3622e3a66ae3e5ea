// Argument errors of the `hgemm` command: exit code 2 and a message naming the problem, before
// any device work (these run on the CPU-only CI machine).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "temp_dir.hpp"

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
  expect_usage_error(tune + "--remeasure-before 2026-11-23T18:00:00Z",
                     "needs --include or --remeasure-top");
  expect_usage_error(tune + "--remeasure-top 3", "needs --remeasure-before");
  expect_usage_error(tune + "--remeasure-top 0 --remeasure-before 2026-11-23T18:00:00Z",
                     "wants a count");
  expect_usage_error(tune + "--include 128x256 --remeasure-before yesterday",
                     "wants a UTC time like");
  expect_usage_error(tune + "--include 128x256 --remeasure-before 2999-01-01T00:00:00Z",
                     "is in the future");
  expect_usage_error(tune + "--history-top 3", "needs --history");
  expect_usage_error(tune + "--history-top 0 --history x.jsonl", "wants a count");
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

// --dtype of verify and bench: f16 or bf16, checked before any device work; bf16 accumulates in
// fp32 only, so --acc f16 with it is an argument error while its default --acc is f32 alone. An
// accepted line goes on to look for the device, which kNoDevice hides.
TEST(Cli, DtypeOption) {
  const std::string out = testing::TempDir() + "hgemm_cli_dtype.csv";
  std::remove(out.c_str());
  const std::string bench = "bench --shape 64x64x64 --impl hgemm --modes offline --out " + out;
  const std::string verify = "verify --suite smoke ";
  const std::vector<std::string> accepted = {
      verify + "--dtype bf16",          verify + "--dtype=f16",
      verify + "--dtype bf16 --acc f32", verify + "--dtype f16 --acc f16",
      bench + " --dtype bf16",           bench + " --dtype bf16 --acc f32,f32"};
  for (const std::string& args : accepted) {
    const CliResult r = run_cli(args, kNoDevice);
    EXPECT_NE(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << args << "\n" << r.output;
  }
  std::FILE* f = std::fopen(out.c_str(), "r");
  EXPECT_EQ(f, nullptr) << "a run without a device wrote " << out;
  if (f) std::fclose(f);

  expect_usage_error("verify --suite smoke --dtype fp8", "unknown dtype 'fp8' (f16 or bf16)");
  expect_usage_error("verify --suite smoke --dtype BF16", "unknown dtype 'BF16'");
  expect_usage_error("verify --suite smoke --dtype", "needs a value");
  expect_usage_error(bench + " --dtype f32", "unknown dtype 'f32'");
  for (const char* acc : {"f16", "f32,f16"}) {
    expect_usage_error(std::string("verify --suite smoke --dtype bf16 --acc ") + acc,
                       "--acc f16 cannot run with --dtype bf16: bf16 accumulates in fp32 only");
    expect_usage_error(bench + " --dtype bf16 --acc " + acc, "bf16 accumulates in fp32 only");
  }
  // An explicit config of the other element type could never run: refused, not skipped.
  const std::string f16_config = "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn";
  expect_usage_error("verify --suite smoke --dtype bf16 --impl config:" + f16_config,
                     "has f16 elements but the run is --dtype bf16");
  expect_usage_error("bench --shape 64x64x64 --modes offline --out " + out + " --impl config:" +
                         f16_config + "_bf16",
                     "has bf16 elements but the run is --dtype f16");
}

// A results file holds one element type (its header says which): --resume with the other is
// refused before any device work rather than appending rows under the wrong header.
TEST(Cli, BenchResumeRefusesTheOtherDtype) {
  const std::string path = testing::TempDir() + "hgemm_cli_resume_dtype.csv";
  const std::string f16_header =
      "m,n,k,layout,acc,impl,mode,disposition,ms,tflops,p20_ms,p80_ms,min_ms,max_ms,samples,"
      "calls_per_sample,sets,sm_clock_before_mhz,sm_clock_after_mhz,detail\n";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(("# gpu=x\n" + f16_header).c_str(), f);
  std::fclose(f);
  expect_usage_error("bench --shape 64x64x64 --impl hgemm --modes offline --resume --dtype bf16 "
                     "--out " + path,
                     "it holds f16 rows and this run is --dtype bf16");
  std::remove(path.c_str());
}

// A pick made by rule splits its last round where that round is at most half full, the call takes
// two to four rounds and its tiles are long (dispatch.cpp, on_last_round); explain says so.
// 150x59136x8192 on the H200: 462 swap-AB tiles on 132 SMs, 128 k-blocks each.
TEST(Cli, ExplainTheLastRoundSplit) {
  const std::string env = std::string(kNoDevice) + " HGEMM_USER_TABLE=/nonexistent/user.table";
  CliResult r = run_cli("explain 150 59136 8192 --gpu h200", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("_sk0_f32_tn"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("its last round split: 66 tiles of 128 k-blocks left over from 3 whole "
                          "rounds of 132"),
            std::string::npos)
      << r.output;
  // Many rounds (900x73728x4608: 26), or short tiles (32 tokens by 64 rows over K = 4096): whole
  // tiles.
  for (const char* shape : {"900 73728 4608", "32 28672 4096 --layout nn"}) {
    r = run_cli(std::string("explain ") + shape + " --gpu h200", env);
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(r.output.find("last round split"), std::string::npos) << shape << "\n" << r.output;
  }
}

// A pick made by rule whose split runs no shorter than fewer splits takes the fewest (dispatch.cpp,
// on_split_rounds); explain says so. 40x5120x14336 TN f16 on the H200: 80 tiles of 40x64, split
// two ways 160 CTAs in two rounds of 112 k-blocks, unsplit one round of 224.
TEST(Cli, ExplainFewerSplits) {
  const std::string env = std::string(kNoDevice) + " HGEMM_USER_TABLE=/nonexistent/user.table";
  CliResult r = run_cli("explain 40 5120 14336 --acc f16 --gpu h200", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("_sk1_f16_tn_swap"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("unsplit, not split 2 ways: 1 round of 224 k-blocks, no longer than 2 rounds of "
                          "112 k-blocks"),
            std::string::npos)
      << r.output;
  // A split that shortens the call stays: 20x3072x8192 TN f16 on 32x64 split eight ways runs 3
  // rounds of 16 k-blocks, where two ways would run one of 64.
  r = run_cli("explain 20 3072 8192 --acc f16 --gpu h200", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("_sk8_f16_tn_swap"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(", not split"), std::string::npos) << r.output;
}

// A split-K swap-AB pick of few tokens over a wide N runs unsplit on narrow tiles, one round of
// them (dispatch.cpp, narrow_unsplit_tile); explain says so. 72x6144x5120 TN f32 on the H200: 96
// tiles of 80x64 where the rule's pick split four ways. A tile over 48 tokens wide at K over 16384
// keeps the split, and explain says which tile it declined: 56x5120x32768 NN f32 would take 80x64
// tiles, and those lost there.
TEST(Cli, ExplainNarrowUnsplit) {
  const std::string env = std::string(kNoDevice) + " HGEMM_USER_TABLE=/nonexistent/user.table";
  CliResult r = run_cli("explain 72 6144 5120 --gpu h200", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("runs    sm90_ws_80x64x64_s10_c1x1_w1_m8_st_sk1_f32_tn_swap"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("(96 CTAs in one round), not split 4 ways"), std::string::npos)
      << r.output;
  r = run_cli("explain 56 5120 32768 --layout nn --gpu h200", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("_sk4_f32_nn_swap"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("unsplit as"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kept split 4 ways: unsplit it would run on "
                          "sm90_ws_80x64x64_s10_c1x1_w1_m8_st_sk1_f32_nn_swap, over 48 tokens wide "
                          "at K over 16384"),
            std::string::npos)
      << r.output;
}

// explain --a-col follows hgemmGemm's route for a packed column-major A: the general flavour
// reads it in place (more than 256 rows, a multiple of 8), a small A is copied into rows first
// unless a decode kernel reads it or it is one row, and an odd M whose A is too big to copy goes
// to the safety net, each said so.
TEST(Cli, ExplainAColumnMajorA) {
  const std::string env = std::string(kNoDevice) + " HGEMM_USER_TABLE=/nonexistent/user.table";
  CliResult r = run_cli("explain 1024 7168 5120 --gpu h200 --a-col", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("with A column-major (read M-major)"), std::string::npos) << r.output;
  r = run_cli("explain 100 4096 4096 --gpu h200 --a-col", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("copied to rows first"), std::string::npos) << r.output;
  // Eight rows run on the decode kernel the row-major call picks, which reads that A uncopied;
  // one row is read as that row.
  r = run_cli("explain 8 4096 4096 --gpu h200 --a-col", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("runs    decode_"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not copied after all"), std::string::npos) << r.output;
  r = run_cli("explain 1 4096 4096 --gpu h200 --a-col", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("one row: read as that row"), std::string::npos) << r.output;
  // Odd rows whose copy exceeds 32 MiB are copied and run in blocks of rows.
  r = run_cli("explain 2500 10240 8192 --gpu h200 --a-col", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("on blocks of 2048 rows, sm90_ws_"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("on the last, of 452"), std::string::npos) << r.output;
  // Where not even 128 rows of the copy fit, nothing compiled reads that A.
  r = run_cli("explain 2501 4096 140000 --gpu h200 --a-col", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("runs on the general kernel (the safety net)"), std::string::npos)
      << r.output;
  // The suite form marks each route in the rule column.
  TempDir dir;
  const std::string suite = dir.file("acol.txt");
  if (FILE* f = std::fopen(suite.c_str(), "w")) {
    std::fputs("2500 10240 8192\n100 4096 4096\n1024 7168 5120\n2501 4096 140000\n8 4096 4096\n",
               f);
    std::fclose(f);
  }
  r = run_cli("explain --suite " + suite + " --gpu h200 --a-col", env);
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* line : {"2500 10240 8192 tn f32 sm90_ws_", "100 4096 4096 tn f32 ",
                           "1024 7168 5120 tn f32 sm90_ws_", "2501 4096 140000 tn f32 general",
                           "8 4096 4096 tn f32 decode_n"})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  EXPECT_NE(r.output.find(" rows-blocks+"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" rows-first+"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" safety-net"), std::string::npos) << r.output;
  // Without --a-col the same shape runs a tuned kernel.
  r = run_cli("explain 2500 10240 8192 --gpu h200", env);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("runs    sm90_ws_"), std::string::npos) << r.output;
}
