// Argument errors of the `hgemm` command: exit code 2 and a message naming the problem, before
// any device work (these run on the CPU-only CI machine).
#include <gtest/gtest.h>

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

TEST(Cli, HelpExitsZero) {
  CliResult r = run_cli("verify --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.output.find("--suite"), std::string::npos);
  r = run_cli("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.output.find("verify"), std::string::npos);
}
