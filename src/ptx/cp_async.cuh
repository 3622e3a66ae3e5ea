// cp.async (sm_80+): asynchronous global -> shared copies that bypass registers, grouped and
// waited on per thread. Only 16-byte copies are wrapped: the .cg form skips L1, which is what a
// GEMM streaming operands through shared memory wants; the .ca form keeps a small shared
// operand in L1.
#pragma once

#include <cstdint>

namespace hgemm::ptx {

// Copies `src_bytes` (0..16) bytes from `gmem` and zero-fills the rest of the 16-byte chunk at
// `smem_addr`. With src_bytes == 0 nothing is read, so out-of-bounds chunks become zeros; the
// caller still passes an in-bounds `gmem` so no tool ever sees a wild address.
__device__ __forceinline__ void cp_async_cg_16(uint32_t smem_addr, void const* gmem,
                                               uint32_t src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr), "l"(gmem),
               "r"(src_bytes)
               : "memory");
}

// The same, also asking L2 to fetch the whole 256-byte block around `gmem` from DRAM: for an
// operand streamed once, in 64-byte pieces per warp instruction, the neighbouring pieces of the
// same rows then come from L2 instead of as separate DRAM requests.
__device__ __forceinline__ void cp_async_cg_16_l2_256(uint32_t smem_addr, void const* gmem,
                                                      uint32_t src_bytes) {
  asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;\n" ::"r"(smem_addr),
               "l"(gmem), "r"(src_bytes)
               : "memory");
}

// The .ca form allocates in L1 as well: for a small operand that CTAs resident on one SM read at
// about the same time.
__device__ __forceinline__ void cp_async_ca_16(uint32_t smem_addr, void const* gmem,
                                               uint32_t src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr), "l"(gmem),
               "r"(src_bytes)
               : "memory");
}

// Closes the current group of this thread's cp.async operations.
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most kPending of this thread's committed groups are still in flight. Other
// threads' copies become visible only after a following barrier.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  static_assert(kPending >= 0, "cp.async.wait_group takes a non-negative count");
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

}  // namespace hgemm::ptx
