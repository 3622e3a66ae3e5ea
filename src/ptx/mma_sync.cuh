// mma.sync m16n8k16 (sm_80+), fp16 or bf16 inputs, A row-major and B column-major fragments. With
// g = lane/4 and t = lane%4, each 32-bit register holds two consecutive halves:
//   A: a0 (row g, k 2t..2t+1), a1 (row g+8, same k), a2 (row g, k 2t+8..), a3 (row g+8, k 2t+8..)
//   B: b0 (k 2t..2t+1, col g), b1 (k 2t+8.., col g)
//   C/D f32: c0,c1 (row g, cols 2t, 2t+1), c2,c3 (row g+8, same cols)
//   C/D f16: c0 (row g, cols 2t, 2t+1 packed, lower half first), c1 (row g+8)
// bf16 fragments are laid out as fp16's. All accumulate in place: D = A*B + D.
#pragma once

#include <cstdint>

namespace hgemm::ptx {

__device__ __forceinline__ void mma_m16n8k16_f32(float (&d)[4], uint32_t const (&a)[4],
                                                 uint32_t const (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_m16n8k16_bf16_f32(float (&d)[4], uint32_t const (&a)[4],
                                                      uint32_t const (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_m16n8k16_f16(uint32_t (&d)[2], uint32_t const (&a)[4],
                                                 uint32_t const (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
      "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
      : "+r"(d[0]), "+r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

}  // namespace hgemm::ptx
