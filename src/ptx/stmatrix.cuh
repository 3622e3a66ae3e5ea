// stmatrix (sm_90): a warp stores four 8x8 b16 matrices from the mma/wgmma accumulator fragment
// layout (thread l holds row l/4, columns 2(l%4), 2(l%4)+1 of each matrix) to shared memory.
// Lane i supplies the address of row i%8 of matrix i/8; each row is 16 contiguous bytes.
#pragma once

#include <cstdint>

namespace hgemm::ptx {

__device__ __forceinline__ void stmatrix_x4(uint32_t row_addr, uint32_t m0, uint32_t m1,
                                            uint32_t m2, uint32_t m3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(row_addr),
               "r"(m0), "r"(m1), "r"(m2), "r"(m3)
               : "memory");
}

// The same four matrices stored transposed: lane i supplies the address of row i%8 of matrix
// i/8's transpose, 16 bytes holding column i%8 of that matrix (swap-AB's C^T tile written into
// C's orientation).
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t row_addr, uint32_t m0, uint32_t m1,
                                                  uint32_t m2, uint32_t m3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(
                   row_addr),
               "r"(m0), "r"(m1), "r"(m2), "r"(m3)
               : "memory");
}

// Two matrices stored transposed (lanes 0-15 supply the addresses, as above): the 8 tile
// columns of a swap-AB chunk of 8 rows of C.
__device__ __forceinline__ void stmatrix_x2_trans(uint32_t row_addr, uint32_t m0, uint32_t m1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(row_addr),
               "r"(m0), "r"(m1)
               : "memory");
}

}  // namespace hgemm::ptx
