// Runs the built `hgemm` command in a subprocess for the CLI argument tests, capturing its exit
// code and combined stdout/stderr. HGEMM_CLI_PATH comes from tests/CMakeLists.txt.
#pragma once

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
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

// Hides every CUDA device from the command, so these tests behave alike with and without a GPU.
inline constexpr const char* kNoDevice = "CUDA_VISIBLE_DEVICES=-1";

// A one-record H100 tuning database, as `hgemm tune` writes one.
inline const std::string kDatabase =
    "{\"type\":\"header\",\"schema\":1,\"gpu\":\"NVIDIA H100 80GB HBM3\",\"sm_count\":\"132\"}\n"
    "{\"type\":\"measurement\",\"m\":4096,\"n\":4096,\"k\":4096,\"layout\":\"tn\",\"acc\":\"f32\","
    "\"config\":\"sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn\",\"disposition\":\"passed\","
    "\"median_us\":190.0,\"p20_us\":189.0,\"p80_us\":191.0,\"reference_us\":194.0,"
    "\"speedup\":1.02,\"policy\":\"rl\",\"timestamp\":\"2026-11-23T00:00:00Z\"}\n";

inline void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
