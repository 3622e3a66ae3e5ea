// A column-major A (stored K x M: element (m, k) at a[k * lda + m]) copied to M x K rows
// (out[m * ld + k]), so that hgemmGemm runs the call as a row-major one: every tile, swap-AB,
// split-K and the decode kernels, where a column-major A would run only the general flavour's
// seven tiles unsplit.
//   Work: a CTA takes a 32 x 32 block of A; its warps read 32 consecutive rows of one k (M-major
//   in memory) into shared memory and write 32 consecutive k of one row, so both sides of the
//   copy are contiguous across a warp.
//   Launched with programmatic dependent launch like the kernels around it: it waits for the
//   kernel ahead of it before reading A and lets the kernel after it start its prologue; that
//   kernel waits for this one to finish before its first read.
#pragma once

#include <cstdint>

#include "ptx/griddepcontrol.cuh"

namespace hgemm::kernels {

inline constexpr int kTransposeTile = 32;
inline constexpr int kTransposeRowsPerPass = 8;  // a CTA of 32 x 8 threads
inline constexpr int kTransposeThreads = kTransposeTile * kTransposeRowsPerPass;

// Grid: (ceil(K / 32), ceil(M / 32)).
static __global__ void __launch_bounds__(kTransposeThreads)
    transpose_rows_kernel(uint16_t const* a, int64_t lda, uint16_t* out, int64_t ld, int m,
                          int k) {
  // One column of padding: a warp's reads of a column land in different banks.
  __shared__ uint16_t block[kTransposeTile][kTransposeTile + 1];
  ptx::griddepcontrol_wait();
  ptx::griddepcontrol_launch_dependents();
  const int k0 = int(blockIdx.x) * kTransposeTile;
  const int m0 = int(blockIdx.y) * kTransposeTile;
  const int lane = int(threadIdx.x) % kTransposeTile;
  const int pass = int(threadIdx.x) / kTransposeTile;
  for (int j = pass; j < kTransposeTile; j += kTransposeRowsPerPass) {
    const int kk = k0 + j, mm = m0 + lane;
    if (kk < k && mm < m) block[j][lane] = a[int64_t(kk) * lda + mm];
  }
  __syncthreads();
  for (int j = pass; j < kTransposeTile; j += kTransposeRowsPerPass) {
    const int mm = m0 + j, kk = k0 + lane;
    if (mm < m && kk < k) out[int64_t(mm) * ld + kk] = block[lane][j];
  }
}

}  // namespace hgemm::kernels
