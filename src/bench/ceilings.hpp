// The device's two ceilings as measured at the start of a benchmark run, so that a report can
// set each shape's time against what this card, at its clocks and power cap that day, reaches:
// DRAM bandwidth from a large device-to-device copy (bytes read plus bytes written), and dense
// fp16 or bf16 throughput (the run's element type) from a large GEMM. Written into the results
// header as dram_tbps and peak_tflops.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "hgemm/hgemm.hpp"
#include "verify/verifier.hpp"

namespace hgemm::bench {

struct Ceilings {
  double dram_tbps = 0;    // median of 5 copies
  double peak_tflops = 0;  // median of 5 calls of `gemm` on kPeakShape^3
  std::string method;      // how both were measured, for the results header
};

inline constexpr int64_t kCopyBytes = int64_t(1) << 30;
inline constexpr int64_t kPeakShape = 8192;

// Allocates about 2.4 GiB for the duration of the call. `gemm` is timed on random inputs of
// `dtype`.
Ceilings measure_ceilings(cudaStream_t stream, const verify::GemmFn& gemm, Accum accum,
                          DType dtype, const std::string& gemm_name);

}  // namespace hgemm::bench
