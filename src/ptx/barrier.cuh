// Thread-block clusters and named barriers (sm_90): a CTA's rank in its cluster, the cluster-wide
// barrier, named CTA barriers for a subset of warps (one with an OR of a predicate), electing one
// lane of a warp, and counting arrivals across CTAs on a global counter.
#pragma once

#include <cstdint>

namespace hgemm::ptx {

// This CTA's rank in its cluster, 0 .. cluster size - 1.
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

// All threads of all CTAs of the cluster (each warp converged). Release/acquire: smem writes and
// mbarrier inits before the arrive are visible to the cluster after the wait.
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

// Barrier `id` (1..15; 0 is __syncthreads) over `num_threads` threads, a multiple of 32.
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t num_threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(num_threads) : "memory");
}

// Arrives on barrier `id` without waiting: the signalling half of a producer/consumer pair whose
// other half calls named_barrier_sync with the same count.
__device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t num_threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(num_threads) : "memory");
}

// Barrier `id` over `num_threads` threads that also returns whether `pred` held in any of them.
__device__ __forceinline__ bool named_barrier_or(uint32_t id, uint32_t num_threads, bool pred) {
  uint32_t any;
  asm volatile(
      "{\n.reg .pred p, q;\n"
      "setp.ne.u32 p, %1, 0;\n"
      "bar.red.or.pred q, %2, %3, p;\n"
      "selp.u32 %0, 1, 0, q;\n}\n"
      : "=r"(any)
      : "r"(uint32_t(pred)), "r"(id), "r"(num_threads)
      : "memory");
  return any != 0;
}

// Counts one arrival on a counter in global memory and returns the count before it. Release
// (what this thread wrote, and what a barrier ordered before, is visible to whoever counts after
// it) and acquire (this thread sees what those who counted before it wrote), at GPU scope.
__device__ __forceinline__ int count_arrival(int* counter) {
  int before;
  asm volatile("atom.add.acq_rel.gpu.global.s32 %0, [%1], 1;\n"
               : "=r"(before)
               : "l"(counter)
               : "memory");
  return before;
}

// True in exactly one lane of the (fully active) warp.
__device__ __forceinline__ bool elect_one_sync() {
  uint32_t elected;
  asm volatile(
      "{\n.reg .pred p;\n"
      "elect.sync _|p, 0xffffffff;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(elected));
  return elected != 0;
}

}  // namespace hgemm::ptx
