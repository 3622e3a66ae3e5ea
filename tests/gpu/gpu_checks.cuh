// What the plain-executable GPU tests share: one line per check with a running count, a fatal
// CUDA-call check, a deterministic fill of fp16 buffers with values in [-1, 1], and the device
// checks at the start of main() (GPU tests never skip: no suitable device is a failure).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "core/device.hpp"

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

}  // namespace gpu_checks

#define CUDA_OK(expr)                                                              \
  do {                                                                             \
    cudaError_t e_ = (expr);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      std::printf("FAIL %s: %s\n", #expr, cudaGetErrorString(e_));                 \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)
