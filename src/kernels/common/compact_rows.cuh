// The rows of a padded copy of C (row stride padded_c_ld(n), a multiple of 8) copied into the
// caller's C (row stride ld_dst, which need not be: N % 8 != 0 with a packed C), for the calls
// that dispatch::padded_c runs on a padded copy. One element per thread and step: C's rows start
// at any 2-byte boundary, so no wider store is aligned in general, and consecutive threads take
// consecutive columns of a row, so that each warp reads and writes 64 contiguous bytes.
//   Launched with programmatic dependent launch like the kernels around it: it waits for the
// GEMM that wrote the copy before reading it, and lets the next block's GEMM start its prologue;
// that GEMM waits for this kernel to finish before it writes the copy again.
#pragma once

#include <cstdint>

#include "ptx/griddepcontrol.cuh"

namespace hgemm::kernels {

inline constexpr int kCompactThreads = 256;

// Grid: (column blocks, row blocks); each block strides over the rows and columns beyond it.
static __global__ void __launch_bounds__(kCompactThreads)
    compact_rows_kernel(uint16_t const* src, int64_t ld_src, uint16_t* dst, int64_t ld_dst,
                        int64_t rows, int64_t n) {
  ptx::griddepcontrol_wait();
  ptx::griddepcontrol_launch_dependents();
  const int64_t col0 = int64_t(blockIdx.x) * kCompactThreads + threadIdx.x;
  const int64_t col_step = int64_t(gridDim.x) * kCompactThreads;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y)
    for (int64_t col = col0; col < n; col += col_step)
      dst[row * ld_dst + col] = src[row * ld_src + col];
}

}  // namespace hgemm::kernels
