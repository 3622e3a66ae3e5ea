// The sm90 catalog: every sm90 kernel compiled into the library, in one list. A row is a tile
// variant; it is compiled for both layouts (NN, TN) and for fp32 and fp16 accumulation, or for
// fp16 alone where fp32 accumulators would not fit; every fp32 instance also for bf16 elements
// (bf16 accumulates in fp32 only). The build splits the expanded list into
// translation units (launch/sm90_catalog_shard.cuh); docs/design.md says how to add a row.
#pragma once

#include <array>
#include <cstddef>

#include "core/kernel_variant.hpp"

namespace hgemm::sm90 {

struct CatalogRow {
  Sm90Variant variant;  // accum and layout are expanded, their values here are ignored
  bool fp16_only = false;
  // Also compile the general flavour (strided batches and beta * C; Sm90Variant::general) and
  // its twin for a column-major A, for every accumulation, element type and layout the row has.
  // A few tiles, from one-tile heads to large ones, not all: each flavour is one more kernel to
  // build. Calls that need it (sm90_needs_general) run on these alone; a column-major A
  // (sm90_needs_flavour) on these and the swap-AB rows below.
  bool with_general_flavour = false;
  // Also compile the flavour that splits the last round (Sm90Variant::tail_split), for fp16
  // elements, in each accumulation where its registers allow (sm90_tail_split_ok). The wide
  // tiles dispatch picks for calls of two to four rounds over a long K (dispatch.cpp,
  // splits_last_round), not all: each flavour is one more kernel to build.
  bool with_tail_split = false;
  // Also compile, for a swap-AB row, the plain flavour that reads a column-major A as stored
  // (Sm90Variant::a_mn_major: the kernel's B N-major, in column chunks as NN's B): one matrix,
  // beta 0, K unsplit. Widths of whole 32- or 64-column chunks (32, 96, 160, 192, 224) only:
  // against main's copy into rows or general tile, on an H200, the flavour ran 0.42-0.86 as fast
  // in 16-column chunks (48, 80, 112, 144, 176, 208 tokens: 32-byte swizzle) and 0.99-1.17 per
  // tile in these (docs/notes/2026-12-01-swap-ab-column-major-a.md). One row per tile, not all:
  // each flavour is one more kernel to build, and a sibling of the same tile at another depth or
  // epilogue runs its calls (dispatch's runnable_twin).
  bool with_column_major_a = false;
};

// The field names are spelled out so that a row reads like the config's name.
inline constexpr CatalogRow kCatalogRows[] = {
    // 128x256, two consumer warpgroups of m64n256, cluster 2x1 multicasting B: the large-shape
    // workhorse. With 3 stages the whole C tile is staged for the TMA store and stored at the
    // tile's end; with 4 only two C chunks fit (core/smem_budget.hpp), and the epilogue is
    // deferred into the next tile's first k-block. Which wins depends on the shape
    // (docs/notes/perf-notes.md, steps 6 and 7).
    {{.block_m = 128, .block_n = 256, .block_k = 64, .num_stages = 3, .num_consumer_wgs = 2,
      .cluster_m = 2, .cluster_n = 1, .epilogue = Epilogue::kTmaStore}},
    {.variant = {.block_m = 128, .block_n = 256, .block_k = 64, .num_stages = 4,
                 .num_consumer_wgs = 2, .cluster_m = 2, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore},
     .with_general_flavour = true},

    // 128x128, two consumer warpgroups of m64n128, cluster 1x2 multicasting A: twice the tiles of
    // 128x256 for mid-size shapes where 128x256 leaves SMs idle.
    {{.block_m = 128, .block_n = 128, .block_k = 64, .num_stages = 5, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 2, .epilogue = Epilogue::kTmaStore}},
    // Without a cluster (six stages, direct stores), 128x128 and 128x64 cover all of M = 128 in
    // one tile, so each B byte crosses L2 once: the decode shapes with N >= 12288 (128x128) or
    // N <= 4096 (128x64, split-K).
    {.variant = {.block_m = 128, .block_n = 128, .block_k = 64, .num_stages = 6,
                 .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kDirect},
     .with_general_flavour = true},
    {.variant = {.block_m = 128, .block_n = 64, .block_k = 64, .num_stages = 8,
                 .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kDirect},
     .with_general_flavour = true},
    {{.block_m = 128, .block_n = 96, .block_k = 64, .num_stages = 7, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 2, .epilogue = Epilogue::kDirect}},
    // Seven stages of 128x128 and one consumer warpgroup of 128x64 (two m64 atoms each, eight
    // stages) were found through the JIT on the decode shapes (docs/notes/perf-notes.md, step 13).
    {{.block_m = 128, .block_n = 128, .block_k = 64, .num_stages = 7, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect}},
    {{.block_m = 128, .block_n = 64, .block_k = 64, .num_stages = 8, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect}},

    // 256x128, two consumer warpgroups each owning 128 rows (two m64n128 atoms per k-step),
    // cluster 2x1, direct 16-byte stores: tall tiles for large M with moderate N.
    {.variant = {.block_m = 256, .block_n = 128, .block_k = 64, .num_stages = 4,
                 .num_consumer_wgs = 2, .cluster_m = 2, .cluster_n = 1,
                 .epilogue = Epilogue::kDirect},
     .with_general_flavour = true},

    // 64-row tiles with one consumer warpgroup, for skinny M and for shapes with too few large
    // tiles to fill the GPU: 64x256 (m64n256, TMA store) and 64x128 (six stages, direct stores;
    // the fastest of the family from 512^3 to 1024^3 and on M = 64).
    {.variant = {.block_m = 64, .block_n = 256, .block_k = 64, .num_stages = 4,
                 .num_consumer_wgs = 1, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore},
     .with_general_flavour = true},
    {.variant = {.block_m = 64, .block_n = 128, .block_k = 64, .num_stages = 6,
                 .num_consumer_wgs = 1, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kDirect},
     .with_general_flavour = true},
    // 64x64, eight or thirteen stages, direct stores: cuBLASLt's tile for decode shapes (M = 128,
    // N near 3000-3500), one unsplit CTA per SM without a split-K reduction kernel; cuBLASLt runs
    // it with 13 stages, which gains 3-6% at K <= 4096 and loses at some longer K. Eight stages of
    // 64x128 and clusters of two along M (multicasting B) measured no better on the decode shapes
    // (docs/notes/perf-notes.md, step 12) with eight stages; with twelve, 64x64 in a 2x1 cluster was
    // the fastest at K >= 8192 in the JIT's search (step 13), beside 64x96 (ten stages) and
    // 64x160 (eight).
    {.variant = {.block_m = 64, .block_n = 64, .block_k = 64, .num_stages = 8,
                 .num_consumer_wgs = 1, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kDirect},
     .with_general_flavour = true},
    {{.block_m = 64, .block_n = 64, .block_k = 64, .num_stages = 13, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect}},
    {{.block_m = 64, .block_n = 64, .block_k = 64, .num_stages = 12, .num_consumer_wgs = 1,
      .cluster_m = 2, .cluster_n = 1, .epilogue = Epilogue::kDirect}},
    {{.block_m = 64, .block_n = 96, .block_k = 64, .num_stages = 10, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect}},
    {{.block_m = 64, .block_n = 160, .block_k = 64, .num_stages = 8, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect}},
    // Two consumer warpgroups taking the 64-row tile's k-blocks in turn (sm90_splits_k_blocks):
    // against one warpgroup, 64x96 runs 1024x576x7168 in 21.9 us instead of 24.1 and the swapped
    // 48- and 32-wide tiles 4-14% faster at K >= 768, where tiles of 64 to 168 columns lost 1-25%
    // (docs/notes/2026-11-24-k-block-turns.md). The rows where it won, at the same depth.
    {{.block_m = 64, .block_n = 96, .block_k = 64, .num_stages = 10, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect}},

    // 256x256 for fp16 accumulation only. Half-width accumulators let each consumer warpgroup own
    // 128x256 (two m64n256 atoms, 128 registers), halving the operand traffic per FLOP of
    // 128x256: under the H100's power cap that bought 4-8% at 8192^3 (docs/notes/perf-notes.md).
    {{.block_m = 256, .block_n = 256, .block_k = 64, .num_stages = 3, .num_consumer_wgs = 2,
      .cluster_m = 2, .cluster_n = 1, .epilogue = Epilogue::kDirect},
     true},

    // Ping-pong: each consumer warpgroup computes whole tiles of its own and the two take turns
    // on the tensor cores, so one's epilogue (fp32 -> fp16, stmatrix, TMA store) runs during the
    // other's mainloop. That matters where K is short and the epilogue is a large share of a
    // tile's time (K <= 1024 with large M and N). 128x128 multicasts A over a 1x2 cluster;
    // 128x256 (fp16 accumulators only: 128 registers) multicasts B over a 2x1 cluster. A 64x256
    // ping-pong tile measured 10-20% behind both, and 128x192 (192 fp32 accumulators) behind
    // 128x128 (docs/notes/perf-notes.md, step 7).
    {{.block_m = 128, .block_n = 128, .block_k = 64, .num_stages = 5, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 2, .epilogue = Epilogue::kTmaStore,
      .schedule = Schedule::kPingPong}},
    {{.block_m = 128, .block_n = 256, .block_k = 64, .num_stages = 3, .num_consumer_wgs = 2,
      .cluster_m = 2, .cluster_n = 1, .epilogue = Epilogue::kTmaStore,
      .schedule = Schedule::kPingPong},
     true},

    // Tile widths between the powers of two, so that an N that is no multiple of 256 still fills
    // the last wave. The grid's shapes never let them win, so they reach dispatch through the
    // siblings rule (the cost model swaps a tuned neighbour's block_n for one of these where that
    // fills the SMs better). Measured through the JIT on the LLM shapes (docs/notes/perf-notes.md,
    // step 14): 128x224 at N = 3584 makes 512 tiles in 3.88 waves where 128x256 makes 448 in
    // 3.39 (4096x3584x3584: 0.85 -> 0.95 of cuBLASLt); 128x192 at N = 4608; 128x224 at
    // 128x28672 runs 128 CTAs where 128x256 runs 112.
    {{.block_m = 128, .block_n = 224, .block_k = 64, .num_stages = 3, .num_consumer_wgs = 2,
      .cluster_m = 2, .cluster_n = 1, .epilogue = Epilogue::kTmaStore}},
    // The four-stage 224 and 192 and the 160 below also compile the general flavour, so that a
    // column-major A, beta * C or a batch whose row-major pick is one of them runs that tile
    // (dispatch's runnable_twin) instead of the cost model's pick among the other general
    // tiles: on the H200's held-out fifth 1024x7168x5120 and 2048x3584x14336 ran a
    // column-major A at 0.87-0.93 of the row-major call on 128x256 where the row-major call ran
    // 128x224 (bench/results/2026-11-29-h200-main-suite-and-rows-vector). ptxas: the general
    // 128x224 spills 4 bytes in fp32 (the general 128x256, 8), 128x192 and 128x160 none; the
    // general 192x192 with three warpgroups spilled 32-112 bytes and was left out.
    {.variant = {.block_m = 128, .block_n = 224, .block_k = 64, .num_stages = 4,
                 .num_consumer_wgs = 2, .cluster_m = 2, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore},
     .with_general_flavour = true,
     .with_tail_split = true},
    {{.block_m = 128, .block_n = 192, .block_k = 64, .num_stages = 3, .num_consumer_wgs = 2,
      .cluster_m = 2, .cluster_n = 1, .epilogue = Epilogue::kTmaStore}},
    {.variant = {.block_m = 128, .block_n = 192, .block_k = 64, .num_stages = 4,
                 .num_consumer_wgs = 2, .cluster_m = 2, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore},
     .with_general_flavour = true},
    // The M = 128 decode tiles (one tile covers all of M, direct stores, six stages) in the
    // widths between 128's neighbours, for the siblings rule: 128x96 runs N / 96 CTAs where
    // 128x128 leaves SMs idle (128x9216x3072: 0.91 -> 0.97 of cuBLASLt through the JIT), 128x160
    // where 128x128 needs a second wave (128x37888x3584). docs/notes/perf-notes.md, step 14.
    // 128x112 where N / 112 tiles fill 132 SMs that N / 128 leave a seventh idle: 7168 (64 tiles
    // against 56) and 3584 (32 against 28), cuBLASLt's width at 256x7168x16384 and 500x3584x3584.
    {{.block_m = 128, .block_n = 96, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect}},
    {{.block_m = 128, .block_n = 112, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect}},
    {.variant = {.block_m = 128, .block_n = 160, .block_k = 64, .num_stages = 6,
                 .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kDirect},
     .with_general_flavour = true,
     .with_tail_split = true},

    // Swap-AB, written in the kernel's terms: block_m tiles the problem's N (wgmma's M)
    // and block_n its M (wgmma's N), so a token count lands in a tile of its own width instead of
    // 64-row atoms: 77 in 80, 129 in 144, 333 in 3 x 112, 384 in 2 x 192, 1025 in 5 x 208
    // (cuBLASLt's tiles on those shapes are of these widths, e.g. 64x136 at 129x4608x3584 and
    // 192x208 at 1025x131072x5120). One consumer warpgroup of 64 rows of N where a small M needs
    // many CTAs along N; two of 64 rows each for the wider M. As many stages as fit, up to 12.
    {.variant = {.block_m = 64, .block_n = 32, .block_k = 64, .num_stages = 12,
                 .num_consumer_wgs = 1, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kDirect, .swap_ab = true},
     .with_column_major_a = true},
    {{.block_m = 64, .block_n = 48, .block_k = 64, .num_stages = 12, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {.variant = {.block_m = 64, .block_n = 32, .block_k = 64, .num_stages = 12,
                 .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kDirect, .swap_ab = true},
     .with_column_major_a = true},
    {{.block_m = 64, .block_n = 48, .block_k = 64, .num_stages = 12, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 64, .block_n = 80, .block_k = 64, .num_stages = 10, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 64, .block_n = 112, .block_k = 64, .num_stages = 8, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 64, .block_n = 144, .block_k = 64, .num_stages = 8, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 128, .block_n = 80, .block_k = 64, .num_stages = 8, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 128, .block_n = 112, .block_k = 64, .num_stages = 7, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 128, .block_n = 144, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 128, .block_n = 176, .block_k = 64, .num_stages = 5, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 128, .block_n = 192, .block_k = 64, .num_stages = 5, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 128, .block_n = 208, .block_k = 64, .num_stages = 5, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    // Widths for token counts between the suite's: 320 and 640 are 2 and 4 x 160, 1100 is
    // 5 x 224 (2% padding, against 12-13% in 176 or 208); 288-320 fit 2 x 160 over 64 rows of N
    // where N is too small for 128-row tiles to fill the SMs. On unseen token counts the space's
    // best lagged cuBLASLt by 15-17% at M = 320 and 1100 without them
    // (docs/notes/2026-11-24-dev-set.md).
    {{.block_m = 64, .block_n = 160, .block_k = 64, .num_stages = 8, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 128, .block_n = 160, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 128, .block_n = 224, .block_k = 64, .num_stages = 5, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    // Widths of 8 mod 16 (wgmma's N steps by 8), cuBLASLt's own on these token counts: 37 in
    // 40, 129 in 136, 333 in 2 x 168, 100 in 104 (split three ways over K = 13824). Measured
    // through the JIT against cublaslt-best (docs/notes/2026-11-24-wide-tiles.md): 0.90 -> 0.98,
    // 0.76 -> 0.97, 0.85 -> 0.94, 0.84 -> 1.02.
    {{.block_m = 64, .block_n = 40, .block_k = 64, .num_stages = 12, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    // 16 tokens over 128 rows of N: the decode rule's wider swap-AB tile (dispatch.cpp,
    // small_m_swap_tile), for N where 64-row tiles leave a nearly empty second wave (N = 10240:
    // 160 CTAs of 64 rows ran 14-17% slower than 80 of 128,
    // bench/results/2026-11-29-h200-swap-64-rows). Each CTA reads 256-byte runs of the weights.
    {{.block_m = 128, .block_n = 16, .block_k = 64, .num_stages = 10, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    // 16 and 8 tokens over 64 rows of N, two warpgroups taking the k-blocks in turn: the decode
    // rule's swap-AB tiles (dispatch.cpp, small_m_swap_tile), cuBLASLt's 64x16 and 64x8 at these
    // token counts. Through the JIT on llm-tune's (N, K) pairs against cublaslt-best, f32, best
    // split: M = 12 TN 1.012 (16x128 0.959, 32x64 0.971); M = 1 and 8 NN 1.025 (16x64 0.95-0.96)
    // (bench/results/2026-11-29-h200-swap-64-rows).
    {{.block_m = 64, .block_n = 16, .block_k = 64, .num_stages = 12, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 64, .block_n = 8, .block_k = 64, .num_stages = 12, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 64, .block_n = 136, .block_k = 64, .num_stages = 8, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 64, .block_n = 168, .block_k = 64, .num_stages = 7, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 128, .block_n = 104, .block_k = 64, .num_stages = 7, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},

    // 192 rows: three consumer warpgroups of 64 rows each (512 threads, 152 registers a consumer
    // thread). N = 576 (MLA's low-rank projections) is 3 x 192: 8192x576 in 43 x 3 tiles of
    // 192x192 and 3000x576 in 42 x 3 swapped tiles of 72 tokens run one wave of 126-129 CTAs,
    // where 128-row tiles make 4.5 columns; 1025 tokens are 5 x 208 over 192 rows of N.
    // cuBLASLt runs these tiles there; measured against it through the JIT: 0.72 -> 0.95,
    // 0.63 -> 0.97 and 0.72 -> 0.94 (docs/notes/2026-11-24-wide-tiles.md).
    {{.block_m = 192, .block_n = 192, .block_k = 64, .num_stages = 4, .num_consumer_wgs = 3,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect}},
    {{.block_m = 192, .block_n = 72, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 3,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 192, .block_n = 208, .block_k = 64, .num_stages = 4, .num_consumer_wgs = 3,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    // 80 tokens over 192 rows of N, cuBLASLt's 192x80 where M is 96-300 and the weights stream
    // from DRAM (150x10240x8192, 150x9216x3072, 300x6144x2560); the catalog's best there ran
    // 2-6% slower than it through the JIT
    // (bench/results/2026-11-29-h200-wait-hint-and-clusters/clusters). The dispatch model, never
    // fitted on it, picks it at 16 calls of llm-fresh: 150-300 tokens up to +23%, one token tile
    // (M <= 80) 1-7% slower at five of six (bench/results/2026-11-29-h200-weight-sharing).
    {{.block_m = 192, .block_n = 80, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 3,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    // cuBLASLt's widest swap-AB tiles at 900-2500 tokens, where the wave rule (neighbors.cpp,
    // fit_waves) fits rounds with them: 232 tokens over 128 rows of N (900 = 4 x 225, 2500 over
    // 3072 = 11 x 24 tiles, two rounds) and 96 over 256 (1200 over 5120 = 13 x 20). Through the
    // JIT against cublaslt-best on sixteen llm-fresh shapes
    // (bench/results/2026-11-29-h200-swap-tma-store-8/probe): 900x8192x4608 0.907 -> 0.989 and
    // 2500x3072x8192 0.896 -> 0.992 (232x128, its TMA-store twin), 1200x5120x5120 0.935 -> 1.015
    // (96x256). No spills. 112 over 256 (1200 = 11 x 112 over 3072 = 12 x 256: one round of 132
    // CTAs) stores at the tile's end instead of deferring (kDeferEpilogue), which spilled it in
    // both accumulations; through the JIT its TMA-store twin ran 1.00-1.02 of cublaslt-best at
    // 1200x3072x{3072,8192} NN, where dispatch's 112x128 twin ran 0.91-0.93
    // (bench/results/2026-11-30-h200-swap-112x256).
    {{.block_m = 128, .block_n = 232, .block_k = 64, .num_stages = 4, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 256, .block_n = 96, .block_k = 64, .num_stages = 4, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 256, .block_n = 112, .block_k = 64, .num_stages = 4, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    // cuBLASLt's tiles at llm-fresh's worst calls below 1024 tokens, which the catalog lacked:
    // 104 tokens over 64 rows of N (300x2560x4096: 3 x 40 tiles), 232 over 64 (900x2048x8192:
    // 4 x 32), 152 over 128 (900x5120x2880: 6 x 40) and 96 over 192 (96x24576x4096: 128 tiles).
    // Through the JIT with TMA stores against cublaslt-best: 0.99-1.02, 1.00, 0.98-1.01 and
    // 0.99-1.00, where dispatch ran 0.81-0.83, 0.89-0.91, 0.92-0.95 and 0.87
    // (bench/results/2026-11-29-h200-swap-tma-store-8/probe-cublas-tiles). No spills.
    {{.block_m = 64, .block_n = 104, .block_k = 64, .num_stages = 10, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 64, .block_n = 232, .block_k = 64, .num_stages = 5, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 128, .block_n = 152, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 192, .block_n = 96, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 3,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    // 96 and 120 tokens over 128 rows of N, for 400-511 tokens: 5 x 96 and 4 x 120 cover 450-480
    // closer than 4 x 128 and fill one round over N of 3072-4096 (cuBLASLt's 128x96 and 128x120
    // there). Through the JIT with TMA stores against cublaslt-best at 450-480 tokens, both
    // layouts (bench/results/2026-11-30-h200-probe-400): 120 at 450x4096 1.02-1.03, where the
    // catalog's best ran 0.95-0.96; 96 at 450-480 over N = 3072-6144 1.01-1.08, where it ran
    // 0.94-1.02. Compiled, 15 of the 16 llm calls dispatch moved to them ran faster
    // (bench/results/2026-11-30-h200-twins-below-512).
    {{.block_m = 128, .block_n = 96, .block_k = 64, .num_stages = 8, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 128, .block_n = 120, .block_k = 64, .num_stages = 7, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    // The swap-AB tiles of 80 tokens and more that dispatch picks, storing C through TMA: each
    // warpgroup writes its accumulators transposed (stmatrix .trans) into C-oriented
    // 128-byte-swizzled boxes that one TMA store puts in C's rows, where the direct stores write
    // each C row half a sector per instruction. Each runs its direct-store tile's ring, or the
    // deepest that fits beside the staging; widths of an odd number of 16-token groups (80, 112,
    // 144, 176, 208) one stage less than that, so that the whole tile is staged (as 8 mod 16
    // widths are, core/smem_budget.hpp): double-buffered, they waited on 5-13 chunk stores a
    // tile, and their per-slot rate ran 5-15% below 152x128's
    // (bench/results/2026-11-30-h200-odd-width-charge/probe); one stage shallower, the 133 calls
    // of the suites and a prefill probe that run them went 5.7% faster against cublaslt-best
    // (bench/results/2026-11-30-h200-whole-16-twins/ab). Against each st twin, interleaved
    // (bench/results/2026-11-29-h200-swap-tma-store): 1.036 (fp32) and 1.034 (fp16) over twelve
    // shapes, 300x50264x768 1.19-1.21, 300x2048x8192 1.03-1.08, none below 0.976. Dispatch
    // reaches them through its TMA-store rule (neighbors.cpp, store_through_tma), not as
    // candidates of their own.
    {{.block_m = 64, .block_n = 80, .block_k = 64, .num_stages = 10, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {{.block_m = 64, .block_n = 112, .block_k = 64, .num_stages = 8, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {{.block_m = 64, .block_n = 144, .block_k = 64, .num_stages = 7, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {{.block_m = 64, .block_n = 160, .block_k = 64, .num_stages = 7, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {{.block_m = 128, .block_n = 80, .block_k = 64, .num_stages = 7, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {{.block_m = 128, .block_n = 112, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {{.block_m = 128, .block_n = 144, .block_k = 64, .num_stages = 5, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {.variant = {.block_m = 128, .block_n = 160, .block_k = 64, .num_stages = 5,
                 .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore, .swap_ab = true},
     .with_tail_split = true,
     .with_column_major_a = true},
    {{.block_m = 128, .block_n = 176, .block_k = 64, .num_stages = 4, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {.variant = {.block_m = 128, .block_n = 192, .block_k = 64, .num_stages = 4,
                 .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore, .swap_ab = true},
     .with_column_major_a = true},
    {{.block_m = 128, .block_n = 208, .block_k = 64, .num_stages = 4, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {.variant = {.block_m = 128, .block_n = 224, .block_k = 64, .num_stages = 4,
                 .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore, .swap_ab = true},
     .with_column_major_a = true},
    {{.block_m = 192, .block_n = 80, .block_k = 64, .num_stages = 5, .num_consumer_wgs = 3,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {{.block_m = 192, .block_n = 208, .block_k = 64, .num_stages = 4, .num_consumer_wgs = 3,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    // Widths of 8 mod 16 stage C 8 rows at a time (stmatrix .x2 .trans), the whole tile: 104x128
    // at one stage less than its direct stores. Against each st twin over nineteen calls of the
    // llm suites (bench/results/2026-11-29-h200-swap-tma-store-8): 104 1.047, 72 1.085, 136 1.036,
    // 40 1.022.
    {{.block_m = 64, .block_n = 40, .block_k = 64, .num_stages = 12, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {{.block_m = 64, .block_n = 136, .block_k = 64, .num_stages = 8, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {.variant = {.block_m = 128, .block_n = 104, .block_k = 64, .num_stages = 6,
                 .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore, .swap_ab = true},
     .with_tail_split = true},
    {{.block_m = 192, .block_n = 72, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 3,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {{.block_m = 128, .block_n = 232, .block_k = 64, .num_stages = 3, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {.variant = {.block_m = 256, .block_n = 96, .block_k = 64, .num_stages = 4,
                 .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore, .swap_ab = true},
     .with_column_major_a = true},
    {{.block_m = 256, .block_n = 112, .block_k = 64, .num_stages = 4, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {{.block_m = 64, .block_n = 104, .block_k = 64, .num_stages = 10, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {{.block_m = 64, .block_n = 232, .block_k = 64, .num_stages = 5, .num_consumer_wgs = 1,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    {.variant = {.block_m = 128, .block_n = 152, .block_k = 64, .num_stages = 5,
                 .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore, .swap_ab = true},
     .with_tail_split = true},
    {.variant = {.block_m = 192, .block_n = 96, .block_k = 64, .num_stages = 5,
                 .num_consumer_wgs = 3, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore, .swap_ab = true},
     .with_column_major_a = true},
    {.variant = {.block_m = 128, .block_n = 96, .block_k = 64, .num_stages = 7,
                 .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1,
                 .epilogue = Epilogue::kTmaStore, .swap_ab = true},
     .with_column_major_a = true},
    {{.block_m = 128, .block_n = 120, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 1, .epilogue = Epilogue::kTmaStore, .swap_ab = true}},
    // The same 80-token tiles with the weight tile multicast to a pair of token tiles (kernel
    // cluster_n 2, the problem's cluster_m): each weight byte crosses L2 once for two token
    // tiles, as in cuBLASLt's clusters (in NN each CTA loads half of every M-major chunk's
    // k-rows). Dispatch's weight-sharing rule (neighbors.cpp, share_weights) picks them; see
    // there for where they win.
    {{.block_m = 128, .block_n = 80, .block_k = 64, .num_stages = 8, .num_consumer_wgs = 2,
      .cluster_m = 1, .cluster_n = 2, .epilogue = Epilogue::kDirect, .swap_ab = true}},
    {{.block_m = 192, .block_n = 80, .block_k = 64, .num_stages = 6, .num_consumer_wgs = 3,
      .cluster_m = 1, .cluster_n = 2, .epilogue = Epilogue::kDirect, .swap_ab = true}},
};

// Which (accumulation, element type) instances a row compiles, each in both layouts: fp16-only
// rows skip fp32, bf16 accumulates in fp32 only. Swap-AB rows compile NN too, where the swapped A
// (the problem's K x N B) is read M-major: an NN call at a token count runs the same tile as its
// TN twin.
constexpr bool row_compiles(CatalogRow const& row, Accum accum, DType dtype) {
  return !(row.fp16_only && accum == Accum::kF32) &&
         !(dtype == DType::kBF16 && accum != Accum::kF32);
}

inline constexpr Accum kCatalogAccums[] = {Accum::kF32, Accum::kF16};
inline constexpr DType kCatalogDTypes[] = {DType::kF16, DType::kBF16};
inline constexpr Layout kCatalogLayouts[] = {Layout::kNN, Layout::kTN};

constexpr std::size_t catalog_size() {
  std::size_t n = 0;
  for (CatalogRow const& row : kCatalogRows)
    for (Accum accum : kCatalogAccums)
      for (DType dtype : kCatalogDTypes)
        if (row_compiles(row, accum, dtype)) n += std::size(kCatalogLayouts);
  return n;
}

// The rows expanded, in the order catalog() lists them: per row, each accumulation (fp32 first),
// fp16 before bf16, then NN before TN.
inline constexpr std::array<Sm90Variant, catalog_size()> kCatalog = [] {
  std::array<Sm90Variant, catalog_size()> out{};
  std::size_t i = 0;
  for (CatalogRow const& row : kCatalogRows)
    for (Accum accum : kCatalogAccums)
      for (DType dtype : kCatalogDTypes)
        for (Layout layout : kCatalogLayouts) {
          if (!row_compiles(row, accum, dtype)) continue;
          out[i] = row.variant;
          out[i].accum = accum;
          out[i].dtype = dtype;
          out[i].layout = layout;
          ++i;
        }
  return out;
}();

// Each row expands into distinct (accumulation, element type, layout) instances, so distinct rows
// (compared without those three) give a catalog of distinct variants. Pairs of rows, not of the
// ~540 instances: the instances' pairs exceed nvcc's constexpr step limit.
constexpr bool rows_distinct() {
  for (std::size_t i = 0; i < std::size(kCatalogRows); ++i)
    for (std::size_t j = i + 1; j < std::size(kCatalogRows); ++j) {
      Sm90Variant a = kCatalogRows[i].variant;
      Sm90Variant const& b = kCatalogRows[j].variant;
      a.accum = b.accum;
      a.dtype = b.dtype;
      a.layout = b.layout;
      if (a == b) return false;
    }
  return true;
}

static_assert(rows_distinct(), "every sm90 catalog row is a distinct tile");

// Whether v's tile (its catalog row, whatever its accumulation, element type, layout and
// flavour) also compiles the general flavour (CatalogRow::with_general_flavour).
constexpr bool same_tile(Sm90Variant a, Sm90Variant const& b) {
  a.accum = b.accum;
  a.dtype = b.dtype;
  a.layout = b.layout;
  a.general = b.general;
  a.a_mn_major = b.a_mn_major;
  a.tail_split = b.tail_split;
  return a == b;
}

constexpr bool has_general_flavour(Sm90Variant const& v) {
  for (CatalogRow const& row : kCatalogRows)
    if (row.with_general_flavour && same_tile(row.variant, v)) return true;
  return false;
}

// Whether v's instance also compiles a flavour that reads a column-major A as stored: the
// general flavour's twin (CatalogRow::with_general_flavour), or a swap-AB row's plain one
// (CatalogRow::with_column_major_a).
constexpr bool has_column_major_flavour(Sm90Variant const& v) {
  for (CatalogRow const& row : kCatalogRows)
    if ((row.with_general_flavour || row.with_column_major_a) && same_tile(row.variant, v))
      return true;
  return false;
}

// Whether a sibling of v's tile at any depth, epilogue or cluster (dispatch's runnable_twin)
// compiles such a flavour: a few dozen rows compared, where asking the registry's instances costs a
// call microseconds.
constexpr bool tile_has_column_major_flavour(Sm90Variant const& v) {
  for (CatalogRow const& row : kCatalogRows) {
    Sm90Variant sibling = row.variant;
    sibling.num_stages = v.num_stages;
    sibling.epilogue = v.epilogue;
    sibling.cluster_m = v.cluster_m;
    sibling.cluster_n = v.cluster_n;
    if ((row.with_general_flavour || row.with_column_major_a) && same_tile(sibling, v)) return true;
  }
  return false;
}

constexpr bool column_major_rows_are_swap_ab() {
  for (CatalogRow const& row : kCatalogRows)
    if (row.with_column_major_a &&
        (!row.variant.swap_ab || row.with_general_flavour || row.variant.block_n % 32 != 0))
      return false;
  return true;
}
static_assert(column_major_rows_are_swap_ab(),
              "with_column_major_a is for swap-AB rows of widths that are multiples of 32, "
              "without a general flavour");

// Whether v's instance also compiles the last round's split (CatalogRow::with_tail_split).
constexpr bool has_tail_split_flavour(Sm90Variant v) {
  v.general = false;
  v.a_mn_major = false;
  v.tail_split = true;
  if (v.dtype != DType::kF16 || !sm90_tail_split_ok(v)) return false;
  for (CatalogRow const& row : kCatalogRows)
    if (row.with_tail_split && same_tile(row.variant, v)) return true;
  return false;
}

}  // namespace hgemm::sm90
