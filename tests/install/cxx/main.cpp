// Links the installed libhgemm from C++17 and checks what needs no GPU: the version, KernelConfig
// names and comparison, and bad arguments thrown as hgemm::Error.
#include <cstdio>
#include <string>

#include <hgemm/hgemm.hpp>

namespace {

int failures = 0;

void check(bool ok, const char* what, int line) {
  if (!ok) {
    std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, line, what);
    ++failures;
  }
}
#define CHECK(cond) check((cond), #cond, __LINE__)

}  // namespace

int main() {
  CHECK(hgemmGetVersion() == HGEMM_VERSION);

  const char* name = "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn";
  const auto config = hgemm::KernelConfig::parse(name);
  CHECK(config.has_value());
  if (config) {
    CHECK(config->name() == name);
    CHECK(*config == *hgemm::KernelConfig::parse(config->name()));
    CHECK(*config != hgemm::KernelConfig{});
  }
  CHECK(hgemm::parse_layout("tn") == hgemm::Layout::kTN);
  CHECK(hgemm::to_string(hgemm::Accum::kF16) == "f16");

  hgemm::Problem problem;
  problem.m = 0;
  problem.n = 64;
  problem.k = 64;
  CHECK(problem.validate().code == HGEMM_ERROR_INVALID_SIZE);
  bool threw = false;
  try {
    short host[64];
    hgemm::run(problem, host, host + 16, host + 32, nullptr);
  } catch (const hgemm::Error& e) {
    threw = true;
    CHECK(e.status() == HGEMM_ERROR_INVALID_SIZE);
    CHECK(std::string(e.what()).find(e.message()) != std::string::npos);
    std::printf("M = 0: %s\n", e.what());
  }
  CHECK(threw);

  // The general call's C++ descriptor: a bf16 call that asks for fp16 accumulation.
  hgemm::GemmDesc desc;
  desc.m = desc.n = desc.k = 64;
  desc.dtype = hgemm::DType::kBF16;
  desc.accum = hgemm::Accum::kF16;
  CHECK(desc.validate().code == HGEMM_ERROR_DTYPE_ACCUM);
  threw = false;
  try {
    short host[64];
    hgemm::gemm(desc, host, host + 16, host + 32, nullptr);
  } catch (const hgemm::Error& e) {
    threw = e.status() == HGEMM_ERROR_DTYPE_ACCUM;
  }
  CHECK(threw);
  return failures ? 1 : 0;
}
