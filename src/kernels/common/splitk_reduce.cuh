// The second kernel of split-K, shared by the sm80 and sm90 families: the K-splits of a GEMM
// each leave fp32 partial sums (splits x M x partial_ld, src/launch/splitk.hpp) and this kernel
// adds them into C.
#pragma once

#include <cstdint>

#include <cuda_fp16.h>

#include "ptx/griddepcontrol.cuh"

namespace hgemm::kernels {

// C = sum over the splits of the fp32 partials, added in split order so that the result is the
// same bit pattern on every run. One thread per pair of columns.
template <bool kPairStores>
__global__ void splitk_reduce_kernel(float const* __restrict__ partial, int64_t partial_ld,
                                     int splits, __half* __restrict__ c, int m, int n) {
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
    __half* dst = c + row * n + col;
    if constexpr (kPairStores) {
      *reinterpret_cast<__half2*>(dst) = __floats2half2_rn(sum.x, sum.y);
    } else {
      dst[0] = __float2half_rn(sum.x);
      if (col + 1 < n) dst[1] = __float2half_rn(sum.y);
    }
  }
}

}  // namespace hgemm::kernels
