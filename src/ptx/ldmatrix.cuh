// ldmatrix (sm_75+): a warp loads 8x8 tiles of 16-bit elements from shared memory straight into
// mma.sync fragment order. Lanes 8i..8i+7 give the row addresses of matrix i (16 bytes each);
// register i of every lane receives its part of matrix i.
#pragma once

#include <cstdint>

namespace hgemm::ptx {

// Without .trans lane l gets row l/4, columns 2*(l%4) and 2*(l%4)+1 of each matrix.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&frag)[4], uint32_t smem_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(frag[0]), "=r"(frag[1]), "=r"(frag[2]), "=r"(frag[3])
               : "r"(smem_addr)
               : "memory");
}

// With .trans lane l gets column l/4, rows 2*(l%4) and 2*(l%4)+1: a row-major tile read as its
// transpose, which is how an MN-major operand becomes a K-major fragment.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&frag)[4], uint32_t smem_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(frag[0]), "=r"(frag[1]), "=r"(frag[2]), "=r"(frag[3])
               : "r"(smem_addr)
               : "memory");
}

}  // namespace hgemm::ptx
