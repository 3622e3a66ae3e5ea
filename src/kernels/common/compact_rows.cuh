// The rows of a padded copy of C (row stride padded_c_ld(n), a multiple of 8, 16-byte aligned)
// copied into the caller's C (row stride ld_dst, which need not be: N % 8 != 0 with a packed C),
// for the calls that dispatch::padded_c runs on a padded copy.
//   16 bytes a thread, both ways: a destination row starts at any 2-byte boundary, s halves past a
// 16-byte one, so each thread fills one 16-byte aligned piece of it from the two source pieces
// it straddles, shifted by s halves; only the pieces at either end of a row, partly outside it,
// go out half by half. One 2-byte element a thread kept too few bytes in flight to stream: 0.8
// TB/s, twice the GEMM's own time at 2048x50257x768 (docs/notes/2026-11-29-padded-c.md).
//   Launched with programmatic dependent launch like the kernels around it: it waits for the
// GEMM that wrote the copy before reading it, and lets the next block's GEMM start its prologue;
// that GEMM waits for this kernel to finish before it writes the copy again.
#pragma once

#include <cstdint>

#include "ptx/griddepcontrol.cuh"

namespace hgemm::kernels {

inline constexpr int kCompactThreads = 256;

namespace detail {

// The 8 halves that start `kFirst` (1..7) halves into the 16 of (lo, hi).
template <int kFirst>
__device__ __forceinline__ uint4 halves_from(uint4 lo, uint4 hi) {
  const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  uint32_t out[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if constexpr (kFirst % 2 == 0)
      out[k] = w[kFirst / 2 + k];
    else
      out[k] = __funnelshift_r(w[kFirst / 2 + k], w[kFirst / 2 + k + 1], 16);
  }
  return make_uint4(out[0], out[1], out[2], out[3]);
}

// A destination piece that starts s halves before source piece j (`hi`): its first s halves are
// the last s of piece j - 1 (`lo`), the rest the first 8 - s of piece j.
__device__ __forceinline__ uint4 shifted_piece(uint4 lo, uint4 hi, int s) {
  switch (s) {
    case 1: return halves_from<7>(lo, hi);
    case 2: return halves_from<6>(lo, hi);
    case 3: return halves_from<5>(lo, hi);
    case 4: return halves_from<4>(lo, hi);
    case 5: return halves_from<3>(lo, hi);
    case 6: return halves_from<2>(lo, hi);
    case 7: return halves_from<1>(lo, hi);
    default: return hi;
  }
}

__device__ __forceinline__ uint16_t half_of(uint4 v, int i) {
  const uint32_t w = i < 2 ? v.x : i < 4 ? v.y : i < 6 ? v.z : v.w;
  return uint16_t(i % 2 ? w >> 16 : w);
}

}  // namespace detail

// Grid: (piece blocks, row blocks); each block strides over the rows and pieces beyond it.
static __global__ void __launch_bounds__(kCompactThreads)
    compact_rows_kernel(uint16_t const* src, int64_t ld_src, uint16_t* dst, int64_t ld_dst,
                        int64_t rows, int64_t n) {
  ptx::griddepcontrol_wait();
  ptx::griddepcontrol_launch_dependents();
  const int64_t piece0 = int64_t(blockIdx.x) * kCompactThreads + threadIdx.x;
  const int64_t piece_step = int64_t(gridDim.x) * kCompactThreads;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    uint16_t* out = dst + row * ld_dst;
    const uint4* in = reinterpret_cast<const uint4*>(src + row * ld_src);
    // Piece j of the destination row holds its columns [8j - s, 8j - s + 8).
    const int s = int((reinterpret_cast<uintptr_t>(out) / 2) % 8);
    const int64_t pieces = (n + s + 7) / 8;
    for (int64_t j = piece0; j < pieces; j += piece_step) {
      const uint4 hi = 8 * j < n ? in[j] : make_uint4(0, 0, 0, 0);
      const uint4 lo = s > 0 && j > 0 ? in[j - 1] : make_uint4(0, 0, 0, 0);
      const uint4 v = detail::shifted_piece(lo, hi, s);
      const int64_t col = 8 * j - s;
      if (col >= 0 && col + 8 <= n) {
        *reinterpret_cast<uint4*>(out + col) = v;
      } else {
#pragma unroll
        for (int i = 0; i < 8; ++i)
          if (col + i >= 0 && col + i < n) out[col + i] = detail::half_of(v, i);
      }
    }
  }
}

}  // namespace hgemm::kernels
