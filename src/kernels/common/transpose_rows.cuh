// A column-major A (stored K x M: element (m, k) at a[k * lda + m]) copied to M x K rows
// (out[m * ld + k], ld a multiple of 8), so that hgemmGemm runs the call as a row-major one:
// every tile, swap-AB, split-K and the decode kernels, where a column-major A would run only the
// general flavour's seven tiles unsplit.
//   Work: a CTA of 128 threads takes a 32 x 32 block. Reads go 2 bytes at a time, since the
//   rows it is copied for are mostly those whose stride (lda) is no multiple of 8, so no vector
//   is aligned: a warp reads 32 consecutive m of one k (64 bytes), and each thread issues all 8
//   of its loads before storing any. Writes go 16 bytes at a time: a thread gathers 8
//   consecutive k of one m from shared memory into one store, the rows of `out` being 16-byte
//   strides. Elements past M or K are zeros in shared memory, so the columns between K and ld
//   come out as zeros. Against 32 x 32 blocks of 256 threads with 2-byte stores this streams a
//   41 MB copy in 28 us instead of 46; 64 x 64 blocks of 256 threads copied as fast alone
//   (26 us) but left the small copies before a GEMM about 1 us slower than this
//   (docs/notes/2026-11-29-column-major-a-blocks.md).
//   Launched with programmatic dependent launch like the kernels around it: it waits for the
//   kernel ahead of it before reading A (which may be the call before it on the same copy) and
//   lets the kernel after it start its prologue; that kernel waits for this one to finish before
//   its first read.
#pragma once

#include <cstdint>

#include "ptx/griddepcontrol.cuh"

namespace hgemm::kernels {

inline constexpr int kTransposeTile = 32;
inline constexpr int kTransposeThreads = 128;
// Shared rows of 33 halves: the 4 chunks of k a warp gathers start 8 rows = 132 words apart,
// 4 banks, so they start on distinct banks (32 or 34 halves would pair them up).
inline constexpr int kTransposeSmemRow = kTransposeTile + 1;

// Grid: (ceil(K / 32), ceil(M / 32)).
static __global__ void __launch_bounds__(kTransposeThreads)
    transpose_rows_kernel(uint16_t const* a, int64_t lda, uint16_t* out, int64_t ld, int m,
                          int k) {
  constexpr int kRowsPerPass = kTransposeThreads / kTransposeTile;  // k rows read per pass
  constexpr int kPasses = kTransposeTile / kRowsPerPass;
  constexpr int kChunks = kTransposeTile / 8;  // 16-byte stores per row of the block
  __shared__ uint16_t block[kTransposeTile][kTransposeSmemRow];
  ptx::griddepcontrol_wait();
  ptx::griddepcontrol_launch_dependents();
  const int k0 = int(blockIdx.x) * kTransposeTile;
  const int m0 = int(blockIdx.y) * kTransposeTile;
  const int col = int(threadIdx.x) % kTransposeTile;
  const int row = int(threadIdx.x) / kTransposeTile;
  const int mm = m0 + col;
  uint16_t v[kPasses];
#pragma unroll
  for (int p = 0; p < kPasses; ++p) {
    const int kk = k0 + row + p * kRowsPerPass;
    v[p] = kk < k && mm < m ? a[int64_t(kk) * lda + mm] : uint16_t(0);
  }
#pragma unroll
  for (int p = 0; p < kPasses; ++p) block[row + p * kRowsPerPass][col] = v[p];
  __syncthreads();
  const int chunk = int(threadIdx.x) % kChunks;
  const int kk = k0 + chunk * 8;
#pragma unroll
  for (int r = int(threadIdx.x) / kChunks; r < kTransposeTile; r += kTransposeThreads / kChunks) {
    const int out_m = m0 + r;
    if (out_m >= m || kk >= k) continue;
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      w[i] = uint32_t(block[chunk * 8 + 2 * i][r]) | uint32_t(block[chunk * 8 + 2 * i + 1][r]) << 16;
    // kk < k and ld is K rounded up to 8, so the 8 columns from kk lie within the row.
    *reinterpret_cast<uint4*>(out + int64_t(out_m) * ld + kk) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

}  // namespace hgemm::kernels
