// What the `hgemm` command and the C API do when they cannot run: no CUDA device (hidden here with
// CUDA_VISIBLE_DEVICES=-1, so these pass on a GPU machine too) or a missing input. Each says so
// clearly and leaves every existing output file as it was.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "hgemm/hgemm.h"
#include "temp_dir.hpp"

namespace {

// Stands for a results file of an earlier run, which a failed run must not touch.
const std::string kPrecious = "# an earlier run's results\nm,n,k\n4096,4096,4096\n";

// A missing device is named as such, with the runtime's error name, and never as an outdated
// driver (cudaErrorInsufficientDriver's own text, which is what the runtime says without one).
void expect_no_device(const CliResult& r, const std::string& what) {
  EXPECT_NE(r.code, 0) << what << "\n" << r.output;
  EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << what << "\n" << r.output;
  EXPECT_NE(r.output.find("cudaError"), std::string::npos) << what << "\n" << r.output;
  EXPECT_EQ(r.output.find("driver version is insufficient"), std::string::npos)
      << what << "\n" << r.output;
}

}  // namespace

TEST(CliNoDevice, BenchLeavesAnExistingOutputAlone) {
  TempDir dir;
  const std::string out = dir.file("results.csv");
  const std::string bench = "bench --shape 64x64x64 --impl hgemm --modes offline --out ";
  write(out, kPrecious);
  expect_no_device(run_cli(bench + out, kNoDevice), "bench");
  EXPECT_EQ(slurp(out), kPrecious);

  // A partial last line is cut only once the run has started.
  write(out, kPrecious + "4096,40");
  EXPECT_NE(run_cli(bench + out + " --resume", kNoDevice).code, 0);
  EXPECT_EQ(slurp(out), kPrecious + "4096,40");

  const std::string fresh = dir.file("fresh.csv");
  expect_no_device(run_cli(bench + fresh, kNoDevice), "bench, new file");
  EXPECT_FALSE(std::filesystem::exists(fresh));

  const CliResult r = run_cli(bench + dir.file("no-such-dir/results.csv"), kNoDevice);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("no directory"), std::string::npos) << r.output;
}

TEST(CliNoDevice, VerifyLeavesAnExistingOutputAlone) {
  TempDir dir;
  const std::string out = dir.file("verify.csv");
  write(out, kPrecious);
  expect_no_device(run_cli("verify --suite smoke --out " + out, kNoDevice), "verify");
  EXPECT_EQ(slurp(out), kPrecious);
  const std::string fresh = dir.file("fresh.csv");
  expect_no_device(run_cli("verify --suite smoke --out " + fresh, kNoDevice), "verify, new file");
  EXPECT_FALSE(std::filesystem::exists(fresh));
}

TEST(CliNoDevice, TuneLeavesItsDatabaseAlone) {
  TempDir dir;
  const std::string db = dir.file("tuned.jsonl");
  write(db, kDatabase);
  const std::string tune = "tune --shape 128x128x128 --layout tn --acc f32 --budget 1 --db " + db;
  expect_no_device(run_cli(tune, kNoDevice), "tune");
  expect_no_device(run_cli(tune + " --gpus 0,1", kNoDevice), "tune --gpus");
  expect_no_device(run_cli(tune + " --gpus all", kNoDevice), "tune --gpus all");
  EXPECT_EQ(slurp(db), kDatabase);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(CliNoDevice, ReportAndExportLeaveAnExistingOutputAlone) {
  TempDir dir;
  const std::string out = dir.file("out.md");
  write(out, kPrecious);
  EXPECT_EQ(run_cli("report " + dir.file("missing.csv") + " --out " + out).code, 2);
  EXPECT_EQ(slurp(out), kPrecious);
  for (const char* format : {"csv", "jsonl"}) {
    const CliResult r = run_cli("db export " + dir.file("missing.jsonl") + " --format " + format +
                                " --out " + out);
    EXPECT_NE(r.code, 0) << r.output;
    EXPECT_EQ(slurp(out), kPrecious) << format;
  }
  // A finished export replaces the file whole.
  const std::string db = dir.file("tuned.jsonl");
  write(db, kDatabase);
  const CliResult r = run_cli("db export " + db + " --out " + out);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(slurp(out).rfind("m,n,k,layout,acc,config", 0), 0u) << slurp(out);
}

// Without a C++ wrapper in between: the library's own entry point says the same.
TEST(CliNoDevice, CApiSaysNoCudaDevice) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("CUDA_VISIBLE_DEVICES", "-1", 1);
        const hgemmStatus_t s =
            hgemmRun(reinterpret_cast<const void*>(0x10000), reinterpret_cast<const void*>(0x20000),
                     reinterpret_cast<void*>(0x40000), 8, 8, 8, HGEMM_LAYOUT_NN, HGEMM_ACC_F32,
                     nullptr);
        std::fprintf(stderr, "%s: %s\n", hgemmStatusString(s), hgemmLastErrorMessage());
        std::exit(s == HGEMM_ERROR_NO_DEVICE ? 0 : 1);
      },
      testing::ExitedWithCode(0), "no CUDA device.*cudaError");
}
