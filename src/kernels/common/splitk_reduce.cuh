// The second kernel of split-K, shared by the sm80 and sm90 families: the K-splits of a GEMM
// each leave fp32 partial sums (splits x M x partial_ld, src/launch/splitk.hpp) and this kernel
// adds them into C.
#pragma once

#include <cstdint>

#include "kernels/common/epilogue.cuh"
#include "ptx/griddepcontrol.cuh"

namespace hgemm::kernels {

// C = act(alpha * (sum over the splits of the fp32 partials) + beta * C + bias), added in split
// order so that the result is the same bit pattern on every run. One thread per pair of columns.
template <DType kDType, bool kPairStores>
__global__ void splitk_reduce_kernel(float const* __restrict__ partial, int64_t partial_ld,
                                     int splits, uint16_t* c, int64_t ldc, int m,
                                     int n, EpilogueParams const epilogue) {
  // Launched programmatically, the kernel may start before the GEMM that writes the partials has
  // finished: wait for it, then let the next kernel begin its setup.
  ptx::griddepcontrol_wait();
  ptx::griddepcontrol_launch_dependents();
  const int64_t pairs_per_row = (n + 1) / 2;
  const int64_t total = int64_t(m) * pairs_per_row;
  const int64_t split_stride = int64_t(m) * partial_ld;
  for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = idx / pairs_per_row;
    const int64_t col = (idx - row * pairs_per_row) * 2;
    float const* src = partial + row * partial_ld + col;
    float2 sum = *reinterpret_cast<float2 const*>(src);
    for (int s = 1; s < splits; ++s) {
      const float2 v = *reinterpret_cast<float2 const*>(src + s * split_stride);
      sum.x += v.x;
      sum.y += v.y;
    }
    uint16_t* dst = c + row * ldc + col;
    if (epilogue.ops) {
      sum.x = apply_epilogue<kDType>(sum.x, col, epilogue, dst);
      if (col + 1 < n) sum.y = apply_epilogue<kDType>(sum.y, col + 1, epilogue, dst + 1);
    }
    const uint16_t lo = from_float<kDType>(sum.x);
    if constexpr (kPairStores) {
      *reinterpret_cast<uint32_t*>(dst) = lo | uint32_t(from_float<kDType>(sum.y)) << 16;
    } else {
      dst[0] = lo;
      if (col + 1 < n) dst[1] = from_float<kDType>(sum.y);
    }
  }
}

}  // namespace hgemm::kernels
