// GPU test of the JIT (src/launch/sm90_jit): catalog configs compiled at run time give bitwise the
// catalog kernels' output (unsplit and split-K, cluster, TMA-store and ping-pong variants);
// configs outside the catalog, reached through hgemm::run with the JIT enabled, pass the
// verifier on residue shapes; a second build hits the cache; an invalid config is refused with
// the reason. Uses a fresh cache directory. A plain executable: one line per check, non-zero exit
// on any failure, and a failure (not a skip) when no sm_90 device is present.
#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/launch.hpp"
#include "launch/sm90_jit.hpp"
#include "verify/verifier.hpp"
#include "gpu_checks.cuh"

namespace {

using gpu_checks::check;
using gpu_checks::fill_kernel;

hgemm::KernelConfig parse(char const* name) {
  auto c = hgemm::KernelConfig::parse(name);
  if (!c) {
    std::printf("FAIL not a config name: %s\n", name);
    std::exit(1);
  }
  return *c;
}

// One catalog instance of each kind the JIT must reproduce.
std::vector<hgemm::KernelInstance> catalog_samples() {
  std::vector<hgemm::KernelInstance> out;
  auto take = [&](auto pred) {
    for (hgemm::KernelInstance const& i : hgemm::sm90_instances())
      if (pred(i.config)) {
        out.push_back(i);
        return;
      }
  };
  using hgemm::KernelConfig;
  take([](KernelConfig const& c) { return c.block_m == 64 && c.num_stages == 13; });
  take([](KernelConfig const& c) { return c.cluster_n == 2 && c.layout == hgemm::Layout::kTN; });
  take([](KernelConfig const& c) { return c.cluster_m == 2 && c.layout == hgemm::Layout::kNN; });
  take([](KernelConfig const& c) {
    return c.epilogue == hgemm::Epilogue::kTmaStore && c.accum == hgemm::Accum::kF16;
  });
  take([](KernelConfig const& c) { return c.schedule == hgemm::Schedule::kPingPong; });
  return out;
}

void test_matches_catalog() {
  const auto samples = catalog_samples();
  check(samples.size() == 5, "the catalog has the five sampled kinds of instance");
  for (hgemm::KernelInstance const& aot : samples) {
    std::string why;
    hgemm::KernelInstance const* jit = hgemm::jit::instance(aot.config, &why);
    check(jit != nullptr, "JIT builds and loads " + aot.config.name() + (jit ? "" : ": " + why));
    if (!jit) continue;
    check(jit->launch != aot.launch, aot.config.name() + ": the JIT instance is a separate kernel");
    for (auto [m, n, k, split] : {std::tuple{1000, 1000, 1000, 1}, std::tuple{136, 264, 72, 1},
                                  std::tuple{200, 264, 1800, 3}}) {
      const size_t a_elems = size_t(m) * k, b_elems = size_t(k) * n, c_elems = size_t(m) * n;
      __half *a, *b, *c1, *c2;
      CUDA_OK(cudaMalloc(&a, a_elems * 2));
      CUDA_OK(cudaMalloc(&b, b_elems * 2));
      CUDA_OK(cudaMalloc(&c1, c_elems * 2));
      CUDA_OK(cudaMalloc(&c2, c_elems * 2));
      fill_kernel<<<256, 256>>>(a, int64_t(a_elems), 11u);
      fill_kernel<<<256, 256>>>(b, int64_t(b_elems), 23u);
      CUDA_OK(cudaMemset(c1, 0x11, c_elems * 2));
      CUDA_OK(cudaMemset(c2, 0x22, c_elems * 2));
      hgemm::KernelConfig config = aot.config;
      config.split_k = split;
      const hgemm::GemmArgs args1{a, b, c1, m, n, k, nullptr};
      const hgemm::GemmArgs args2{a, b, c2, m, n, k, nullptr};
      aot.launch(config, args1);
      jit->launch(config, args2);
      CUDA_OK(cudaDeviceSynchronize());
      std::vector<uint16_t> h1(c_elems), h2(c_elems);
      CUDA_OK(cudaMemcpy(h1.data(), c1, c_elems * 2, cudaMemcpyDeviceToHost));
      CUDA_OK(cudaMemcpy(h2.data(), c2, c_elems * 2, cudaMemcpyDeviceToHost));
      check(std::memcmp(h1.data(), h2.data(), c_elems * 2) == 0,
            config.name() + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                std::to_string(k) + " split " + std::to_string(split) +
                ": JIT output is bitwise the catalog kernel's");
      for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c1),
                      static_cast<void*>(c2)})
        CUDA_OK(cudaFree(p));
    }
  }
}

// Outside the catalog; through hgemm::run, so the registry reaches them through the JIT.
void test_outside_catalog(hgemm::verify::Verifier& verifier) {
  for (char const* name : {"sm90_ws_64x64x64_s10_c1x1_w1_m8_st_sk1_f32_tn",
                           "sm90_pp_128x96x64_s5_c1x1_w2_m8_tma_sk1_f16_nn",
                           "sm90_ws_128x160x64_s4_c2x1_w2_m8_tma_sk1_f32_nn",
                           "sm90_ws_64x96x64_s10_c1x2_w1_m8_st_sk1_f16_tn",
                           // Clusters of 8 and 4 along both sides: each CTA multicasts a part of
                           // A to its row and of B to its column (N-major B: k-row parts).
                           "sm90_ws_64x96x64_s10_c4x2_w1_m8_st_sk1_f32_tn",
                           "sm90_ws_128x128x64_s4_c2x2_w2_m8_tma_sk1_f32_nn",
                           // Two warpgroups taking a 64-row tile's k-blocks in turn: units of
                           // one k-block (the second has none), odd counts, split-K, swap-AB,
                           // N-major B and TMA stores, several tiles per CTA (4096^3).
                           "sm90_ws_64x96x64_s8_c1x1_w2_m8_st_sk1_f32_tn",
                           "sm90_ws_64x128x64_s8_c1x1_w2_m8_tma_sk1_f16_nn",
                           "sm90_ws_168x64x64_s6_c1x1_w2_m8_st_sk1_f32_tn_swap",
                           // Swap-AB in NN, its A (B) read M-major: three 64-row chunks under
                           // three warpgroups, and an 8 mod 16 width with fp16 accumulators.
                           "sm90_ws_72x192x64_s5_c1x1_w3_m8_st_sk1_f32_nn_swap",
                           "sm90_ws_40x64x64_s10_c1x1_w1_m8_st_sk1_f16_nn_swap"}) {
    const hgemm::KernelConfig config = parse(name);
    bool in_catalog = false;
    for (hgemm::KernelConfig const& c : hgemm::catalog())
      in_catalog = in_catalog || c.instance() == config.instance();
    check(!in_catalog, config.name() + " is not in the catalog");
    for (auto [m, n, k, split] :
         {std::tuple{1000, 1000, 1000, 1}, std::tuple{136, 264, 72, 1}, std::tuple{1, 88, 8, 1},
          std::tuple{config.block_m + 8, config.block_n + 8,
                     config.block_k * (config.num_stages + 1) + 8, 1},
          std::tuple{200, 264, 1800, 3}, std::tuple{4096, 4096, 4096, 1}}) {
      hgemm::Problem p{m, n, k, config.layout, config.accum, config.dtype};
      hgemm::KernelConfig c = config;
      c.split_k = split;
      hgemm::verify::Options options;
      if (m == 4096) options.small_integer = options.precision_probe = options.nonfinite = false;
      auto report = verifier.check(
          p,
          [c](hgemm::Problem const& q, void const* a, void const* b, void* out, cudaStream_t s) {
            hgemm::run(q, c, a, b, out, s);
          },
          options);
      check(report.passed(), c.name() + " split " + std::to_string(split) + " " + p.name() +
                                 ": " + report.summary());
    }
  }
}

void test_cache_and_refusal() {
  const hgemm::jit::Options options = hgemm::jit::Options::from_env();
  const auto again = hgemm::jit::build({parse("sm90_ws_64x64x64_s10_c1x1_w1_m8_st_sk1_f32_tn")},
                                       options);
  check(again.size() == 1 && again[0].status.ok() && again[0].cached,
        "a second build of a loaded config is a cache hit");
  hgemm::KernelConfig bad = parse("sm90_ws_64x64x64_s10_c1x1_w1_m8_st_sk1_f32_tn");
  bad.num_stages = 16;  // 16 stages of 64x64x64 do not fit in shared memory
  void *a, *b, *c;
  CUDA_OK(cudaMalloc(&a, 1 << 20));
  CUDA_OK(cudaMalloc(&b, 1 << 20));
  CUDA_OK(cudaMalloc(&c, 1 << 20));
  hgemm::Problem p{64, 64, 64, bad.layout, bad.accum, bad.dtype};
  try {
    hgemm::run(p, bad, a, b, c, nullptr);
    check(false, bad.name() + " was launched");
  } catch (hgemm::Error const& e) {
    check(e.status() == HGEMM_ERROR_NOT_SUPPORTED &&
              std::string(e.message()).find("shared memory") != std::string::npos,
          bad.name() + " is refused with the reason: " + e.message());
  }
  CUDA_OK(cudaFree(a));
  CUDA_OK(cudaFree(b));
  CUDA_OK(cudaFree(c));
}

}  // namespace

int main() {
  if (!gpu_checks::device_present("the JIT test needs an sm_90 GPU") ||
      !gpu_checks::device_is_sm90("the JIT builds sm_90a kernels"))
    return 1;
  std::string pattern = (std::filesystem::temp_directory_path() / "hgemm-jit-XXXXXX").string();
  char const* cache = ::mkdtemp(pattern.data());
  if (!cache || ::setenv("HGEMM_JIT_CACHE", cache, 1) != 0) {
    std::printf("FAIL cannot create a JIT cache directory\n");
    return 1;
  }
  hgemm::jit::set_enabled(true);
  hgemm::verify::Verifier verifier;
  test_matches_catalog();
  test_outside_catalog(verifier);
  test_cache_and_refusal();
  std::error_code ec;
  std::filesystem::remove_all(cache, ec);
  return gpu_checks::summary();
}
