// TMA (sm_90): cp.async.bulk.tensor 2-D and 3-D loads into shared memory (completing on an
// mbarrier as transaction bytes, optionally multicast to several CTAs of the cluster) and stores
// from shared memory (tracked as bulk groups). The third coordinate is the batch of a strided
// batched GEMM. One thread issues; the tensor map (CUtensorMap, encoded
// on the host) is a __grid_constant__ kernel parameter, passed here by its generic address.
// Coordinates are element indices, innermost first; boxes that reach past the tensor are
// zero-filled on load and clipped on store.
#pragma once

#include <cstdint>

namespace hgemm::ptx {

// Pulls the tensor map into the descriptor cache ahead of its first use.
__device__ __forceinline__ void tma_prefetch_descriptor(void const* tensor_map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(tensor_map) : "memory");
}

// Loads the box at (c0, c1) into this CTA's smem at `dst`; completes on `bar` (this CTA).
__device__ __forceinline__ void tma_load_2d(uint32_t dst, void const* tensor_map, uint32_t bar,
                                            int32_t c0, int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
      "l"(tensor_map), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

// Loads the box at (c0, c1) into the smem at offset `dst` of every CTA in `cta_mask` (bit i =
// cluster rank i); each destination's barrier at offset `bar` receives the box's bytes.
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, void const* tensor_map,
                                                      uint32_t bar, int32_t c0, int32_t c1,
                                                      uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
      "l"(tensor_map), "r"(bar), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
}

// Loads the box at (c0, c1, c2) into this CTA's smem at `dst`; completes on `bar` (this CTA).
__device__ __forceinline__ void tma_load_3d(uint32_t dst, void const* tensor_map, uint32_t bar,
                                            int32_t c0, int32_t c1, int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
      "l"(tensor_map), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

// Loads the box at (c0, c1, c2) into the smem at offset `dst` of every CTA in `cta_mask` (bit
// i = cluster rank i); each destination's barrier at offset `bar` receives the box's bytes.
__device__ __forceinline__ void tma_load_3d_multicast(uint32_t dst, void const* tensor_map,
                                                      uint32_t bar, int32_t c0, int32_t c1,
                                                      int32_t c2, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4, %5}], [%2], %6;\n" ::"r"(dst),
      "l"(tensor_map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "h"(cta_mask)
      : "memory");
}

// Stores this CTA's smem box at `src` to (c0, c1). The smem must have been written before a
// fence_proxy_async_shared_cta() in every writing thread and a barrier.
__device__ __forceinline__ void tma_store_2d(void const* tensor_map, uint32_t src, int32_t c0,
                                             int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
          tensor_map),
      "r"(src), "r"(c0), "r"(c1)
      : "memory");
}

// Stores this CTA's smem box at `src` to (c0, c1, c2). The smem must have been written before a
// fence_proxy_async_shared_cta() in every writing thread and a barrier.
__device__ __forceinline__ void tma_store_3d(void const* tensor_map, uint32_t src, int32_t c0,
                                             int32_t c1, int32_t c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
          tensor_map),
      "r"(src), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

// Closes the current bulk group of this thread's TMA stores.
__device__ __forceinline__ void tma_store_commit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// Waits until at most kPending of this thread's store groups still read their smem source.
template <int kPending>
__device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}

// Waits until at most kPending of this thread's store groups are still incomplete (written out).
template <int kPending>
__device__ __forceinline__ void tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

}  // namespace hgemm::ptx
