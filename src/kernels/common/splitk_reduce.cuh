// The second kernel of split-K, shared by the sm80 and sm90 families: the K-splits of a GEMM
// each leave fp32 partial sums (splits x M x partial_ld, src/launch/splitk.hpp) and this kernel
// adds them into C.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/epilogue.cuh"
#include "ptx/griddepcontrol.cuh"

namespace hgemm::kernels {

// Two fp32 sums as C's element type T (__half or __nv_bfloat16), rounded to nearest even.
template <class T>
__device__ __forceinline__ T to_element(float x) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(x);
  else
    return __float2half_rn(x);
}

// C = act(alpha * (sum over the splits of the fp32 partials) + bias), added in split order so
// that the result is the same bit pattern on every run. One thread per pair of columns.
template <class T, bool kPairStores>
__global__ void splitk_reduce_kernel(float const* __restrict__ partial, int64_t partial_ld,
                                     int splits, T* __restrict__ c, int64_t ldc, int m, int n,
                                     EpilogueParams const epilogue) {
  constexpr DType kDType = std::is_same_v<T, __nv_bfloat16> ? DType::kBF16 : DType::kF16;
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
    if (epilogue.ops) {
      sum.x = apply_epilogue<kDType>(sum.x, col, epilogue);
      if (col + 1 < n) sum.y = apply_epilogue<kDType>(sum.y, col + 1, epilogue);
    }
    T* dst = c + row * ldc + col;
    const T lo = to_element<T>(sum.x);
    if constexpr (kPairStores) {
      const T pair[2] = {lo, to_element<T>(sum.y)};
      *reinterpret_cast<uint32_t*>(dst) = *reinterpret_cast<uint32_t const*>(pair);
    } else {
      dst[0] = lo;
      if (col + 1 < n) dst[1] = to_element<T>(sum.y);
    }
  }
}

}  // namespace hgemm::kernels
