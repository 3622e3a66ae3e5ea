// A column-major A of at most 16 rows (stored K x M, row stride lda) copied to M x K packed rows,
// so that the decode kernels, which stream B and copy A in 16-byte row pieces, can read it.
//   Work: thread t of the grid takes k = t and writes A's column k (M elements) to the M rows of
//   the copy at column k: each read is one short row (M * 2 bytes), each write coalesced across
//   the warp. The copy is at most 16 * K * 2 bytes, next to the K * N * 2 of B that the decode
//   kernel streams after it.
//   Launched with programmatic dependent launch like the kernels around it: it waits for the
//   kernel ahead of it before reading A and lets the decode kernel start its prologue; that kernel
//   waits for this one to finish before its first read.
#pragma once

#include <cstdint>

#include "ptx/griddepcontrol.cuh"

namespace hgemm::kernels {

inline constexpr int kTransposeRowsThreads = 256;

static __global__ void __launch_bounds__(kTransposeRowsThreads)
    transpose_rows_kernel(uint16_t const* a, int64_t lda, uint16_t* out, int m, int k) {
  ptx::griddepcontrol_wait();
  ptx::griddepcontrol_launch_dependents();
  const int col = int(blockIdx.x) * kTransposeRowsThreads + int(threadIdx.x);
  if (col >= k) return;
  uint16_t const* src = a + int64_t(col) * lda;
  for (int row = 0; row < m; ++row) out[int64_t(row) * k + col] = src[row];
}

}  // namespace hgemm::kernels
