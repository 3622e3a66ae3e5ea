// Issue 18's first-call bar: in a fresh process, the first hgemmRun of each accumulation costs at
// most 20 ms above CUDA context creation, kernel and module loading included. Only the public C
// API is used, as an application would use it; the process is fresh because ctest starts it.
// Prints each phase's time (the line the results README quotes) and fails above the bar.
#include <chrono>
#include <cstdio>
#include <string>

#include <cuda_runtime.h>

#include "gpu_checks.cuh"
#include "hgemm/hgemm.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

constexpr double kBarMs = 20.0;

}  // namespace

int main() {
  using gpu_checks::check;
  const auto t_start = Clock::now();
  if (!gpu_checks::device_present("the first-call test needs a GPU")) return 1;
  CUDA_OK(cudaFree(nullptr));  // creates the context
  const double context_ms = ms_since(t_start);

  // A decode-sized and a prefill-sized problem, so that the table lookup, not the kernel, is what
  // the first call adds; both kernels are far under a millisecond.
  const int64_t m = 128, n = 4096, k = 4096;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  CUDA_OK(cudaMalloc(&a, size_t(m * k) * 2));
  CUDA_OK(cudaMalloc(&b, size_t(k * n) * 2));
  CUDA_OK(cudaMalloc(&c, size_t(m * n) * 2));
  gpu_checks::fill_kernel<<<256, 256>>>(static_cast<__half*>(a), m * k, 1);
  gpu_checks::fill_kernel<<<256, 256>>>(static_cast<__half*>(b), k * n, 2);
  CUDA_OK(cudaDeviceSynchronize());

  double first_ms[2] = {0, 0};
  double second_ms[2] = {0, 0};
  const hgemmAccum_t accs[2] = {HGEMM_ACC_F32, HGEMM_ACC_F16};
  for (int i = 0; i < 2; ++i) {
    for (double* out : {&first_ms[i], &second_ms[i]}) {
      const auto t0 = Clock::now();
      const hgemmStatus_t s = hgemmRun(a, b, c, m, n, k, HGEMM_LAYOUT_TN, accs[i], nullptr);
      CUDA_OK(cudaDeviceSynchronize());
      *out = ms_since(t0);
      if (s != HGEMM_SUCCESS) {
        check(false, std::string("hgemmRun: ") + hgemmStatusString(s) + ": " +
                         hgemmLastErrorMessage());
        return gpu_checks::summary();
      }
    }
  }
  std::printf("context creation %.1f ms; first call f32 %.2f ms (second %.3f ms), first call f16 "
              "%.2f ms (second %.3f ms)\n",
              context_ms, first_ms[0], second_ms[0], first_ms[1], second_ms[1]);
  for (int i = 0; i < 2; ++i) {
    char what[160];
    std::snprintf(what, sizeof what,
                  "the first %s call costs %.2f ms beyond the context, within %.0f ms",
                  i == 0 ? "f32" : "f16", first_ms[i], kBarMs);
    check(first_ms[i] <= kBarMs, what);
  }
  cudaFree(c);
  cudaFree(b);
  cudaFree(a);
  return gpu_checks::summary();
}
