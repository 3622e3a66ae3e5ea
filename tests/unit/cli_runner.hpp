// Runs the built `hgemm` command in a subprocess for the CLI argument tests, capturing its exit
// code and combined stdout/stderr. HGEMM_CLI_PATH comes from tests/CMakeLists.txt.
#pragma once

#include <array>
#include <cstdio>
#include <string>

#include <sys/wait.h>

struct CliResult {
  int code;
  std::string output;
};

// `env`: "NAME=value ..." set for this run only (e.g. CUDA_VISIBLE_DEVICES=-1, no device).
inline CliResult run_cli(const std::string& args, const std::string& env = "") {
  std::string cmd = (env.empty() ? "" : "env " + env + " ") + std::string(HGEMM_CLI_PATH) + " " +
                    args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 512> buf{};
  while (pipe && fgets(buf.data(), buf.size(), pipe)) out += buf.data();
  int status = pipe ? pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}
