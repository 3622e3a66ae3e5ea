// The decode catalog (M <= 16, kernels/sm80/sm80_decode.cuh): every decode kernel compiled into
// the library. A row is compiled for fp32 and fp16 accumulation, fp32 also for bf16 elements, for
// TN, and for NN where the width allows it (NN transposes B in registers in groups of 64
// columns). Dispatch's decode rule (dispatch/decode_rule.hpp) takes the row its stream model
// predicts fastest, reading each row's ring, shared memory and warps from its geometry. The
// depths below come from the budget each width can afford (comments); every TN row was timed
// against the others on an H200 in bench/results/2026-11-28-h200-decode-rule.
#pragma once

#include <array>
#include <cstddef>
#include <iterator>
#include <utility>

#include "core/decode_variant.hpp"
#include "launch/catalog_distinct.hpp"

namespace hgemm::decode {

// Shared memory per CTA is decode_geometry().smem_bytes; "in flight" is the bytes of B the
// CTA's ring holds once the prologue has issued every stage. A 3 TB/s stream over 132 SMs with
// about 1 us of DRAM latency under load needs some 23 KB in flight per SM, more where fewer
// SMs have work.
inline constexpr DecodeVariant kCatalogRows[] = {
    // 8 columns: the most CTAs for small N (576 columns -> 72 CTAs). A's two slots outweigh B's
    // one, so the ring is deep (144 KB, one CTA per SM) to keep 48 KB of B in flight per CTA.
    {.block_n = 8, .block_k = 128, .num_stages = 6, .num_warps = 4},
    // 16 columns: 64 KB, three CTAs per SM, 32 KB of B in flight each (96 KB per SM).
    {.block_n = 16, .block_k = 64, .num_stages = 4, .num_warps = 4},
    // 32 columns: 96 KB, two CTAs per SM, 64 KB in flight each.
    {.block_n = 32, .block_k = 64, .num_stages = 4, .num_warps = 4},
    // 64 columns: 160 KB, one CTA per SM, 128 KB in flight; eight warps so that each SM
    // sub-partition has two to switch between. The narrowest NN width.
    {.block_n = 64, .block_k = 32, .num_stages = 4, .num_warps = 8},
    // 128 columns: for M = 16, where each CTA re-reading A costs M / block_n of B's bytes in L2
    // traffic. 144 KB, 128 KB in flight.
    {.block_n = 128, .block_k = 32, .num_stages = 4, .num_warps = 4},
    // The same rings as the 16- and 32-column rows with eight warps of half the K each: more
    // warps to hide the shared-memory and mma latencies against fewer, longer ones.
    {.block_n = 16, .block_k = 32, .num_stages = 4, .num_warps = 8},
    {.block_n = 32, .block_k = 32, .num_stages = 4, .num_warps = 8},
};

constexpr bool decode_layout_ok(DecodeVariant const& v, Layout layout) {
  return layout == Layout::kTN || v.block_n % 64 == 0;
}

// The (accumulation, element type) pairs each row compiles: bf16 accumulates in fp32 only.
inline constexpr std::pair<Accum, DType> kCatalogTypes[] = {
    {Accum::kF32, DType::kF16}, {Accum::kF32, DType::kBF16}, {Accum::kF16, DType::kF16}};

constexpr std::size_t catalog_size() {
  std::size_t n = 0;
  for (DecodeVariant const& row : kCatalogRows)
    for (Layout layout : {Layout::kNN, Layout::kTN})
      n += decode_layout_ok(row, layout) ? std::size(kCatalogTypes) : 0;
  return n;
}

// The rows expanded, in the order catalog() lists them: per row, fp32 accumulation (fp16, then
// bf16 elements) before fp16, then NN (where legal) before TN.
inline constexpr std::array<DecodeVariant, catalog_size()> kCatalog = [] {
  std::array<DecodeVariant, catalog_size()> out{};
  std::size_t i = 0;
  for (DecodeVariant const& row : kCatalogRows)
    for (auto [accum, dtype] : kCatalogTypes)
      for (Layout layout : {Layout::kNN, Layout::kTN}) {
        if (!decode_layout_ok(row, layout)) continue;
        out[i] = row;
        out[i].accum = accum;
        out[i].dtype = dtype;
        out[i].layout = layout;
        ++i;
      }
  return out;
}();

static_assert(all_distinct(kCatalog), "every decode catalog entry is a distinct variant");

}  // namespace hgemm::decode
