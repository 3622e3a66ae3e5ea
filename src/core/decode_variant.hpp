// The decode family's variant (M <= 16: C = A·B as a stream of B) and everything derived from
// it. Like Sm80Variant and Sm90Variant (core/kernel_variant.hpp) it is the kernel's one template
// parameter, and the kernel, its launcher and KernelConfig read the numbers from
// decode_geometry() alone.
//
// In a KernelConfig a decode variant sets block_n (columns of C per CTA), block_k (K per warp and
// pipeline stage), num_stages and warps_n (the warps that split K); block_m is 16 (the rows one
// mma.sync pair covers) and warps_m is 1.
#pragma once

#include "hgemm/hgemm.hpp"

namespace hgemm {

// The most rows of C (and A) the decode family computes.
inline constexpr int kDecodeMaxM = 16;

struct DecodeVariant {
  int block_n = 32;
  int block_k = 64;
  int num_stages = 4;
  int num_warps = 4;
  Layout layout = Layout::kTN;
  Accum accum = Accum::kF32;
  DType dtype = DType::kF16;

  constexpr bool operator==(DecodeVariant const&) const = default;
};

constexpr DecodeVariant decode_variant(KernelConfig const& c) {
  return {c.block_n, c.block_k, c.num_stages, c.warps_n, c.layout, c.accum, c.dtype};
}

constexpr KernelConfig to_config(DecodeVariant const& v) {
  KernelConfig c;
  c.family = Family::kDecode;
  c.block_m = kDecodeMaxM;
  c.block_n = v.block_n;
  c.block_k = v.block_k;
  c.num_stages = v.num_stages;
  c.warps_m = 1;
  c.warps_n = v.num_warps;
  c.layout = v.layout;
  c.accum = v.accum;
  c.dtype = v.dtype;
  return c;
}

// Every lane of a warp copies, with 16-byte cp.async, exactly the bytes its own mma fragments
// use, into its own slots of shared memory; a slot is 32 lanes x 16 bytes. Per k32 chunk a lane
// holds `b_slots` pieces of B (TN: one row of each 8 columns; NN: 8 k-rows of 8 columns for each
// 64 columns) and 2 of A (rows g and g+8).
struct DecodeGeometry {
  int num_threads = 0;
  int blocks_n = 0;         // m16n8 accumulator fragments per warp: 8 columns of C each
  int chunks_k = 0;         // k32 chunks per warp and stage
  int b_slots = 0;          // B pieces per lane and k32 chunk
  int slots_per_chunk = 0;  // b_slots plus A's two rows
  int slots_per_stage = 0;
  int ring_bytes = 0;       // the lane-private pipelines of all warps
  int reduce_bytes = 0;     // the warps' partial sums for the final reduction (aliases the ring)
  int smem_bytes = 0;
  int b_stage_bytes = 0;    // bytes of B one CTA copies per stage (what each stage keeps in flight)
  bool nn = false;

  constexpr bool operator==(DecodeGeometry const&) const = default;
};

constexpr DecodeGeometry decode_geometry(DecodeVariant const& v) {
  constexpr int kSlotBytes = 32 * 16;
  DecodeGeometry g;
  g.num_threads = 32 * v.num_warps;
  g.nn = v.layout == Layout::kNN;
  g.blocks_n = v.block_n / 8;
  g.chunks_k = v.block_k / 32;
  g.b_slots = v.block_n / 8;
  g.slots_per_chunk = g.b_slots + 2;
  g.slots_per_stage = g.slots_per_chunk * g.chunks_k;
  g.ring_bytes = v.num_warps * v.num_stages * g.slots_per_stage * kSlotBytes;
  g.reduce_bytes = v.num_warps * kDecodeMaxM * v.block_n * 4;
  g.smem_bytes = g.ring_bytes > g.reduce_bytes ? g.ring_bytes : g.reduce_bytes;
  g.b_stage_bytes = v.num_warps * v.block_n * v.block_k * 2;
  return g;
}

}  // namespace hgemm
