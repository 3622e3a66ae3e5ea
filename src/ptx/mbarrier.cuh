// mbarrier (sm_90): the 64-bit shared-memory barriers that carry the TMA -> wgmma pipeline.
// A phase completes once its pending arrival count reaches zero and every expected transaction
// byte has landed; the phase parity then flips. Waiters poll the parity of the phase they expect.
// All addresses are shared::cta byte addresses (ptx::smem_addr of an smem pointer).
#pragma once

#include <cstdint>

namespace hgemm::ptx {

// The shared::cta address of a pointer into shared memory.
__device__ __forceinline__ uint32_t smem_addr(void const* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// `x`, held in a register from here on. ptxas otherwise recomputes a shared address from the
// CTA's id (S2UR SR_CgaCtaId, then ULEA: tens of cycles of latency) wherever it is used, the
// consumers' k-block loop included, where that latency sat before each k-block's barrier wait.
__device__ __forceinline__ uint32_t pinned(uint32_t x) {
  asm volatile("" : "+r"(x));
  return x;
}
// A pointer likewise: a loop that steps it is not unrolled into one address per iteration.
template <class T>
__device__ __forceinline__ T* pinned(T* p) {
  asm volatile("" : "+l"(p));
  return p;
}

// Sets the arrival count of the first phase. One thread, before any use; follow with
// fence_mbarrier_init() and a CTA or cluster barrier.
__device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t arrival_count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrival_count)
               : "memory");
}

// One arrival, and `bytes` more transaction bytes this phase must see before it completes.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

// One arrival on a barrier of this CTA (release at CTA scope).
__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// One arrival on the barrier at the same shared offset in CTA `cta_rank` of this cluster (which
// may be this CTA).
// NOTE: no .release.cluster qualifier: that form compiles to a GPU-wide MEMBAR per arrival. The
// reads this arrival hands back were made by wgmma and have completed at wgmma.wait_group, so
// there is nothing for a stronger fence to order.
__device__ __forceinline__ void mbarrier_arrive_cluster(uint32_t bar, uint32_t cta_rank) {
  asm volatile(
      "{\n.reg .b32 remote_bar;\n"
      "mapa.shared::cluster.u32 remote_bar, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote_bar];\n}\n" ::"r"(bar),
      "r"(cta_rank)
      : "memory");
}

// Spins until the phase with parity `parity` has completed. try_wait suspends the thread for a
// while inside the instruction, so the loop does not hammer the barrier.
// NOTE: PTX labels are scoped by the braces, so the inlined copies do not collide.
__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "HGEMM_MBARRIER_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra HGEMM_MBARRIER_WAIT;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

}  // namespace hgemm::ptx
