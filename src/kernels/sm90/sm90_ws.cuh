// sm90 warp-specialized persistent GEMM: TMA loads, WGMMA math, one body for the whole family.
//   Arch: sm_90a only (wgmma, setmaxnreg, TMA multicast).
//   Layouts: A M x K row-major (K-major). B N x K row-major (TN, K-major) or K x N row-major (NN,
//   N-major, read through the descriptor's transpose bit). C M x N row-major. fp16 in and out
//   with fp32 or fp16 accumulation, or bf16 in and out with fp32 accumulation.
//   Roles: warpgroup 0 is the producer (one thread issues all TMA loads into a kNumStages ring,
//   the warpgroup gives its registers away); warpgroups 1..kNumConsumerWgs run wgmma over the
//   ring, then the epilogue (stmatrix -> swizzled smem chunk buffers -> TMA store, or 16-byte
//   direct stores), where registers allow deferred into the next tile's mainloop (a TMA store
//   one chunk per k-block). Cooperative: each consumer owns BM / kNumConsumerWgs rows of every
//   tile; on a 64-row tile two consumers own all of it and take its k-blocks in turn, the
//   second's sums added to the first's through shared memory before the first's epilogue.
//   Ping-pong: the two consumers take the CTA's work units in turn, each a whole tile, and their
//   mainloops alternate on the tensor cores (two named barriers pass the turn), so one's
//   epilogue overlaps the other's mainloop; the producer fills the ring unit after unit.
//   Pipeline: a full/empty mbarrier pair per stage. In a cluster (up to 4 CTAs a side, 8 in all)
//   the CTAs that share an operand tile each load a part of it and multicast it to the others, so
//   a slot is free only once the consumers of every CTA of the cluster released it (a CTA's peers
//   along both sides write into its slots; releasing to all is the simple superset).
//   Schedule: persistent; cluster c computes work units c, c + G, ...; a unit is a cluster tile
//   of a grouped raster and, with split-K, one of the K-splits of that tile.
//   Split-K: a unit of split s covers k-blocks [s * k_blocks_per_split, ...) and stores its fp32
//   sums into partial buffer s; splitk_reduce_kernel (kernels/common) adds the buffers into C.
//   The last round's split (split_k 0): after the whole tiles of the full rounds, the tiles left
//   over are cut into k-aligned pieces taken by the clusters that would idle (kernels::WorkQueue);
//   a piece is stored to the workspace as the registers hold it, each consumer warpgroup counts
//   itself in on its rows' counter, and the last to arrive adds the pieces in k order (bitwise
//   repeatable) and runs the epilogue. No second kernel.
//   Swap-AB: the launcher passes B as the kernel's A and A as its B, with M and N exchanged, so
//   that a small M lands on wgmma's N (any multiple of 8) instead of filling a 64-row atom (in
//   NN the kernel's A, the problem's K x N B, is read M-major as a column-major A is; in the
//   flavour for a column-major A the kernel's B, that A, is read N-major as NN's B is); the
//   epilogue writes the kernel's (N x M) tile transposed into C and the split-K partials in C's
//   own orientation, so the reduction is the unswapped one.
//   Epilogue ops (Params::epilogue, when set; fp32 accumulation only): act(alpha * acc + beta * C
//   + bias) per element in fp32 before the rounding; with split-K the reduction applies them.
//   Batches: strided batches are the outermost index of the work units (tiles, then splits, then
//   batches), and the tensor maps of a batched call are 3-D (column, row, batch), so a batch is
//   one more TMA coordinate; an A or B shared by every batch (stride 0) is loaded at batch 0.
//   One matrix keeps 2-D maps and loads: with 3-D boxes of depth 1 the small grid shapes took
//   0.5 us longer (docs/notes/2026-11-24-batches-and-beta.md). Batches and beta * C are compiled
//   only into the general flavour (Traits::kGeneral): in the plain one, the kernel the tables
//   time, the same code at run time still cost the small shapes 6%.
//   Limits: 16-B aligned A, B, C and row strides that are multiples of 8 elements (K % 8 == 0,
//   N % 8 == 0); any M, N, K >= 1 otherwise: TMA zero-fills loads and clips stores at residues.
#pragma once

#include <cstdint>
#include <cstdio>
#include <type_traits>

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "core/kernel_variant.hpp"
#include "core/smem_budget.hpp"
#include "hgemm/hgemm.hpp"
#include "kernels/common/epilogue.cuh"
#include "kernels/common/pipeline.cuh"
#include "kernels/common/swizzle.hpp"
#include "kernels/common/tile_scheduler.hpp"
#include "ptx/barrier.cuh"
#include "ptx/fence.cuh"
#include "ptx/griddepcontrol.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/setmaxnreg.cuh"
#include "ptx/stmatrix.cuh"
#include "ptx/tma.cuh"
#include "ptx/wgmma.cuh"

namespace hgemm::sm90 {

// Everything the kernel reads at run time. The launcher encodes the tensor maps with the boxes of
// sm90_geometry (core/kernel_variant.hpp), which Traits reads too (kABox*, kBBox*, kCBox*).
struct Params {
  // With batches > 1 each map has a third dimension, the batch, and boxes of depth 1.
  CUtensorMap tma_a;  // A as (K, M), box (BK, BM / cluster_n)
  CUtensorMap tma_b;  // TN: B as (K, N), box (BK, BN / cluster_m)
                      // NN: B as (N, K), box (chunk, BK / cluster_m)
  CUtensorMap tma_c;  // TMA-store epilogue only: C as (N, M), box (chunk, rows per warpgroup)
  CUtensorMap tma_b_tail;  // NN with a tail chunk (Traits::kBTail): B as (N, K), box (32, BK)
  uint16_t* c;        // fp16 or bf16 elements, as the variant's dtype says
  int64_t ldc;        // C's row stride in elements (a multiple of 8), for the direct stores
  // Strided batches: batch b of C starts at c + b * batch_stride_c; A and B are read at batch b
  // through 3-D maps, or where batched_a / batched_b is 0 (one batch, or one matrix shared by
  // every batch) through 2-D maps.
  int batches;
  int64_t batch_stride_c;
  int batched_a;
  int batched_b;
  // The kernel's M and N: the problem's, or with swap-AB its N and M (C is then m columns wide).
  int m;
  int n;
  int k;
  int num_k_blocks;
  kernels::TileScheduler scheduler;
  // Split-K (num_splits > 1): split s writes partial + s * rows * partial_ld (fp32, row stride
  // partial_ld, C's rows and orientation also with swap-AB) instead of C.
  int num_splits;
  // Divides work units by the units of one batch (cluster tiles x splits).
  kernels::FastDivisor units_per_batch;
  int k_blocks_per_split;
  float* partial;
  int64_t partial_ld;
  // Deferred TMA-store epilogue: 1 stores one chunk of the previous tile after each of the next
  // tile's k-blocks; 0 stores them all after its first k-block, or at the tile's end when the
  // whole tile is staged.
  int spread_epilogue;
  // alpha, bias and activation, applied to each tile before its rounding, the tanh GELU just
  // after it where Traits::kGeluOnPairs (not to split-K's partials: the reduction applies them;
  // to a last-round tile's sums, not to its pieces). The bias is per column of C: with swap-AB,
  // per row of the kernel's tile.
  kernels::EpilogueParams epilogue;
  // Programmatic dependent launch: 1 lets the next kernel in the stream launch once every CTA's
  // producer has issued its last load, 0 once every CTA's consumers have finished the mainloop
  // of their last tile (the launcher's choice: sm90_early_dependents, launch/sm90_launch.hpp).
  int early_dependents;
  // The flavour that splits the last round (Traits::kTailSplit) alone reads these. They come
  // last and fit the padding (760 of the 768 bytes, of which the fields above use 732), so that
  // the other kernels' parameters are what they were without the split: the whole units, then
  // the pieces of the tiles past the last whole round (kernels::WorkQueue; no pieces unless the
  // config's split_k is 0); and its scratch: one arrival counter per split tile, CTA rank and
  // band, zero at the launch (sm90_tail_counter_bytes), then the partial tiles
  // (detail::Fragments; slot s of CTA rank r at (s * cluster size + r) * BM * BN words).
  kernels::WorkQueue queue;
  int* tail_scratch;
};

// Compile-time shape of one instantiation. Every number the launcher also needs comes from
// sm90_geometry (core/kernel_variant.hpp), the one function the launcher and the JIT use too.
template <Sm90Variant kVariant>
struct Traits {
  static constexpr Sm90Geometry kGeometry = sm90_geometry(kVariant);
  static constexpr int kBlockM = kVariant.block_m;
  static constexpr int kBlockN = kVariant.block_n;
  static constexpr int kBlockK = kVariant.block_k;
  static constexpr int kNumStages = kVariant.num_stages;
  static constexpr int kNumConsumerWgs = kVariant.num_consumer_wgs;
  static constexpr int kClusterM = kVariant.cluster_m;
  static constexpr int kClusterN = kVariant.cluster_n;
  static constexpr Epilogue kEpilogue = kVariant.epilogue;
  static constexpr Accum kAccum = kVariant.accum;
  static constexpr Layout kLayout = kVariant.layout;
  static constexpr Schedule kSchedule = kVariant.schedule;
  static constexpr bool kPingPong = kGeometry.ping_pong;
  static constexpr bool kSwapAB = kVariant.swap_ab;
  static constexpr bool kBF16 = kVariant.dtype == DType::kBF16;
  static constexpr DType kDType = kVariant.dtype;
  // The general flavour also runs strided batches and beta * C; the plain one is the kernel the
  // tables time, with none of that code (Sm90Variant::general).
  static constexpr bool kGeneral = kVariant.general;
  // A read M-major (column-major A): a flavour of the general kernel (Sm90Variant::a_mn_major).
  static constexpr bool kAKMajor = kGeometry.a_k_major;

  static constexpr bool kTmaStore = kGeometry.tma_store;
  // The flavour that splits the last round (Sm90Variant::tail_split); the others have none of
  // its code.
  static constexpr bool kTailSplit = kGeometry.tail_split;
  static_assert(!kTailSplit || sm90_tail_split_ok(kVariant),
                "the last round's split spills this tile's accumulators (sm90_tail_split_ok)");
  static constexpr bool kAccF32 = kAccum == Accum::kF32;
  static constexpr bool kBKMajor = kGeometry.b_k_major;
  static constexpr int kClusterSize = kGeometry.cluster_size;
  static constexpr int kNumThreads = kGeometry.num_threads;

  // Each consumer warpgroup owns kWgRows rows of a tile: kWgAtomsM m64 atoms of width BN.
  static constexpr int kWgRows = kGeometry.wg_rows;
  // Two warpgroups on a 64-row tile take its k-blocks in turn (sm90_splits_k_blocks): the first
  // owns even k-blocks and the epilogue, the second odd ones, its sum passed through `reduce`.
  static constexpr bool kSplitKBlocks = kGeometry.split_k_blocks;
  // The first row of a tile a consumer warpgroup owns is consumer_wg * kWgRowStep.
  static constexpr int kWgRowStep = kPingPong || kSplitKBlocks ? 0 : kWgRows;
  // Consumer warps that release each ring slot (of every CTA of the cluster).
  static constexpr int kSlotConsumerWarps = kGeometry.slot_consumer_warps;
  static constexpr int kWgAtomsM = kWgRows / 64;
  using AccReg = typename ptx::WgmmaSS<kBlockN, kAccF32>::Reg;
  static constexpr int kAccRegs = ptx::WgmmaSS<kBlockN, kAccF32>::kRegs;  // per m64 atom
  // NOTE: ptxas checks each instruction against the kernel's entry cap, not the registers
  // setmaxnreg gives the consumers: with 512 threads (128 at entry) an m64n208 fp32 wgmma, 104
  // accumulators, is refused (C7602). Such a tile issues two wgmma of half its width, whose
  // accumulators lie in the same registers in the same order as the one wide atom's.
  static constexpr int kWgmmaPerAtom = kNumConsumerWgs == 3 && kAccRegs > 96 ? 2 : 1;
  // The tanh GELU on C's rounded pairs (gelu_tanh_tile), or on the fp32 accumulators before the
  // rounding (apply_epilogue): under that same entry cap the pairs' temporaries beside the packed
  // tile spilled the three-warpgroup tiles 68-212 bytes, in every call, GELU or not.
  static constexpr bool kGeluOnPairs = kNumConsumerWgs != 3;
  // The bias read as words while the last k-block's wgmma run (detail::BiasWords), where the
  // words fit beside the accumulators under ptxas's entry cap with room for the epilogue's own
  // registers (fewer with a TMA store than with direct ones), and in the general flavour, whose
  // batch and beta code holds more, at most 128 together. ptxas -v: the ping-pong 128x128 (128
  // accumulators + 16 words of 168) does not spill; 256x128 (128 + 16, direct stores), 128x256
  // (128 + 32), 192x192 with three warpgroups (96 + 24 of 128) and the general 64x256 (128 + 32
  // of 255) spilled.
  static constexpr int kAccAndBiasRegs = kWgAtomsM * kAccRegs + kBlockN / 8;
  static constexpr bool kBiasWords =
      kAccF32 && !kSwapAB &&
      kAccAndBiasRegs <= sm90_entry_regs(kNumConsumerWgs) - (kTmaStore ? 24 : 48) &&
      (!kGeneral || kAccAndBiasRegs <= 128);
  static constexpr int kWgmmaN = kBlockN / kWgmmaPerAtom;
  using Mma = ptx::WgmmaSS<kWgmmaN, kAccF32>;
  static_assert(kWgmmaN % 8 == 0 && Mma::kRegs * kWgmmaPerAtom == kAccRegs,
                "the split wgmma cover the atom's accumulators");
  static_assert(kWgmmaPerAtom == 1 || kGeometry.b_k_major,
                "a split atom takes column parts of a K-major B tile");

  static_assert(kBlockM == 64 || kBlockM == 128 || kBlockM == 192 || kBlockM == 256,
                "block_m is 64, 128, 192 or 256");
  static_assert(kBlockN % 8 == 0 && kBlockN >= 8 && kBlockN <= 256,
                "block_n is a multiple of 8 up to 256");
  static_assert(kBlockN % 16 == 0 || (kBKMajor && (!kTmaStore || kSwapAB)),
                "a block_n of 8 mod 16 needs a K-major B and direct stores, or swap-AB's TMA "
                "store of 8 rows of C a chunk (stmatrix and N-major chunks come in 16 columns)");
  static_assert(kBlockK == 32 || kBlockK == 64, "block_k is 32 or 64 (one 64B/128B swizzle row)");
  static_assert(kNumStages >= 2 && kNumStages <= 16, "2..16 stages");
  static_assert(kNumConsumerWgs >= 1 && kNumConsumerWgs <= 3, "1 to 3 consumer warpgroups");
  static_assert(kWgRows == 64 || kWgRows == 128, "a consumer warpgroup owns 64 or 128 rows");
  static_assert(!kPingPong || kNumConsumerWgs == 2, "ping-pong alternates two warpgroups");
  static_assert(sm90_cluster_dim_ok(kClusterM) && sm90_cluster_dim_ok(kClusterN) &&
                    kClusterSize <= kSm90MaxClusterSize,
                "cluster sides are 1, 2 or 4, at most 8 CTAs (sm90_cluster_dim_ok)");
  static_assert(sm90_cluster_parts_ok(kBlockM, kBlockN, kBlockK, kClusterM, kClusterN,
                                      kGeometry.a_k_major, kGeometry.b_k_major),
                "each CTA multicasts whole 8-row swizzle atoms (sm90_cluster_parts_ok)");
  static_assert(kWgAtomsM * kAccRegs <= sm90_max_acc_regs(kNumConsumerWgs),
                "accumulators within the consumers' registers (sm90_max_acc_regs)");
  static_assert(!kBF16 || kAccF32, "bf16 accumulates in fp32 only");
  static_assert(kAKMajor || kGeneral || kSwapAB,
                "M-major A is the general kernel's column-major A or swap-AB's NN B");
  static_assert(kBKMajor || !kSwapAB || (!kGeneral && kVariant.a_mn_major),
                "swap-AB reads an N-major B (a column-major A) in its plain flavour only");

  // A (and B in TN) tiles: BK halves per row = one swizzle line of BK * 2 bytes. M-major A:
  // BM / 64 chunks of 64 rows, each BK k-rows of 128 bytes; a chunk is one m64 atom's A, and it
  // takes as many bytes (64 * BK * 2) as 64 K-major rows, so atoms sit at the same offsets.
  static constexpr int kAChunk = kGeometry.a_chunk;
  static constexpr int kASwizzle = kGeometry.a_swizzle;
  static constexpr int kATileBytes = kBlockM * kBlockK * 2;
  static constexpr int kAChunkBytes = kBlockK * kAChunk * 2;  // M-major only
  // B in NN is N-major: column chunks, each BK rows of kBChunk halves, and where BN is 64 q + 32
  // after the q chunks of 64 a tail chunk of kBTail = 32 (64-byte swizzle), read by a wgmma of its
  // own into the atom's last accumulators.
  static constexpr int kBChunk = kGeometry.b_chunk;
  static constexpr int kBSwizzle = kGeometry.b_swizzle;
  static constexpr int kBTail = kGeometry.b_tail;
  static constexpr int kBTailSwizzle = kGeometry.b_tail_swizzle;
  static constexpr int kBMainN = kBlockN - kBTail;  // columns in chunks of kBChunk
  static_assert(kBTail == 0 || (!kGeometry.b_k_major && kWgmmaPerAtom == 1 && kBMainN % 64 == 0),
                "a tail chunk follows whole 64-column chunks of an N-major B");
  using MmaMain = ptx::WgmmaSS<(kBTail > 0 ? kBMainN : kBlockN), kAccF32>;
  using MmaTail = ptx::WgmmaSS<(kBTail > 0 ? kBTail : kBlockN), kAccF32>;
  static_assert(kBTail == 0 || MmaMain::kRegs + MmaTail::kRegs == kAccRegs,
                "the main and tail wgmma cover the atom's accumulators");
  static constexpr int kBTileBytes = kBlockN * kBlockK * 2;
  static constexpr int kBChunkBytes = kBlockK * kBChunk * 2;  // NN only
  static constexpr uint32_t kStageBytes = kATileBytes + kBTileBytes;

  // TMA boxes: in a cluster, each CTA's part of the operand tile it multicasts.
  static constexpr int kABoxInner = kGeometry.a_box_inner;
  static constexpr int kABoxOuter = kGeometry.a_box_outer;
  static constexpr int kBBoxInner = kGeometry.b_box_inner;
  static constexpr int kBBoxOuter = kGeometry.b_box_outer;

  // C staging for the TMA store (core/smem_budget.hpp): each warpgroup converts its
  // (kWgRows x BN) piece one column chunk of kCChunk halves at a time into swizzled smem buffers
  // and stores each chunk with one TMA box. With kCBuffers == kCChunks the whole tile is staged:
  // the epilogue never waits for a store of its own tile, and the stores drain during the next
  // tile's mainloop. With two buffers (when the operand ring leaves no room for the tile), a
  // chunk's stmatrix overlaps the previous chunk's store and waits for the one before it.
  static constexpr Sm90SmemPlan kSmemPlan = kGeometry.smem;
  static constexpr int kCChunk = kGeometry.c_chunk;
  static constexpr int kCSwizzle = kGeometry.c_swizzle;
  static constexpr int kCChunks = kBlockN / kCChunk;
  static constexpr int kCBuffers = kTmaStore ? kSmemPlan.staging_buffers : 1;
  static constexpr bool kCWholeTile = kCBuffers == kCChunks;
  static constexpr int kCBufferBytes = kWgRows * kCChunk * 2;
  // Warpgroups that stage C: each cooperative one its rows, each ping-pong one its own tiles.
  static constexpr int kStoringWgs = kSplitKBlocks ? 1 : kNumConsumerWgs;
  static constexpr int kCStagingBytes = kStoringWgs * kCBuffers * kCBufferBytes;
  static constexpr int kCBoxInner = kGeometry.c_box_inner;
  static constexpr int kCBoxOuter = kGeometry.c_box_outer;

  // The tile converted to C's element pairs: packed[mt][2 * j + upper] holds 8-column group j of
  // atom mt, rows 0-7 (upper = 0) or 8-15 (upper = 1) of each warp's 16, as one half2 (bf16x2).
  static constexpr int kPackedRegs = kBlockN / 4;  // per atom
  // Deferred epilogue: a tile's fp16 results wait in registers until the next tile's first
  // k-block is issued, and are stored while the next tile's wgmma run, instead of keeping the
  // tensor cores idle through the whole epilogue. It needs the packed tile beside the
  // accumulators (at most the consumers' registers less 40: 192 of two warpgroups' 232). Not for a
  // ping-pong kernel, which overlaps its epilogues already, nor (untried) for two warpgroups
  // taking k-blocks in turn. A TMA store goes out one chunk after each k-block
  // (Params::spread_epilogue; docs/notes/perf-notes.md, step 16): with two chunk buffers that
  // beat storing every chunk after the first k-block by 5-12% at K <= 1024. A whole-tile
  // staging, which can store at the tile's end without waiting, gains from it only where a
  // k-block's math outlasts a chunk's store: 128x256 with two consumers gained 3-8%, while
  // 128x192 and 64x256 with one consumer lost 4-11%, so smaller tiles store at the tile's end.
  // NOTE: a swap-AB warpgroup of two atoms (256 rows) defers up to 96 tokens only: 112 and 128
  // tokens over 256 rows spilled 152-604 bytes deferred (fp32; fp16 accumulators 128-296 at 112,
  // with half the registers, so it is not the tile's count alone) and none storing at the
  // tile's end; 96 does not spill either way.
  // NOTE: three consumer warpgroups weigh the packed tile against ptxas's entry cap (the NOTE on
  // kWgmmaPerAtom), not setmaxnreg's 152: deferred, their fp16-accumulating 192x192 and 192x208
  // spilled 88-144 bytes; stored at the tile's end they spill none and ran 2.3% faster
  // (docs/notes/2026-12-02-three-warpgroup-gelu.md). Two warpgroups keep setmaxnreg's count:
  // under the entry cap 128x256 would stop deferring, which gained it 3-8%.
  static constexpr int kDeferRegs =
      kNumConsumerWgs == 3 ? sm90_entry_regs(3) : kGeometry.consumer_regs;
  static constexpr bool kDeferEpilogue =
      !kPingPong && !kSplitKBlocks && kWgAtomsM * (kAccRegs + kPackedRegs) <= kDeferRegs - 40 &&
      (!kSwapAB || kWgAtomsM == 1 || kBlockN <= 96) &&
      (!(kTmaStore && kCWholeTile) || (kNumConsumerWgs == 2 && kBlockM * kBlockN >= 128 * 256));
  // Parts of a deferred epilogue: a TMA store's chunks; direct stores go out at once.
  static constexpr int kStoreParts = kTmaStore ? kCChunks : 1;

  // The last tile along M (N) loads its K-major A (B) box up to BM - 8 (BN - 8) rows early
  // rather than past M (N) (kernels::box_row_shift): TMA zero-fills a box's rows past the
  // tensor, slowly, and such boxes on half of a grid's tiles cost up to 19% of the whole kernel
  // (docs/notes/2026-11-25-tma-residue.md). The consumers then read the tile's rows that many
  // rows into the slot, and its rows past M (N) from beyond it, whose sums land in rows
  // (columns) no epilogue stores: from the next slot of the ring, or past A's last slot from the
  // B ring, which must hold that many rows. Past B's last slot lie the barriers, so that slot
  // loads unshifted.
  static constexpr bool kShiftA = kAKMajor && kNumStages * kBlockN >= kBlockM - 8;
  static constexpr bool kShiftB = kBKMajor;

  // Registers (sm90_register_split): two consumer warpgroups rise to 232, three to 152.
  static constexpr bool kReallocRegs = kGeometry.realloc_regs;
  static constexpr int kProducerRegs = kGeometry.producer_regs;
  static constexpr int kConsumerRegs = kGeometry.consumer_regs;

  struct EpilogueSmem {
    alignas(1024) uint8_t c[kCStagingBytes];  // (kWgRows, kCChunk, buffers, consumer WGs)
  };
  struct NoEpilogueSmem {};
  // The second warpgroup's accumulators, register i of thread t at word i * 128 + t.
  struct ReduceSmem {
    alignas(1024) uint32_t words[kAccRegs * 128];
  };
  struct NoReduceSmem {};

  struct alignas(1024) SharedStorage {
    alignas(1024) uint16_t a[kNumStages][kBlockM * kBlockK];  // (BM, BK, stages) swizzled
    alignas(1024) uint16_t b[kNumStages][kBlockN * kBlockK];  // (BN, BK, stages) swizzled
    alignas(1024) std::conditional_t<kTmaStore, EpilogueSmem, NoEpilogueSmem> epi;
    uint64_t full_barrier[kNumStages];   // TMA bytes landed (producer -> consumers)
    uint64_t empty_barrier[kNumStages];  // slot released (consumers of the cluster -> producer)
    // Last: empty, it shares the barriers' 1 KiB, as an empty `epi` does.
    std::conditional_t<kSplitKBlocks, ReduceSmem, NoReduceSmem> reduce;
  };
  static_assert(kATileBytes % 1024 == 0 && kBTileBytes % 1024 == 0,
                "every stage buffer starts on a 1024-B swizzle boundary");
  static_assert(!kTmaStore || kCStagingBytes == kSmemPlan.staging_bytes,
                "the C staging matches core/smem_budget.hpp");
  static_assert(!kSplitKBlocks || int(sizeof(ReduceSmem)) == kSmemPlan.reduce_bytes,
                "the reduction buffer matches core/smem_budget.hpp");
  static_assert(int(sizeof(SharedStorage)) == kSmemPlan.storage_bytes,
                "SharedStorage matches core/smem_budget.hpp");
  // Dynamic smem: the storage plus slack to align the dynamic base up to 1024 B.
  static constexpr int kSmemBytes = kGeometry.smem_bytes;
};

namespace detail {

// Rows by which the tile at row m0 (column n0) loads its A (B) box early (Traits::kShiftA,
// kShiftB; kernels::box_row_shift).
template <class Traits>
__device__ __forceinline__ int a_row_shift(int m0, int m) {
  return Traits::kShiftA ? kernels::box_row_shift(m0, m, Traits::kBlockM) : 0;
}
template <class Traits>
__device__ __forceinline__ int b_row_shift(int n0, int n) {
  return Traits::kShiftB ? kernels::box_row_shift(n0, n, Traits::kBlockN) : 0;
}

// Two fp32 sums as one pair of C's elements, rounded to nearest even.
template <bool kBF16>
__device__ __forceinline__ uint32_t pack_pair(float lo, float hi) {
  if constexpr (kBF16) {
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&h);
  } else {
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&h);
  }
}

// The element pair of 8-column group j, upper (row + 8) or lower half, of an atom's accumulators.
template <class Traits, bool kUpper>
__device__ __forceinline__ uint32_t acc_pair(
    typename Traits::AccReg const (&acc)[Traits::kAccRegs], int j) {
  if constexpr (Traits::kAccF32)
    return pack_pair<Traits::kBF16>(acc[4 * j + (kUpper ? 2 : 0)], acc[4 * j + (kUpper ? 3 : 1)]);
  else
    return acc[2 * j + (kUpper ? 1 : 0)];
}

template <class Traits>
using PackedTile = uint32_t[Traits::kWgAtomsM][Traits::kPackedRegs];

template <class Traits>
__device__ __forceinline__ void pack_tile(
    typename Traits::AccReg const (&acc)[Traits::kWgAtomsM][Traits::kAccRegs],
    PackedTile<Traits>& packed) {
#pragma unroll
  for (int mt = 0; mt < Traits::kWgAtomsM; ++mt)
#pragma unroll
    for (int j = 0; j < Traits::kBlockN / 8; ++j) {
      packed[mt][2 * j] = acc_pair<Traits, false>(acc[mt], j);
      packed[mt][2 * j + 1] = acc_pair<Traits, true>(acc[mt], j);
    }
}

// Two warpgroups that took a 64-row tile's k-blocks in turn (Traits::kSplitKBlocks): the second
// writes its sums to `words`, the first adds them to its own. Named barriers 3 and 4 (1 and 2 are
// the epilogue's, and ping-pong, which uses 3 and 4 too, never splits k-blocks) pass the buffer
// there and back, so the second writes its next tile's sums only once these are read.
template <class Traits>
__device__ __forceinline__ void join_k_block_sums(typename Traits::AccReg (&acc)[Traits::kAccRegs],
                                                  uint32_t* words, int consumer_wg,
                                                  int thread_in_wg) {
  constexpr uint32_t kWritten = 3, kRead = 4;
  if (consumer_wg == 1) {
#pragma unroll
    for (int i = 0; i < Traits::kAccRegs; ++i)
      if constexpr (Traits::kAccF32)
        words[i * 128 + thread_in_wg] = __float_as_uint(acc[i]);
      else
        words[i * 128 + thread_in_wg] = acc[i];
    // NOTE: both sides sync where one could arrive (free: each side waits there anyway), as
    // compute-sanitizer's racecheck takes only syncs for an ordering and reported each handoff.
    ptx::named_barrier_sync(kWritten, 256);
    ptx::named_barrier_sync(kRead, 256);
  } else {
    ptx::named_barrier_sync(kWritten, 256);
#pragma unroll
    for (int i = 0; i < Traits::kAccRegs; ++i) {
      const uint32_t other = words[i * 128 + thread_in_wg];
      if constexpr (Traits::kAccF32) {
        acc[i] += __uint_as_float(other);
      } else {
        __half2 sum = __hadd2(*reinterpret_cast<__half2 const*>(&acc[i]),
                              *reinterpret_cast<__half2 const*>(&other));
        acc[i] = *reinterpret_cast<uint32_t*>(&sum);
      }
    }
    ptx::named_barrier_sync(kRead, 256);
  }
}

// Calls f(lo, hi, row, col) on every pair of fp32 accumulators of the tile: a thread holds each
// element (row, col) of the kernel's M x N (with swap-AB, C^T) together with (row, col + 1), col
// even. Unrolled, as the accumulators are registers.
template <class Traits, class F>
__device__ __forceinline__ void for_each_accumulator_pair(
    typename Traits::AccReg (&acc)[Traits::kWgAtomsM][Traits::kAccRegs], int m_origin,
    int n_origin, int thread_in_wg, F&& f) {
  const int warp_in_wg = thread_in_wg / 32;
  const int lane = thread_in_wg % 32;
#pragma unroll
  for (int mt = 0; mt < Traits::kWgAtomsM; ++mt)
#pragma unroll
    for (int upper = 0; upper < 2; ++upper) {
      const int row = m_origin + mt * 64 + warp_in_wg * 16 + lane / 4 + 8 * upper;
#pragma unroll
      for (int j = 0; j < Traits::kBlockN / 8; ++j)
        f(acc[mt][4 * j + 2 * upper], acc[mt][4 * j + 2 * upper + 1], row,
          n_origin + j * 8 + 2 * (lane % 4));
    }
}

// Calls f(x, row, col) -> new x on every fp32 accumulator of the tile.
template <class Traits, class F>
__device__ __forceinline__ void for_each_accumulator(
    typename Traits::AccReg (&acc)[Traits::kWgAtomsM][Traits::kAccRegs], int m_origin,
    int n_origin, int thread_in_wg, F&& f) {
  for_each_accumulator_pair<Traits>(acc, m_origin, n_origin, thread_in_wg,
                                    [&](float& lo, float& hi, int row, int col) {
                                      lo = f(lo, row, col);
                                      hi = f(hi, row, col + 1);
                                    });
}

// alpha * acc + beta * C on every accumulator. Each pair (c, c + 1) is adjacent in C (one 4-byte
// load; c is even and N a multiple of 8) or, with swap-AB, two rows apart (two loads). The loads
// are unconditional, their indices clamped into C.
template <class Traits>
__device__ __forceinline__ void add_scaled_c(
    typename Traits::AccReg (&acc)[Traits::kWgAtomsM][Traits::kAccRegs], float alpha, float beta,
    uint16_t const* c, int64_t ldc, int m, int n, int m_origin, int n_origin, int thread_in_wg) {
  for_each_accumulator_pair<Traits>(acc, m_origin, n_origin, thread_in_wg,
                                    [&](float& x0, float& x1, int row, int col) {
    const int64_t r = min(row, m - 1);
    float lo, hi;
    if constexpr (Traits::kSwapAB) {
      lo = kernels::to_float<Traits::kDType>(c[min(col, n - 1) * ldc + r]);
      hi = kernels::to_float<Traits::kDType>(c[min(col + 1, n - 1) * ldc + r]);
    } else {
      const uint32_t pair = *reinterpret_cast<uint32_t const*>(c + r * ldc + min(col, n - 2));
      lo = kernels::to_float<Traits::kDType>(uint16_t(pair & 0xffffu));
      hi = kernels::to_float<Traits::kDType>(uint16_t(pair >> 16));
    }
    x0 = alpha * x0 + beta * lo;
    x1 = alpha * x1 + beta * hi;
  });
}

// A thread's bias for the columns it holds, one 32-bit word per 8-column group j: the pair
// (col, col + 1), col = n_origin + 8 j + 2 (lane % 4), as load_bias_words reads it while the
// tile's last k-block runs. Not with swap-AB (the bias then runs along the kernel's rows, one value
// each).
template <class Traits>
using BiasWords = uint32_t[Traits::kBiasWords ? Traits::kBlockN / 8 : 1];

// Whether this call's bias is read early as words: a tile that takes them (Traits::kBiasWords)
// and a 4-byte aligned bias (every pair starts at an even column; the API allows a 2-byte aligned
// one, which the epilogue still reads element by element).
template <class Traits>
__device__ __forceinline__ bool bias_in_words(kernels::EpilogueParams const& e) {
  if constexpr (!Traits::kBiasWords)
    return false;
  else
    return e.ops && e.bias && (reinterpret_cast<uintptr_t>(e.bias) & 3u) == 0;
}

// A whole tile's words are one base and constant offsets; in the tile past C's last column the
// pairs beyond it are clamped onto its last pair (N is even: sm90 takes N % 8 == 0), their sums
// landing in columns no epilogue stores. NOTE: clamped everywhere, the words' addresses took a
// register pair each and spilled the 256x128 and 192x192 tiles.
template <class Traits>
__device__ __forceinline__ void load_bias_words(uint16_t const* bias, int n, int n_origin,
                                                int thread_in_wg, BiasWords<Traits>& words) {
  const int col0 = n_origin + 2 * (thread_in_wg % 4);
  if (n_origin + Traits::kBlockN <= n) {
    uint32_t const* base = reinterpret_cast<uint32_t const*>(bias + col0);
#pragma unroll
    for (int j = 0; j < Traits::kBlockN / 8; ++j) words[j] = base[4 * j];
  } else {
#pragma unroll
    for (int j = 0; j < Traits::kBlockN / 8; ++j)
      words[j] = *reinterpret_cast<uint32_t const*>(bias + min(col0 + 8 * j, n - 2));
  }
}

// alpha * acc + bias from the words: each pair of bias values converted once for the 2 x
// kWgAtomsM accumulator pairs of its columns.
template <class Traits>
__device__ __forceinline__ void add_bias_words(
    typename Traits::AccReg (&acc)[Traits::kWgAtomsM][Traits::kAccRegs], float alpha,
    BiasWords<Traits> const& words) {
  static_assert(Traits::kBiasWords);
#pragma unroll
  for (int j = 0; j < Traits::kBlockN / 8; ++j) {
    const float lo = kernels::to_float<Traits::kDType>(uint16_t(words[j] & 0xffffu));
    const float hi = kernels::to_float<Traits::kDType>(uint16_t(words[j] >> 16));
#pragma unroll
    for (int mt = 0; mt < Traits::kWgAtomsM; ++mt)
#pragma unroll
      for (int upper = 0; upper < 2; ++upper) {
        float& x0 = acc[mt][4 * j + 2 * upper];
        float& x1 = acc[mt][4 * j + 2 * upper + 1];
        x0 = alpha * x0 + lo;
        x1 = alpha * x1 + hi;
      }
  }
}

// The epilogue applied to the accumulators in place, before pack_tile rounds them once: in place
// so that it needs no registers beside the tile (a second copy spilled the 128x256 tiles). fp32
// accumulators only: for fp16 ones the conversions spilled the 256x256 tile, and the launcher
// refuses an epilogue there (sm90_check_args). Passes, each one straight run of code without
// branches inside: alpha and beta * C, or alpha and the bias, or alpha alone; the bias after
// beta * C (the order of the other paths' sums); then the activation, chosen once per tile (the
// erf GELU is a call; the tanh GELU runs here only where Traits::kGeluOnPairs does not hold, else
// after the rounding, on pairs: gelu_tanh_tile). Every load is unconditional, its index clamped
// into C, so that the loads can be issued together: a load behind a per-element bounds branch
// waited for the one before it, and a bias cost up to the whole mainloop of a K = 1024 tile.
// Elements outside C are never stored. `c` is this batch's C, row stride ldc (C^T's column
// stride with swap-AB).
// `bias_words`: the tile's bias as load_bias_words read it, where bias_early.
template <class Traits>
__device__ __forceinline__ void apply_epilogue(
    typename Traits::AccReg (&acc)[Traits::kWgAtomsM][Traits::kAccRegs],
    kernels::EpilogueParams const& e, bool bias_early, BiasWords<Traits> const& bias_words,
    uint16_t const* c, int64_t ldc, int m, int n, int m_origin, int n_origin, int thread_in_wg) {
  static_assert(Traits::kAccF32, "the fused epilogue takes fp32 accumulators");
  const float alpha = e.alpha;
  uint16_t const* bias = e.bias;
  // The bias runs along C's columns: the kernel's columns, or with swap-AB its rows.
  auto bias_at = [&](int row, int col) {
    return kernels::to_float<Traits::kDType>(
        bias[Traits::kSwapAB ? min(row, m - 1) : min(col, n - 1)]);
  };
  if (Traits::kGeneral && e.beta != 0.0f) {
    add_scaled_c<Traits>(acc, alpha, e.beta, c, ldc, m, n, m_origin, n_origin, thread_in_wg);
    if (bias)
      for_each_accumulator<Traits>(acc, m_origin, n_origin, thread_in_wg,
                                   [&](float x, int row, int col) {
        return x + bias_at(row, col);
      });
  } else if (bias_early) {
    if constexpr (Traits::kBiasWords) add_bias_words<Traits>(acc, alpha, bias_words);
  } else if (bias) {
    for_each_accumulator<Traits>(acc, m_origin, n_origin, thread_in_wg,
                                 [&](float x, int row, int col) {
      return alpha * x + bias_at(row, col);
    });
  } else if (alpha != 1.0f) {
    for_each_accumulator<Traits>(acc, m_origin, n_origin, thread_in_wg,
                                 [&](float x, int, int) { return alpha * x; });
  }
  switch (e.activation) {
    case Activation::kRelu:
      for_each_accumulator<Traits>(acc, m_origin, n_origin, thread_in_wg, [](float x, int, int) {
        return kernels::activate<Activation::kRelu>(x);
      });
      break;
    case Activation::kGelu:
      for_each_accumulator<Traits>(acc, m_origin, n_origin, thread_in_wg,
                                   [](float x, int, int) { return kernels::gelu(x); });
      break;
    case Activation::kGeluTanh:
      if constexpr (!Traits::kGeluOnPairs)
        for_each_accumulator<Traits>(acc, m_origin, n_origin, thread_in_wg, [](float x, int, int) {
          return kernels::gelu_tanh_approx<Traits::kDType>(x);
        });
      break;
    case Activation::kNone:
      break;
  }
}

// The tanh GELU on the tile's rounded pairs (kernels::gelu_tanh_pair), after pack_tile.
template <class Traits>
__device__ __forceinline__ void gelu_tanh_tile(PackedTile<Traits>& packed) {
#pragma unroll
  for (int mt = 0; mt < Traits::kWgAtomsM; ++mt)
#pragma unroll
    for (int r = 0; r < Traits::kPackedRegs; ++r)
      packed[mt][r] = kernels::gelu_tanh_pair<Traits::kDType>(packed[mt][r]);
}

// A 4x4 transpose of 32-bit values across the 4 lanes of a quad: lane q's x[p] becomes lane p's
// old x[q]. Two butterfly stages, each swapping one bit of the lane index with the same bit of the
// slot index. Used to turn 4 column pairs per lane into 8 contiguous columns per lane.
__device__ __forceinline__ void quad_transpose(uint32_t (&x)[4], int lane) {
#pragma unroll
  for (int bit = 1; bit <= 2; bit <<= 1) {
    const bool upper = (lane & bit) != 0;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      if (s & bit) continue;
      const uint32_t send = upper ? x[s] : x[s | bit];
      const uint32_t recv = __shfl_xor_sync(0xffffffffu, send, bit);
      if (upper)
        x[s] = recv;
      else
        x[s | bit] = recv;
    }
  }
}

// Epilogue for the TMA store: the tile's fp16 pairs -> stmatrix into this warpgroup's swizzled
// chunk buffers -> TMA stores, issued by the warpgroup's first thread. A pass fills every buffer
// of a whole-tile staging at once (one wait, two barriers, one store group per tile), or one
// chunk buffer of a double-buffered staging. `chunk_count` counts the chunks this warpgroup has
// stored so far (it picks the buffer), so the buffering carries across tiles.
// A pass of kChunksPerPass == kCChunks (whole-tile staging only) stores the tile with one wait and
// two barriers; passes of one chunk let a deferred epilogue store [pass_begin, pass_end) only.
// `batch` < 0: C's map is 2-D (one matrix).
template <class Traits, int kChunksPerPass>
__device__ __forceinline__ void store_tile_tma(PackedTile<Traits> const& packed, uint32_t staging,
    CUtensorMap const* tma_c, int m_origin, int n_origin, int batch, int wg_idx,
    int thread_in_wg, uint32_t& chunk_count, int pass_begin, int pass_end) {
  const int warp_in_wg = thread_in_wg / 32;
  const int lane = thread_in_wg % 32;
  const uint32_t barrier_id = 1 + wg_idx;
  const int quad = lane / 8;  // which of the four 8x8 matrices this lane addresses
  // One stmatrix.x4 covers 16 columns of 16 rows; a swap-AB chunk of 8 columns (C rows), one .x2.
  constexpr int kColsPerStore = Traits::kCChunk < 16 ? Traits::kCChunk : 16;
  static_assert(kColsPerStore == 16 || (Traits::kSwapAB && kColsPerStore == 8),
                "C chunks of 16 columns, or of 8 rows of C in a swap-AB tile");
  static_assert(kChunksPerPass == 1 || (Traits::kCWholeTile && kChunksPerPass == Traits::kCChunks),
                "a pass stores one chunk, or the whole staged tile");
#pragma unroll
  for (int pass = 0; pass < Traits::kCChunks / kChunksPerPass; ++pass) {
    if (pass < pass_begin || pass >= pass_end) continue;
    // The stores that last used these buffers must have finished reading them: the group
    // kCBuffers chunks back (with a whole tile in one pass, the previous tile's group).
    if (thread_in_wg == 0) ptx::tma_store_wait_read<Traits::kCBuffers - kChunksPerPass>();
    ptx::named_barrier_sync(barrier_id, 128);
#pragma unroll
    for (int i = 0; i < kChunksPerPass; ++i) {
      const int chunk = pass * kChunksPerPass + i;
      const uint32_t buffer =
          staging + ((chunk_count + i) % Traits::kCBuffers) * Traits::kCBufferBytes;
#pragma unroll
      for (int mt = 0; mt < Traits::kWgAtomsM; ++mt) {
#pragma unroll
        for (int jj = 0; jj < Traits::kCChunk / kColsPerStore; ++jj) {
          const int j = (chunk * Traits::kCChunk) / 8 + 2 * jj;  // 8-column group in the tile
          if constexpr (Traits::kSwapAB) {
            // The tile is C^T: the chunk's kCChunk tile columns are rows of C, stored transposed
            // into one (kCChunk, 64) box per atom, each row one 128-byte swizzle line.
            // With 8 rows a chunk (.x2) lanes 16-31 address nothing; they compute the same rows.
            const int c_row =
                jj * kColsPerStore + (kColsPerStore == 16 ? (quad / 2) * 8 : 0) + lane % 8;
            const int c_col = warp_in_wg * 16 + (quad % 2) * 8;
            const uint32_t offset = mt * Traits::kCChunk * 128 +
                                    kernels::swizzle_offset<Traits::kCSwizzle>(
                                        uint32_t(c_row * 128 + c_col * 2));
            if constexpr (kColsPerStore == 16)
              ptx::stmatrix_x4_trans(buffer + offset, packed[mt][2 * j], packed[mt][2 * j + 1],
                                     packed[mt][2 * j + 2], packed[mt][2 * j + 3]);
            else
              ptx::stmatrix_x2_trans(buffer + offset, packed[mt][2 * j], packed[mt][2 * j + 1]);
          } else {
            const int row = mt * 64 + warp_in_wg * 16 + (quad % 2) * 8 + lane % 8;
            const int col = jj * kColsPerStore + (quad / 2) * 8;  // inside the chunk
            const uint32_t offset = kernels::swizzle_offset<Traits::kCSwizzle>(
                uint32_t(row * Traits::kCChunk * 2 + col * 2));
            ptx::stmatrix_x4(buffer + offset, packed[mt][2 * j], packed[mt][2 * j + 1],
                             packed[mt][2 * j + 2], packed[mt][2 * j + 3]);
          }
        }
      }
    }
    // NOTE: stmatrix writes through the generic proxy, the TMA store reads through the async one.
    ptx::fence_proxy_async_shared_cta();
    ptx::named_barrier_sync(barrier_id, 128);
    if (thread_in_wg == 0) {
#pragma unroll
      for (int i = 0; i < kChunksPerPass; ++i) {
        const uint32_t buffer =
            staging + ((chunk_count + i) % Traits::kCBuffers) * Traits::kCBufferBytes;
        const int col = n_origin + (pass * kChunksPerPass + i) * Traits::kCChunk;
        if constexpr (Traits::kSwapAB) {
          // C's rows are the tile's columns, C's columns its rows: a box per atom.
#pragma unroll
          for (int mt = 0; mt < Traits::kWgAtomsM; ++mt) {
            const uint32_t box = buffer + mt * Traits::kCChunk * 128;
            if (batch < 0)
              ptx::tma_store_2d(tma_c, box, m_origin + mt * 64, col);
            else
              ptx::tma_store_3d(tma_c, box, m_origin + mt * 64, col, batch);
          }
        } else if (batch < 0) {
          ptx::tma_store_2d(tma_c, buffer, col, m_origin);
        } else {
          ptx::tma_store_3d(tma_c, buffer, col, m_origin, batch);
        }
      }
      ptx::tma_store_commit();
    }
    chunk_count += kChunksPerPass;
  }
}

// Epilogue with direct global stores: each quad transposes its column pairs so that every lane
// writes 16 contiguous bytes (8 columns) of a row. N % 8 == 0 and ldc % 8 == 0, so a group of 8
// columns is either entirely inside the problem or entirely outside, and 16-byte aligned; rows
// are checked one by one.
template <class Traits>
__device__ __forceinline__ void store_tile_direct(PackedTile<Traits> const& packed, uint16_t* c,
                                                  int64_t ldc, int m, int n, int m_origin,
                                                  int n_origin, int thread_in_wg) {
  const int warp_in_wg = thread_in_wg / 32;
  const int lane = thread_in_wg % 32;
  const int q = lane % 4;
  constexpr int kGroups = Traits::kBlockN / 8;  // 8-column groups
#pragma unroll
  for (int mt = 0; mt < Traits::kWgAtomsM; ++mt) {
    const int row_lo = m_origin + mt * 64 + warp_in_wg * 16 + lane / 4;
    const int row_hi = row_lo + 8;
    // One pointer stepped 32 columns at a time and held in a register: with each store's address
    // computed from (row, col) ptxas hoisted all of them, which spilled 192x192 and 192x208 of
    // three consumer warpgroups (32 and 88 B).
    uint16_t* p = c + row_lo * ldc + n_origin + q * 8;
#pragma unroll
    for (int g = 0; g + 4 <= kGroups; g += 4, p = ptx::pinned(p + 32)) {
      uint32_t lo[4], hi[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        lo[i] = packed[mt][2 * (g + i)];
        hi[i] = packed[mt][2 * (g + i) + 1];
      }
      quad_transpose(lo, lane);
      quad_transpose(hi, lane);
      const int col = n_origin + (g + q) * 8;
      if (col < n) {
        if (row_lo < m)
          *reinterpret_cast<uint4*>(p) = make_uint4(lo[0], lo[1], lo[2], lo[3]);
        if (row_hi < m)
          *reinterpret_cast<uint4*>(p + 8 * ldc) = make_uint4(hi[0], hi[1], hi[2], hi[3]);
      }
    }
    // BN % 32 != 0: the last one to three groups are stored as column pairs.
#pragma unroll
    for (int g = kGroups / 4 * 4; g < kGroups; ++g) {
      const int col = n_origin + g * 8 + 2 * q;
      if (col < n) {
        if (row_lo < m)
          *reinterpret_cast<uint32_t*>(c + row_lo * ldc + col) = packed[mt][2 * g];
        if (row_hi < m)
          *reinterpret_cast<uint32_t*>(c + row_hi * ldc + col) = packed[mt][2 * g + 1];
      }
    }
  }
}

// Swap-AB epilogue: the kernel's tile is C^T, so its row i (of the problem's N) and column j (of
// M) go to c[j * ldc + i], ldc (>= the kernel's m) being C's row stride. Lanes g and g ^ 1 of a
// quad column
// (lane / 4 = g: rows r and r + 1) trade their column pairs with one shuffle, so that each stores
// two adjacent halves of one C row: the even lane column j's, the odd lane column j + 1's. r is
// even and the kernel's m (C's N) a multiple of 8, so a pair is inside or outside as a whole.
template <class Traits>
__device__ __forceinline__ void store_tile_direct_swapped(PackedTile<Traits> const& packed,
                                                          uint16_t* c, int64_t ldc, int m, int n,
                                                          int m_origin, int n_origin,
                                                          int thread_in_wg) {
  const int warp_in_wg = thread_in_wg / 32;
  const int lane = thread_in_wg % 32;
  const bool odd = (lane & 4) != 0;
#pragma unroll
  for (int mt = 0; mt < Traits::kWgAtomsM; ++mt) {
    // The pair's first row: this lane's row, or the one above it for the odd lane.
    const int row_lo = m_origin + mt * 64 + warp_in_wg * 16 + ((lane / 4) & ~1);
#pragma unroll
    for (int j = 0; j < Traits::kBlockN / 8; ++j) {
      const int col = n_origin + j * 8 + 2 * (lane % 4) + (odd ? 1 : 0);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const uint32_t own = packed[mt][2 * j + half];
        const uint32_t other = __shfl_xor_sync(0xffffffffu, own, 4);
        // Even lane: (own.lo, other.lo), its column at rows r, r + 1; odd: (other.hi, own.hi).
        const uint32_t pair = odd ? __byte_perm(other, own, 0x7632) : __byte_perm(own, other, 0x5410);
        const int row = row_lo + 8 * half;
        if (row < m && col < n)
          *reinterpret_cast<uint32_t*>(c + col * ldc + row) = pair;
      }
    }
  }
}

// Split-K epilogue: the accumulators as fp32 into this split's partial buffer, one column pair
// (8 bytes) per store. N % 8 == 0 and partial_ld >= N, so a pair is inside or outside as a whole.
template <class Traits>
__device__ __forceinline__ void store_tile_partial(
    typename Traits::AccReg const (&acc)[Traits::kWgAtomsM][Traits::kAccRegs], float* partial,
    int64_t ld, int m, int n, int m_origin, int n_origin, int thread_in_wg) {
  const int warp_in_wg = thread_in_wg / 32;
  const int lane = thread_in_wg % 32;
#pragma unroll
  for (int mt = 0; mt < Traits::kWgAtomsM; ++mt) {
    const int row_lo = m_origin + mt * 64 + warp_in_wg * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < Traits::kBlockN / 8; ++j) {
      const int col = n_origin + j * 8 + 2 * (lane % 4);
      if (col >= n) continue;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = row_lo + 8 * half;
        if (row >= m) continue;
        float2 v;
        if constexpr (Traits::kAccF32) {
          v = make_float2(acc[mt][4 * j + 2 * half], acc[mt][4 * j + 2 * half + 1]);
        } else {
          const uint32_t packed = acc[mt][2 * j + half];
          v = __half22float2(*reinterpret_cast<__half2 const*>(&packed));
        }
        if constexpr (Traits::kSwapAB) {
          // C's orientation: the pair is one column of two rows of C. n is the problem's M
          // here, which may be odd, so the second row is checked on its own.
          partial[int64_t(col) * ld + row] = v.x;
          if (col + 1 < n) partial[int64_t(col + 1) * ld + row] = v.y;
        } else {
          *reinterpret_cast<float2*>(partial + int64_t(row) * ld + col) = v;
        }
      }
    }
  }
}

// The last round's split reduces in the kernel: each partial piece of a tile is stored as its
// registers hold it, in its partial-tile slot (one per CTA tile of a cluster tile): word group q
// (kVec words) of thread t of band b at ((b * kGroups + q) * 128 + t) * kVec. Every store and load
// of a warpgroup is then 128 consecutive 8- or 16-byte words, and the warpgroup that sums a tile
// reads back the registers of its own threads, in the accumulators' own layout, before the
// ordinary epilogue runs on them. A band is a cooperative consumer's rows (one band otherwise).
template <class Traits>
struct Fragments {
  static constexpr int kVec = Traits::kAccRegs % 4 == 0 ? 4 : 2;
  static constexpr int kGroups = Traits::kWgAtomsM * Traits::kAccRegs / kVec;  // per thread
  static constexpr int kBands = Traits::kWgRowStep != 0 ? Traits::kNumConsumerWgs : 1;
  static constexpr int64_t kSlotWords = int64_t(kBands) * 128 * kGroups * kVec;  // BM x BN sums
  static_assert(kBands == Traits::kGeometry.slot_consumer_warps / 4,
                "the bands sm90_tail_counter_bytes counts");
  static_assert(Traits::kAccRegs % 2 == 0, "accumulators come in pairs");
  // Registers kVec at a time, as one vector of their own type.
  using Vec = std::conditional_t<
      Traits::kAccF32, std::conditional_t<kVec == 4, float4, float2>,
      std::conditional_t<kVec == 4, uint4, uint2>>;
};

// NOTE: the loops index the accumulators by their own (unrolled) counters: a word index turned
// into [i / regs][i % regs] left them indexed at run time, in local memory.
// This warpgroup's partial sums into `slot` (its CTA tile's), band `band`. Stored past L1: only
// another CTA, or this one's last arrival, reads them.
template <class Traits>
__device__ __forceinline__ void store_fragments(
    typename Traits::AccReg const (&acc)[Traits::kWgAtomsM][Traits::kAccRegs], uint32_t* slot,
    int band, int thread_in_wg) {
  using F = Fragments<Traits>;
  using Vec = typename F::Vec;
  Vec* dst = reinterpret_cast<Vec*>(slot) + int64_t(band) * F::kGroups * 128 + thread_in_wg;
#pragma unroll
  for (int mt = 0; mt < Traits::kWgAtomsM; ++mt)
#pragma unroll
    for (int i = 0; i < Traits::kAccRegs; i += F::kVec) {
      Vec v;
      if constexpr (F::kVec == 4)
        v = {acc[mt][i], acc[mt][i + 1], acc[mt][i + 2], acc[mt][i + 3]};
      else
        v = {acc[mt][i], acc[mt][i + 1]};
      __stcg(dst + (mt * Traits::kAccRegs + i) / F::kVec * 128, v);
    }
}

// Adds (kAdd) or sets one accumulator from a partial.
template <class Traits, bool kAdd>
__device__ __forceinline__ void take_partial(typename Traits::AccReg& r,
                                             typename Traits::AccReg w) {
  if constexpr (!kAdd) {
    r = w;
  } else if constexpr (Traits::kAccF32) {
    r += w;
  } else {
    __half2 sum = __hadd2(*reinterpret_cast<__half2 const*>(&r),
                          *reinterpret_cast<__half2 const*>(&w));
    r = *reinterpret_cast<uint32_t*>(&sum);
  }
}

// Counts this warpgroup's partial in on `counter` once all 128 threads have stored theirs, and
// tells all of them whether it was the tile's last of `pieces`. No warpgroup ever waits for
// another CTA, so the CTAs may run in any order.
__device__ __forceinline__ bool arrive_last(int* counter, int pieces, uint32_t barrier_id,
                                            int thread_in_wg) {
  __threadfence();
  ptx::named_barrier_sync(barrier_id, 128);
  bool last = false;
  if (thread_in_wg == 0) last = ptx::count_arrival(counter) == pieces - 1;
  last = ptx::named_barrier_or(barrier_id, 128, last);
  if (last) __threadfence();
  return last;
}

// Vectors [kBegin, kBegin + kRun) of one piece into the accumulators (set, or with kAdd added).
template <class Traits, int kBegin, int kRun, bool kAdd>
__device__ __forceinline__ void take_run(
    typename Traits::AccReg (&acc)[Traits::kWgAtomsM][Traits::kAccRegs],
    typename Fragments<Traits>::Vec const* p) {
  using F = Fragments<Traits>;
  constexpr int kVecsPerAtom = Traits::kAccRegs / F::kVec;
  constexpr int kEnd = kBegin + kRun < F::kGroups ? kBegin + kRun : F::kGroups;
#pragma unroll
  for (int g = kBegin; g < kEnd; ++g) {
    const typename F::Vec v = __ldcg(p + g * 128);
    const int mt = g / kVecsPerAtom, i = g % kVecsPerAtom * F::kVec;
    take_partial<Traits, kAdd>(acc[mt][i], v.x);
    take_partial<Traits, kAdd>(acc[mt][i + 1], v.y);
    if constexpr (F::kVec == 4) {
      take_partial<Traits, kAdd>(acc[mt][i + 2], v.z);
      take_partial<Traits, kAdd>(acc[mt][i + 3], v.w);
    }
  }
}

// The tile's sums: its `pieces` partial slots added in k order (the same order whichever CTA
// arrives last, so results repeat bitwise), into the accumulators. NOTE: in runs of kRun vectors
// of every piece in turn: a whole piece in flight at once spilled the 192x192 tile (three
// warpgroups) and the 128x256 one. The runs are expanded at compile time, so that the
// accumulators are indexed by constants. (Of two pieces, adding only the other one to the
// accumulators, as addition commutes, would save a read; it spilled 8 B on 128x192 with a TMA
// store.)
template <class Traits>
__device__ __forceinline__ void sum_fragments(
    typename Traits::AccReg (&acc)[Traits::kWgAtomsM][Traits::kAccRegs], uint32_t const* first,
    int64_t slot_step_words, int pieces, int band, int thread_in_wg) {
  using F = Fragments<Traits>;
  using Vec = typename F::Vec;
  constexpr int kRun = 8;
  Vec const* src =
      reinterpret_cast<Vec const*>(first) + int64_t(band) * F::kGroups * 128 + thread_in_wg;
  const int64_t step = slot_step_words / F::kVec;
  [&]<int... kR>(std::integer_sequence<int, kR...>) {
    auto run = [&](auto begin) {
      take_run<Traits, decltype(begin)::value, kRun, false>(acc, src);
#pragma unroll 1
      for (int p = 1; p < pieces; ++p)
        take_run<Traits, decltype(begin)::value, kRun, true>(acc, src + p * step);
    };
    (run(std::integral_constant<int, kR * kRun>{}), ...);
  }(std::make_integer_sequence<int, (F::kGroups + kRun - 1) / kRun>{});
}

}  // namespace detail

template <class Traits>
__global__ void __launch_bounds__(Traits::kNumThreads, 1)
    sm90_ws_gemm_kernel(__grid_constant__ Params const params) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using SharedStorage = typename Traits::SharedStorage;
  using AccReg = typename Traits::AccReg;
  constexpr int kNumStages = Traits::kNumStages;
  constexpr int kClusterSize = Traits::kClusterSize;
  constexpr int kTransB = Traits::kBKMajor ? 0 : 1;
  constexpr int kTransA = Traits::kAKMajor ? 0 : 1;

  // Shared storage, aligned up to the 1024-B swizzle period.
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const uint32_t raw_addr = ptx::smem_addr(smem_raw);
  SharedStorage& shared =
      *reinterpret_cast<SharedStorage*>(smem_raw + (((raw_addr + 1023) & ~1023u) - raw_addr));
  // Pinned: recomputed at each k-block, these cost a lone consumer warpgroup 3-6% of a 64x96
  // tile's time (docs/notes/2026-11-25-nn-swap-ab.md).
  const uint32_t smem_a0 = ptx::pinned(ptx::smem_addr(&shared.a[0][0]));
  const uint32_t smem_b0 = ptx::pinned(ptx::smem_addr(&shared.b[0][0]));
  const uint32_t full0 = ptx::pinned(ptx::smem_addr(&shared.full_barrier[0]));
  const uint32_t empty0 = ptx::pinned(ptx::smem_addr(&shared.empty_barrier[0]));
  auto smem_a = [&](uint32_t s) { return smem_a0 + s * Traits::kATileBytes; };
  auto smem_b = [&](uint32_t s) { return smem_b0 + s * Traits::kBTileBytes; };
  auto full_barrier = [&](uint32_t s) { return full0 + s * 8; };
  auto empty_barrier = [&](uint32_t s) { return empty0 + s * 8; };

  const int warp_idx = __shfl_sync(0xffffffffu, int(threadIdx.x) / 32, 0);
  const int wg_idx = warp_idx / 4;
  const int cta_rank = kClusterSize == 1 ? 0 : int(blockIdx.x % kClusterSize);
  const int cluster_idx = int(blockIdx.x) / kClusterSize;
  const int num_clusters = int(gridDim.x) / kClusterSize;
  const kernels::TileScheduler& scheduler = params.scheduler;
  const kernels::FastDivisor& tiles = scheduler.tiles;
  const kernels::FastDivisor& units_per_batch = params.units_per_batch;
  const bool batched = Traits::kGeneral && params.batches > 1;
  const int num_units =
      batched ? units_per_batch.divisor * params.batches : units_per_batch.divisor;
  // Work unit u (a code below queue.units): cluster tile u mod tiles, split (u / tiles) mod
  // num_splits and that split's k-blocks, batch u / units_per_batch (-1: one matrix). In the
  // flavour that splits the last round, a code from queue.units on is a piece of a tile of that
  // round (kernels::WorkQueue::piece), of one matrix.
  const kernels::WorkQueue queue =
      Traits::kTailSplit ? params.queue : kernels::WorkQueue{num_units, {}};
  // NOTE: one matrix keeps the one division of the unbatched kernel: on a tile of one or two
  // k-blocks each division before the first load or after the last wgmma showed. The divisors
  // are fixed per launch (kernels::FastDivisor: a multiply-high and a shift each).
  auto batch_of = [&](int u) { return batched ? units_per_batch.div(u) : -1; };
  auto k_range = [&](int u, int& kb_begin, int& kb_end) {
    const int split = batched ? tiles.div(units_per_batch.mod(u)) : tiles.div(u);
    kb_begin = split * params.k_blocks_per_split;
    kb_end = min(params.num_k_blocks, kb_begin + params.k_blocks_per_split);
  };
  // The cluster tile and k-blocks of work item `code`.
  auto work_range = [&](int code, int& linear, int& kb_begin, int& kb_end) {
    if (!Traits::kTailSplit || code < queue.units) {
      linear = tiles.mod(code);
      k_range(code, kb_begin, kb_end);
    } else {
      const kernels::Piece p = queue.piece(code, params.num_k_blocks);
      linear = p.tile;
      kb_begin = p.kb_begin;
      kb_end = p.kb_end;
    }
  };

  // Barrier init, then fence, then sync. Every consumer warp of every CTA in the cluster that
  // reads a slot releases it once: peers' multicast writes land in our slots too.
  if (threadIdx.x == 0) {
    ptx::tma_prefetch_descriptor(&params.tma_a);
    ptx::tma_prefetch_descriptor(&params.tma_b);
    if constexpr (Traits::kBTail > 0) ptx::tma_prefetch_descriptor(&params.tma_b_tail);
    if constexpr (Traits::kTmaStore) ptx::tma_prefetch_descriptor(&params.tma_c);
#pragma unroll
    for (int s = 0; s < kNumStages; ++s) {
      ptx::mbarrier_init(full_barrier(s), 1);
      ptx::mbarrier_init(empty_barrier(s), kClusterSize * Traits::kSlotConsumerWarps);
    }
    ptx::fence_mbarrier_init();
  }
  if constexpr (kClusterSize > 1)
    ptx::cluster_sync();
  else
    __syncthreads();
  // Programmatic dependent launch: the setup above, and each role's own up to its wait, may
  // overlap the previous kernel's tail; every thread that touches global memory (A, B, C,
  // partials) waits for that kernel first: the producer's loading thread, and the consumers just
  // before their first tile (the producer's other threads touch none). The next kernel is let in
  // late, never here at the start: early dependents cost kernels with grids under the SM count
  // up to 20% (docs/notes/perf-notes.md, step 13), and even the producer's last load is too
  // early once a CTA streams more than a few dozen k-blocks (docs/notes/2026-11-28-pdl-trigger.md).

  if (wg_idx == 0) {
    // Producer: one elected thread streams A and B k-blocks into the ring, tile after tile,
    // running ahead into the next tile while the consumers finish the current one.
    if constexpr (Traits::kReallocRegs) ptx::setmaxnreg_dec<Traits::kProducerRegs>();
    if (warp_idx == 0 && ptx::elect_one_sync()) {
      // Cluster rank r = rank_m + rank_n * kClusterM (TileScheduler::cta_tile). A CTA shares
      // its A tile with the CTAs of its rank_m (one per rank_n) and loads the rank_n-th part of
      // it for all of them; its B tile with the CTAs of its rank_n, loading the rank_m-th part.
      const int rank_m = cta_rank % Traits::kClusterM;
      const int rank_n = cta_rank / Traits::kClusterM;
      uint16_t mask_a = 0, mask_b = 0;
#pragma unroll
      for (int j = 0; j < Traits::kClusterN; ++j)
        mask_a |= uint16_t(1u << (rank_m + j * Traits::kClusterM));
#pragma unroll
      for (int i = 0; i < Traits::kClusterM; ++i)
        mask_b |= uint16_t(1u << (i + rank_n * Traits::kClusterM));
      // One work unit as the producer loads it: its tile's origin, the rows its K-major boxes
      // start early (kShiftA, kShiftB), its batch and k-blocks.
      struct Unit {
        int m0, n0, a_m0, b_shift, batch, kb_begin, kb_end;
      };
      auto unit_of = [&](int code) {
        Unit u;
        int linear;
        work_range(code, linear, u.kb_begin, u.kb_end);
        const kernels::TileCoord tile = scheduler.cta_tile(linear, cta_rank);
        u.m0 = tile.m_block * Traits::kBlockM;
        u.n0 = tile.n_block * Traits::kBlockN;
        u.a_m0 = u.m0 - detail::a_row_shift<Traits>(u.m0, params.m);
        u.b_shift = detail::b_row_shift<Traits>(u.n0, params.n);
        u.batch = batch_of(code);
        return u;
      };
      // The first unit is found before the wait, so that its first load follows the wait at
      // once: the kernel ahead's last writes are all this CTA waits for.
      int code = queue.first<Traits::kTailSplit>(cluster_idx);
      Unit unit = code >= 0 ? unit_of(code) : Unit{};
      ptx::griddepcontrol_wait();
      kernels::PipelineState<kNumStages> stage;
      while (code >= 0) {
        const int m0 = unit.m0, n0 = unit.n0, a_m0 = unit.a_m0, b_shift = unit.b_shift;
        const int kb_begin = unit.kb_begin, kb_end = unit.kb_end;
        // A or B of one matrix (one batch, or one shared by every batch) has a 2-D map.
        const int batch = unit.batch;
        const bool batched_a = batched && params.batched_a;
        const bool batched_b = batched && params.batched_b;
        for (int kb = kb_begin; kb < kb_end; ++kb) {
          ptx::mbarrier_wait(empty_barrier(stage.index), stage.phase ^ 1);
          const uint32_t full = full_barrier(stage.index);
          ptx::mbarrier_arrive_expect_tx(full, Traits::kStageBytes);
          const int k0 = kb * Traits::kBlockK;

          // One TMA box at (c0, c1) of `map`, at this unit's batch where that operand has
          // batches (a 3-D map); with `shared` (a cluster along the side that shares the
          // operand) into every CTA of `mask` too.
          auto load = [&](auto shared, uint32_t dst, CUtensorMap const* map, int c0, int c1,
                          bool by_batch, uint16_t mask) {
            if constexpr (decltype(shared)::value) {
              if (by_batch)
                ptx::tma_load_3d_multicast(dst, map, full, c0, c1, batch, mask);
              else
                ptx::tma_load_2d_multicast(dst, map, full, c0, c1, mask);
            } else if (by_batch) {
              ptx::tma_load_3d(dst, map, full, c0, c1, batch);
            } else {
              ptx::tma_load_2d(dst, map, full, c0, c1);
            }
          };
          constexpr std::bool_constant<(Traits::kClusterN > 1)> kShareA{};
          constexpr std::bool_constant<(Traits::kClusterM > 1)> kShareB{};

          // Each CTA of a cluster loads its part of a shared operand: K-major rows, or the
          // k-rows of every chunk of an M-major A or N-major B (0 without a cluster).
          const uint32_t a_dst = smem_a(stage.index);
          const int a_part = rank_n * Traits::kABoxOuter;
          if constexpr (!Traits::kAKMajor) {
#pragma unroll
            for (int chunk = 0; chunk < Traits::kBlockM / Traits::kAChunk; ++chunk)
              load(kShareA, a_dst + chunk * Traits::kAChunkBytes + a_part * Traits::kAChunk * 2,
                   &params.tma_a, m0 + chunk * Traits::kAChunk, k0 + a_part, batched_a, mask_a);
          } else {
            load(kShareA, a_dst + a_part * Traits::kBlockK * 2, &params.tma_a, k0, a_m0 + a_part,
                 batched_a, mask_a);
          }

          const uint32_t b_dst = smem_b(stage.index);
          const int b_part = rank_m * Traits::kBBoxOuter;
          if constexpr (Traits::kBKMajor) {
            const int b_n0 = stage.index + 1 < kNumStages ? n0 - b_shift : n0;
            load(kShareB, b_dst + b_part * Traits::kBlockK * 2, &params.tma_b, k0, b_n0 + b_part,
                 batched_b, mask_b);
          } else {
#pragma unroll
            for (int chunk = 0; chunk < Traits::kBMainN / Traits::kBChunk; ++chunk)
              load(kShareB, b_dst + chunk * Traits::kBChunkBytes + b_part * Traits::kBChunk * 2,
                   &params.tma_b, n0 + chunk * Traits::kBChunk, k0 + b_part, batched_b, mask_b);
            if constexpr (Traits::kBTail > 0) {
              const uint32_t tail = b_dst + Traits::kBMainN * Traits::kBlockK * 2;
              load(kShareB, tail + b_part * Traits::kBTail * 2, &params.tma_b_tail,
                   n0 + Traits::kBMainN, k0 + b_part, batched_b, mask_b);
            }
          }
          stage.advance();
        }
        code = queue.next<Traits::kTailSplit>(code, cluster_idx, num_clusters);
        if (code >= 0) unit = unit_of(code);
      }
      if (params.early_dependents) ptx::griddepcontrol_launch_dependents();
    }
    __syncwarp();
  } else {
    // Consumers: wgmma over the ring with one k-block in flight, then the epilogue.
    if constexpr (Traits::kReallocRegs) ptx::setmaxnreg_inc<Traits::kConsumerRegs>();
    const int consumer_wg = wg_idx - 1;
    const int thread_in_wg = int(threadIdx.x) % 128;
    const int lane = thread_in_wg % 32;

    // Descriptor bits that do not depend on the address. A (and TN's B): K-major rows of
    // BK * 2 bytes, 8-row groups apart by 8 rows. NN's B (and M-major A): N-major chunks of
    // kBChunk columns, kBChunkBytes apart, 8 k-rows of kBChunk * 2 bytes per group (and NN's
    // tail chunk likewise with kBTail columns).
    constexpr uint64_t kDescA =
        Traits::kAKMajor
            ? ptx::make_smem_desc_base(16, 8 * Traits::kASwizzle, Traits::kASwizzle)
            : ptx::make_smem_desc_base(Traits::kAChunkBytes, 8 * Traits::kASwizzle,
                                       Traits::kASwizzle);
    constexpr uint64_t kDescB =
        Traits::kBKMajor
            ? ptx::make_smem_desc_base(16, 8 * Traits::kBSwizzle, Traits::kBSwizzle)
            : ptx::make_smem_desc_base(Traits::kBChunkBytes, 8 * Traits::kBSwizzle,
                                       Traits::kBSwizzle);
    // Byte step of one k16 slice inside a stage: 32 B along a K-major row, 16 rows N-major.
    constexpr uint32_t kAStepK = Traits::kAKMajor ? 32 : 16 * Traits::kAChunk * 2;
    constexpr uint32_t kBStepK = Traits::kBKMajor ? 32 : 16 * Traits::kBChunk * 2;

    const uint64_t desc_a_ring = ptx::make_smem_desc(
        kDescA, smem_a(0) + consumer_wg * Traits::kWgRowStep * Traits::kBlockK * 2);
    const uint64_t desc_b_ring = ptx::make_smem_desc(kDescB, smem_b(0));
    // NN's tail chunk: one chunk of kBTail columns after the kBMainN ones.
    constexpr uint64_t kDescBTail =
        ptx::make_smem_desc_base(Traits::kBTail * Traits::kBlockK * 2, 8 * Traits::kBTailSwizzle,
                                 Traits::kBTailSwizzle);
    constexpr uint32_t kBTailStepK = 16 * Traits::kBTail * 2;
    const uint64_t desc_b_tail_ring =
        Traits::kBTail > 0
            ? ptx::make_smem_desc(kDescBTail, smem_b(0) + Traits::kBMainN * Traits::kBlockK * 2)
            : 0;

    // Release a slot: lane i of each consumer warp arrives on CTA i's empty barrier.
    auto release = [&](uint32_t s) {
      if constexpr (kClusterSize == 1) {
        if (lane == 0) ptx::mbarrier_arrive(empty_barrier(s));
      } else {
        if (lane < kClusterSize) ptx::mbarrier_arrive_cluster(empty_barrier(s), uint32_t(lane));
      }
    };

    AccReg acc[Traits::kWgAtomsM][Traits::kAccRegs];  // (kWgRows, BN) in m64 atoms
#pragma unroll
    for (int mt = 0; mt < Traits::kWgAtomsM; ++mt)
#pragma unroll
      for (int i = 0; i < Traits::kAccRegs; ++i) acc[mt][i] = AccReg(0);

    const uint32_t staging =
        Traits::kTmaStore ? ptx::smem_addr(&shared.epi) +
                                consumer_wg * Traits::kCBuffers * Traits::kCBufferBytes
                          : 0;
    uint32_t chunk_count = 0;
    detail::PackedTile<Traits> packed;  // (kWgRows, BN) as element pairs
    // Batch b's C (direct stores and the epilogue's beta * C); b < 0 is the one matrix.
    auto batch_c = [&](int b) { return b < 0 ? params.c : params.c + b * params.batch_stride_c; };
    // Parts [part_begin, part_end) of the tile in `packed`.
    auto store_packed = [&](int m_origin, int n_origin, int batch, int part_begin, int part_end) {
      if constexpr (Traits::kTmaStore)
        detail::store_tile_tma<Traits, 1>(packed, staging, &params.tma_c, m_origin, n_origin,
                                          batch, consumer_wg, thread_in_wg, chunk_count,
                                          part_begin, part_end);
      else if constexpr (Traits::kSwapAB)
        detail::store_tile_direct_swapped<Traits>(packed, batch_c(batch), params.ldc, params.m,
                                                  params.n, m_origin, n_origin, thread_in_wg);
      else
        detail::store_tile_direct<Traits>(packed, batch_c(batch), params.ldc, params.m, params.n,
                                          m_origin, n_origin, thread_in_wg);
    };
    // Deferred epilogue: the tile whose fp16 results wait in `packed`, from part pending_part
    // on (none when it is kStoreParts).
    int pending_part = Traits::kStoreParts;
    int pending_m = 0, pending_n = 0;
    // NOTE: the general flavour keeps a pending tile as its unit and finds its origin again at
    // each store: row, column and batch held through the next tile's mainloop spilled the
    // 256x128 tile.
    int pending_unit = 0;
    auto store_pending = [&](int parts) {
      const int end = min(Traits::kStoreParts, pending_part + parts);
      if constexpr (Traits::kGeneral) {
        const kernels::TileCoord tile = scheduler.cta_tile(tiles.mod(pending_unit), cta_rank);
        store_packed(tile.m_block * Traits::kBlockM +
                         consumer_wg * Traits::kWgRowStep,
                     tile.n_block * Traits::kBlockN, batch_of(pending_unit), pending_part, end);
      } else {
        store_packed(pending_m, pending_n, -1, pending_part, end);
      }
      pending_part = end;
    };
    // A whole staged tile is deferred only when its chunks are spread; otherwise it is stored at
    // the tile's end in one pass.
    const bool defer = Traits::kDeferEpilogue &&
                       (params.spread_epilogue || !(Traits::kTmaStore && Traits::kCWholeTile));
    kernels::PipelineState<kNumStages> stage;
    // Ping-pong: this CTA's i-th unit belongs to consumer i % 2, whose mainloop waits for the
    // other's previous one to finish issuing (named barrier kOrderBarrier + its index) and then
    // passes the turn on. Every arrive has its sync: the last unit passes nothing on.
    constexpr uint32_t kOrderBarrier = 3;  // 1 and 2 are the epilogue's
    int local = 0;
    ptx::griddepcontrol_wait();
    for (int code = queue.first<Traits::kTailSplit>(cluster_idx), next; code >= 0;
         code = next, ++local) {
      next = queue.next<Traits::kTailSplit>(code, cluster_idx, num_clusters);
      int linear, kb_begin, kb_end;
      work_range(code, linear, kb_begin, kb_end);
      if constexpr (Traits::kPingPong) {
        if (local % 2 != consumer_wg) {
          stage.advance(uint32_t(kb_end - kb_begin));
          continue;
        }
        if (local > 0) ptx::named_barrier_sync(kOrderBarrier + consumer_wg, 256);
      }
      const kernels::TileCoord tile = scheduler.cta_tile(linear, cta_rank);
      // The tile's first row sits a_row_shift rows into each A slot (16-byte units: K-major rows
      // of BK * 2 bytes).
      const uint64_t desc_a_tile =
          desc_a_ring +
          uint64_t(detail::a_row_shift<Traits>(tile.m_block * Traits::kBlockM, params.m) *
                   (Traits::kBlockK * 2 / 16));
      // Likewise B's (in descriptor units), in every slot but the last.
      const uint64_t desc_b_shift =
          uint64_t(detail::b_row_shift<Traits>(tile.n_block * Traits::kBlockN, params.n) *
                   (Traits::kBlockK * 2 / 16));
      // This warpgroup's k-blocks: every one, or every other from kb_first.
      const int kb_first = Traits::kSplitKBlocks ? kb_begin + consumer_wg : kb_begin;
      uint32_t prev_stage = 0;
      for (int kb = kb_begin; kb < kb_end; ++kb) {
        if (Traits::kSplitKBlocks && ((kb - kb_begin) & 1) != consumer_wg) {
          stage.advance();
          continue;
        }
        ptx::mbarrier_wait(full_barrier(stage.index), stage.phase);
        // The stage's descriptors from the ring's first by one add each; every wgmma's from
        // those by a constant (16-byte units: shared addresses stay below 256 KiB, so the
        // 14-bit address field never carries).
        const uint64_t desc_a0 = desc_a_tile + uint64_t(stage.index * (Traits::kATileBytes >> 4));
        const uint64_t desc_b0 = desc_b_ring +
                                 uint64_t(stage.index * (Traits::kBTileBytes >> 4)) +
                                 (stage.index + 1 < kNumStages ? desc_b_shift : 0);
        ptx::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < Traits::kBlockK / 16; ++kk) {
#pragma unroll
          for (int mt = 0; mt < Traits::kWgAtomsM; ++mt) {
            const uint64_t desc_a =
                desc_a0 + uint64_t((mt * 64 * Traits::kBlockK * 2 + kk * kAStepK) >> 4);
            // A split atom's wgmma take column parts of a K-major B tile, whole 8-row swizzle
            // groups apart, each into its own run of the atom's accumulators.
            const uint32_t scale_d = (kb > kb_first || kk > 0) ? 1u : 0u;
            if constexpr (Traits::kBTail > 0) {
              // The main chunks' columns into the atom's first accumulators, the tail's after.
              using MainPart = AccReg[Traits::MmaMain::kRegs];
              using TailPart = AccReg[Traits::MmaTail::kRegs];
              const uint64_t desc_b_tail =
                  desc_b_tail_ring + uint64_t(stage.index * (Traits::kBTileBytes >> 4));
              ptx::wgmma_ss<Traits::kBMainN, Traits::kAccF32, kTransB, Traits::kBF16, kTransA>(
                  *reinterpret_cast<MainPart*>(&acc[mt][0]), desc_a,
                  desc_b0 + uint64_t((kk * kBStepK) >> 4), scale_d);
              ptx::wgmma_ss<Traits::kBTail, Traits::kAccF32, kTransB, Traits::kBF16, kTransA>(
                  *reinterpret_cast<TailPart*>(&acc[mt][Traits::MmaMain::kRegs]), desc_a,
                  desc_b_tail + uint64_t((kk * kBTailStepK) >> 4), scale_d);
            } else {
              using Part = AccReg[Traits::Mma::kRegs];
#pragma unroll
              for (int h = 0; h < Traits::kWgmmaPerAtom; ++h)
                ptx::wgmma_ss<Traits::kWgmmaN, Traits::kAccF32, kTransB, Traits::kBF16, kTransA>(
                    *reinterpret_cast<Part*>(&acc[mt][h * Traits::Mma::kRegs]), desc_a,
                    desc_b0 +
                        uint64_t((kk * kBStepK + h * Traits::kWgmmaN * Traits::kBSwizzle) >> 4),
                    scale_d);
            }
          }
        }
        ptx::wgmma_commit();
        // The previous k-block's wgmma have finished reading their slot: hand it back.
        if (kb > kb_first) {
          ptx::wgmma_wait<1>();
          release(prev_stage);
        }
        if constexpr (Traits::kDeferEpilogue) {
          // NOTE: the previous tile's stores touch only `packed` and smem staging, never the
          // accumulators this k-block's wgmma are writing, so they run while those wgmma do.
          // A chunk per k-block keeps each store burst shorter than one k-block of math.
          if (pending_part < Traits::kStoreParts)
            store_pending(params.spread_epilogue ? 1 : Traits::kStoreParts);
        }
        prev_stage = stage.index;
        stage.advance();
      }
      if constexpr (Traits::kPingPong)
        if (next >= 0)
          ptx::named_barrier_arrive(kOrderBarrier + (1 - consumer_wg), 256);
      // The tile's bias, read while its last k-block's wgmma run: read after them, waiting for
      // the loads was a fifth of the ping-pong 128x128 tile's bias + GELU epilogue at K = 512
      // (ncu, docs/notes/2026-11-29-epilogue-bias-early.md). Not before the mainloop: the words
      // held through it spilled the 128x256 and 256x128 tiles.
      detail::BiasWords<Traits> bias_words;
      const bool bias_early = detail::bias_in_words<Traits>(params.epilogue) &&
                              params.num_splits == 1 &&
                              !(Traits::kTailSplit && params.tail_scratch != nullptr) &&
                              !(Traits::kSplitKBlocks && consumer_wg == 1);
      if (bias_early)
        detail::load_bias_words<Traits>(params.epilogue.bias, params.n,
                                        tile.n_block * Traits::kBlockN, thread_in_wg, bias_words);
      ptx::wgmma_wait<0>();
      // The CTA's last tile (with ping-pong, the first of its last two to finish): the first
      // call of the CTA counts.
      if (!params.early_dependents &&
          (next < 0 || (Traits::kPingPong &&
                        queue.next<Traits::kTailSplit>(next, cluster_idx, num_clusters) < 0)))
        ptx::griddepcontrol_launch_dependents();
      // A unit of one k-block leaves the second of two warpgroups in turn nothing to release.
      if (!Traits::kSplitKBlocks || kb_first < kb_end) release(prev_stage);
#pragma unroll
      for (int mt = 0; mt < Traits::kWgAtomsM; ++mt) ptx::fence_registers(acc[mt]);
      if constexpr (Traits::kSplitKBlocks) {
        // The second warpgroup's sum joins the first's in a fixed order (bitwise repeatable),
        // where it has one; the second waits until it is read before its next tile.
        if (kb_end - kb_begin >= 2)
          detail::join_k_block_sums<Traits>(acc[0], shared.reduce.words, consumer_wg,
                                            thread_in_wg);
        if (consumer_wg == 1) continue;
      }

      const int m_origin = tile.m_block * Traits::kBlockM + consumer_wg * Traits::kWgRowStep;
      const int n_origin = tile.n_block * Traits::kBlockN;
      const int batch = batch_of(code);
      if (params.num_splits > 1) {
        const int c_rows = Traits::kSwapAB ? params.n : params.m;
        const int split = tiles.div(code);  // batched calls do not split
        detail::store_tile_partial<Traits>(
            acc, params.partial + int64_t(split) * c_rows * params.partial_ld,
            params.partial_ld, params.m, params.n, m_origin, n_origin, thread_in_wg);
        continue;
      }
      // One of a last-round tile's pieces: stored; the last to arrive adds them all up and goes
      // on to the epilogue with the tile's sums.
      if constexpr (Traits::kTailSplit) {
        if (code >= queue.units) {
          using F = detail::Fragments<Traits>;
          const kernels::Piece piece = queue.piece(code, params.num_k_blocks);
          const int pieces = queue.tail.pieces.divisor;
          if (pending_part < Traits::kStoreParts) store_pending(Traits::kStoreParts);
          const int band = Traits::kWgRowStep != 0 ? consumer_wg : 0;
          constexpr int64_t kSlotStep = kClusterSize * F::kSlotWords;
          uint32_t* const partial = reinterpret_cast<uint32_t*>(
              reinterpret_cast<char*>(params.tail_scratch) +
              sm90_tail_counter_bytes(kClusterSize, F::kBands, queue.tail.tiles));
          uint32_t* const own = partial + (piece.slot * kSlotStep + cta_rank * F::kSlotWords);
          detail::store_fragments<Traits>(acc, own, band, thread_in_wg);
          int* counter =
              params.tail_scratch + (piece.counter * kClusterSize + cta_rank) * F::kBands + band;
          if (!detail::arrive_last(counter, pieces, 1 + consumer_wg, thread_in_wg)) continue;
          detail::sum_fragments<Traits>(acc, own - piece.index * kSlotStep, kSlotStep, pieces,
                                        band, thread_in_wg);
        }
      }
      // A tile shorter than its epilogue's parts stores what is left before `packed` changes.
      if (pending_part < Traits::kStoreParts) store_pending(Traits::kStoreParts);
      if constexpr (Traits::kAccF32)
        if (params.epilogue.ops)
          detail::apply_epilogue<Traits>(acc, params.epilogue, bias_early, bias_words,
                                         batch_c(batch), params.ldc, params.m, params.n,
                                         m_origin, n_origin, thread_in_wg);
      detail::pack_tile<Traits>(acc, packed);
      if constexpr (Traits::kAccF32)
        if (Traits::kGeluOnPairs && params.epilogue.ops &&
            params.epilogue.activation == Activation::kGeluTanh)
          detail::gelu_tanh_tile<Traits>(packed);
      if (defer) {
        pending_part = 0;
        if constexpr (Traits::kGeneral) {
          pending_unit = code;
        } else {
          pending_m = m_origin;
          pending_n = n_origin;
        }
      } else if constexpr (Traits::kTmaStore && Traits::kCWholeTile) {
        detail::store_tile_tma<Traits, Traits::kCChunks>(packed, staging, &params.tma_c,
                                                         m_origin, n_origin, batch, consumer_wg,
                                                         thread_in_wg, chunk_count, 0, 1);
      } else {
        store_packed(m_origin, n_origin, batch, 0, Traits::kStoreParts);
      }
    }
    if (pending_part < Traits::kStoreParts) store_pending(Traits::kStoreParts);
    // Teardown: the last stores must be complete before the CTA's smem goes away.
    if constexpr (Traits::kTmaStore)
      if (thread_in_wg == 0) ptx::tma_store_wait<0>();
  }

  // NOTE: a peer may still arrive on our empty barriers (and we on its) after our last tile; no
  // CTA of a cluster leaves before all have finished.
  if constexpr (kClusterSize > 1) ptx::cluster_sync();
#elif defined(__CUDA_ARCH__)
  if (threadIdx.x == 0 && blockIdx.x == 0)
    printf("hgemm: sm90_ws_gemm_kernel needs sm_90a\n");
  __trap();
#endif
}

}  // namespace hgemm::sm90
