// What the plain-executable GPU tests share: one line per check with a running count, a fatal
// CUDA-call check, a deterministic fill of fp16 buffers with values in [-1, 1], the device
// checks at the start of main() (GPU tests never skip: no suitable device is a failure), and the
// checks every kernel family runs: repeatability, a dependent chain under programmatic launch,
// and graph replay.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/launch.hpp"
#include "verify/verifier.hpp"

namespace gpu_checks {

inline int g_failures = 0;
inline int g_checks = 0;

inline void check(bool ok, std::string const& what) {
  ++g_checks;
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  std::fflush(stdout);
  if (!ok) ++g_failures;
}

// "N passed, M failed" and the exit code.
inline int summary() {
  std::printf("%d passed, %d failed\n", g_checks - g_failures, g_failures);
  return g_failures == 0 ? 0 : 1;
}

// True when a CUDA device is visible; otherwise prints "FAIL no CUDA device: <why>".
inline bool device_present(char const* why) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) return true;
  std::printf("FAIL no CUDA device: %s\n", why);
  return false;
}

// True on an sm_90 device; otherwise prints what the device is, then `why`.
inline bool device_is_sm90(char const* why) {
  hgemm::DeviceInfo const& device = hgemm::current_device();
  if (device.is_sm90()) return true;
  std::printf("FAIL %s is compute capability %d.%d; %s\n", device.name.c_str(), device.cc_major,
              device.cc_minor, why);
  return false;
}

static __global__ void fill_kernel(__half* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    uint32_t x = uint32_t(i) * 2654435761u ^ seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    p[i] = __float2half((int(x % 2001) - 1000) / 1000.0f);
  }
}

// The call that runs `config` (hgemm::run with an explicit config), as the verifier takes it.
inline hgemm::verify::GemmFn gemm_with(hgemm::KernelConfig const& config) {
  return [config](hgemm::Problem const& p, void const* a, void const* b, void* c,
                  cudaStream_t s) { hgemm::run(p, config, a, b, c, s); };
}

// Whether the m x n results at `x` and `y` are the same bits.
inline bool same_bits(void const* x, void const* y, int64_t m, int64_t n) {
  std::vector<uint16_t> hx(size_t(m * n)), hy(size_t(m * n));
  if (cudaMemcpy(hx.data(), x, size_t(m * n) * 2, cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemcpy(hy.data(), y, size_t(m * n) * 2, cudaMemcpyDeviceToHost) != cudaSuccess)
    return false;
  return std::memcmp(hx.data(), hy.data(), size_t(m * n) * 2) == 0;
}

// Two runs on the same inputs into buffers that held different bytes give the same bits.
inline bool repeatable(hgemm::verify::GemmFn const& gemm, hgemm::Problem const& p, void const* a,
                       void const* b, void* c0, void* c1) {
  if (cudaMemset(c0, 0xff, size_t(p.m * p.n) * 2) != cudaSuccess ||
      cudaMemset(c1, 0x7f, size_t(p.m * p.n) * 2) != cudaSuccess)
    return false;
  bool ok = true;
  try {
    gemm(p, a, b, c0, nullptr);
    gemm(p, a, b, c1, nullptr);
  } catch (hgemm::Error const& e) {
    ok = false;
    std::printf("     %s\n", e.what());
  }
  return cudaDeviceSynchronize() == cudaSuccess && ok && same_bits(c0, c1, p.m, p.n);
}

// Programmatic dependent launch: a call may start while the one ahead of it finishes, so it must
// wait before reading that call's output. C1 = A*B, C2 = C1*B, C3 = C2*B enqueued back to back
// (p.k == p.n: each C is the next A) must equal the same chain run with a sync between calls and
// without the attribute (into d). Values in [-1, 1] keep the chain finite.
inline bool programmatic_chain_matches(hgemm::verify::GemmFn const& gemm, hgemm::Problem const& p,
                                       void const* a, void const* b, void* const (&c)[3],
                                       void* const (&d)[3], cudaStream_t stream) {
  bool ok = true;
  try {
    hgemm::set_programmatic_launch(true);
    for (int i = 0; i < 3; ++i) gemm(p, i == 0 ? a : c[i - 1], b, c[i], stream);
    hgemm::set_programmatic_launch(false);
    for (int i = 0; i < 3; ++i) {
      gemm(p, i == 0 ? a : d[i - 1], b, d[i], stream);
      if (cudaStreamSynchronize(stream) != cudaSuccess) ok = false;
    }
  } catch (hgemm::Error const& e) {
    ok = false;
    std::printf("     %s\n", e.what());
  }
  hgemm::set_programmatic_launch(true);
  if (cudaStreamSynchronize(stream) != cudaSuccess) return false;
  return ok && same_bits(c[2], d[2], p.m, p.n);
}

// One call captured in a CUDA graph, replayed four times with new A (filled from seed,
// seed + 1, ...), must equal a direct call on the same inputs each time.
inline bool graph_replay_matches(hgemm::verify::GemmFn const& gemm, hgemm::Problem const& p,
                                 __half* a, void const* b, void* c, void* d, cudaStream_t stream,
                                 uint32_t seed) {
  bool ok = true;
  try {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
      return false;
    gemm(p, a, b, c, stream);
    if (cudaStreamEndCapture(stream, &graph) != cudaSuccess ||
        cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess)
      return false;
    for (uint32_t replay = 0; replay < 4 && ok; ++replay) {
      fill_kernel<<<256, 256, 0, stream>>>(a, p.m * p.k, seed + replay);
      ok = cudaGetLastError() == cudaSuccess && cudaGraphLaunch(exec, stream) == cudaSuccess;
      gemm(p, a, b, d, stream);
      ok = ok && cudaStreamSynchronize(stream) == cudaSuccess && same_bits(c, d, p.m, p.n);
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  } catch (hgemm::Error const& e) {
    ok = false;
    std::printf("     %s\n", e.what());
  }
  return ok;
}

}  // namespace gpu_checks

#define CUDA_OK(expr)                                                              \
  do {                                                                             \
    cudaError_t e_ = (expr);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      std::printf("FAIL %s: %s\n", #expr, cudaGetErrorString(e_));                 \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)
