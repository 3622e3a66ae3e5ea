// Decode GEMM, M <= 16: C (M x N) = A (M x K) . B as one stream of B at DRAM bandwidth.
//   Arch: sm_80 and later (mma.sync m16n8k16, cp.async; built for sm_80 and sm_90a).
//   Layouts: A M x K row-major; B N x K row-major (TN) or K x N row-major (NN); C M x N
//   row-major. fp16 elements with f32 or f16 accumulation inside each warp, or bf16 with f32;
//   the warps' sums are added in f32.
//   Work: a CTA owns kBlockN columns of C and all of K. Its warps take turns along K: in round r
//   warp w takes K [(r * kWarps + w) * kBlockK, + kBlockK) and keeps partial sums of the CTA's
//   whole (up to) 16 x kBlockN tile, one m16n8 accumulator per 8 columns (rows past M are zeros).
//   Pipeline: each lane copies exactly the bytes its own fragments use, 16 bytes per cp.async,
//   into its own slots of a kNumStages ring, so no lane waits for another until the end. The
//   order of K inside a k32 chunk is permuted, identically for A and B, so that a lane's 16
//   contiguous bytes of a row are its fragment registers (a dot product does not see the order).
//   NN transposes B in registers (byte permutes of two k-rows).
//   A column-major A (DecodeParams::a_col_major) is copied a k-column per lane instead, its M
//   rows in up to two 16-byte pieces, and read back transposed by ldmatrix into the same
//   registers a row-major A's pieces fill: hgemmGemm needs no copy of A into rows first.
//   Epilogue: partial sums through shared memory, added over the warps in warp order (bitwise
//   repeatable), then alpha, bias and activation where asked, rounded once to C's type; no
//   atomics, no workspace.
//   Limits: 1 <= M <= 16; K % 8 == 0 and, for NN, N % 8 == 0; A and B 16-byte aligned, their
//   strides (a column-major A's column stride too) multiples of 8 (the launcher's can_implement
//   refuses the rest, which the sm80 safety net takes).
#pragma once

#include <cstdint>
#include <cstdio>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "core/decode_variant.hpp"
#include "hgemm/hgemm.hpp"
#include "kernels/common/epilogue.cuh"
#include "ptx/cp_async.cuh"
#include "ptx/griddepcontrol.cuh"
#include "ptx/ldmatrix.cuh"
#include "ptx/mma_sync.cuh"

namespace hgemm::sm80 {

// A, B and C hold 2-byte elements, fp16 or bf16 as the variant's dtype says.
struct DecodeParams {
  uint16_t const* a;
  uint16_t const* b;
  uint16_t* c;
  int m;
  int n;
  int k;
  kernels::EpilogueParams epilogue;  // applied to each sum before its rounding
  // Row strides in elements: A's and B's multiples of 8 (16-byte copies), C's any. A
  // column-major A (stored K x M) has lda elements between its columns.
  int64_t lda;
  int64_t ldb;
  int64_t ldc;
  bool a_col_major;
};

// Where a column-major A's k-row r of a k32 chunk sits in its 32 16-byte slots. ldmatrix reads
// k-rows {8q + 2j + e} (q < 4, e < 2) as matrix j; k ^ 2(k / 8) puts those eight rows in eight
// different 16-byte bank groups, so neither the reads nor the copies conflict.
__device__ __forceinline__ int decode_a_col_slot(int r) { return r ^ ((r >> 3) << 1); }

// The kernel's variant, wrapped: a __global__ function's host stub cannot spell a class-type
// template argument, only one nested in a type argument.
template <DecodeVariant kVariant_>
struct DecodeTraits {
  static constexpr DecodeVariant kVariant = kVariant_;
};

// Column (inside the CTA) of the accumulator elements c0/c2 (e = 0) and c1/c3 (e = 1) of the
// m16n8 fragment `block_idx` in lane pair t: the mma's column 2t + e. TN: fragment j is B's rows
// 8j .. 8j + 7 in order. NN: a lane group holds 8 consecutive columns and fragment 8q + j takes
// column j of each of the 8 groups of columns 64q .. 64q + 63.
template <bool kNN>
__device__ __forceinline__ int decode_frag_col(int block_idx, int lane_pair, int e) {
  if constexpr (kNN)
    return (block_idx / 8) * 64 + (2 * lane_pair + e) * 8 + block_idx % 8;
  else
    return block_idx * 8 + 2 * lane_pair + e;
}

template <class Traits>
__global__ void __launch_bounds__(decode_geometry(Traits::kVariant).num_threads, 1)
    sm80_decode_kernel(__grid_constant__ DecodeParams const params) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr DecodeVariant kVariant = Traits::kVariant;
  // Derived constants (decode_geometry, core/decode_variant.hpp, which the launcher uses too)
  // and the rules they rely on (KernelConfig::validate names the same ones).
  constexpr DecodeGeometry kGeometry = decode_geometry(kVariant);
  constexpr int kBlockN = kVariant.block_n;
  constexpr int kBlockK = kVariant.block_k;
  constexpr int kNumStages = kVariant.num_stages;
  constexpr int kWarps = kVariant.num_warps;
  constexpr int kThreads = kGeometry.num_threads;
  constexpr int kBlocks = kGeometry.blocks_n;
  constexpr int kChunks = kGeometry.chunks_k;
  constexpr int kBSlots = kGeometry.b_slots;
  constexpr int kSlotsPerChunk = kGeometry.slots_per_chunk;
  constexpr int kSlotsPerStage = kGeometry.slots_per_stage;
  constexpr bool kNN = kGeometry.nn;
  constexpr bool kF32 = kVariant.accum == Accum::kF32;
  constexpr bool kBF16 = kVariant.dtype == DType::kBF16;
  static_assert(!kBF16 || kF32, "bf16 accumulates in fp32 only");
  static_assert(kBlockN == 8 || kBlockN == 16 || kBlockN == 32 || kBlockN == 64 ||
                    kBlockN == 128,
                "block_n must be 8, 16, 32, 64 or 128");
  static_assert(!kNN || kBlockN % 64 == 0, "NN needs block_n 64 or 128 (8 lane groups x 8)");
  static_assert(kBlockK % 32 == 0 && kBlockK <= 256, "block_k must be 32 to 256, in k32 chunks");
  static_assert(kNumStages >= 2 && kNumStages <= 8, "2 to 8 stages");
  static_assert(kWarps == 1 || kWarps == 2 || kWarps == 4 || kWarps == 8, "1, 2, 4 or 8 warps");
  static_assert(kBSlots == kBlocks, "one 16-byte piece of B per lane and 8 columns of C");

  // Shared memory. Slots are lane-major, so a warp's 16-byte copies and reads of one slot cover
  // 512 contiguous bytes and never conflict on a bank.
  struct SharedStorage {
    union {
      uint4 ring[kWarps][kNumStages][kSlotsPerStage][32];  // (WARPS,PIPE,SLOTS,LANES)
      float partial[kWarps][kDecodeMaxM][kBlockN];          // (WARPS,16,BLK_N)
    };
  };
  static_assert(sizeof(SharedStorage) == size_t(kGeometry.smem_bytes),
                "SharedStorage must match decode_geometry().smem_bytes, which the launch requests");
  extern __shared__ __align__(128) unsigned char smem_raw[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(smem_raw);

  const int tid = int(threadIdx.x);
  const int lane_idx = tid % 32;
  const int warp_idx = tid / 32;
  const int lane_group = lane_idx / 4;  // g: the fragments' row of A / column of B
  const int lane_pair = lane_idx % 4;   // t: which 8 halves of a k32 chunk this lane holds
  const int m = params.m;
  const int n = params.n;
  const int k = params.k;
  const int n0 = int(blockIdx.x) * kBlockN;
  const int cols_left = n - n0;  // compared in CTA coordinates, so N near 2^31 cannot overflow
  const bool upper_rows = m > 8;  // warp-uniform: rows 8-15 of A are copied only when needed

  const int64_t k_per_round = int64_t(kWarps) * kBlockK;
  const int num_rounds = int((int64_t(k) + k_per_round - 1) / k_per_round);
  // Rounds that lie inside K for every warp; at most one more, the tail, is checked piece by
  // piece.
  const int full_rounds = int(int64_t(k) / k_per_round);
  const int warp_k0 = warp_idx * kBlockK;  // this warp's K offset inside a round

  // This lane's pieces of A at round 0: rows g and g + 8, K offset 8t of every chunk. Rows past M
  // are copied as zeros (no global read), so the math needs no predicate. Column-major: column
  // warp_k0 + lane of every chunk, rows 0-7 and 8-15, as many bytes as there are rows (the rest
  // zero-filled), and the k-row this lane's ldmatrix address names (decode_a_col_slot).
  const bool a_col = params.a_col_major;
  uint32_t a_bytes[2];
  uint16_t const* a_lane[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    if (a_col) {
      a_bytes[h] = 2u * uint32_t(min(max(m - 8 * h, 0), 8));
      a_lane[h] = params.a + int64_t(warp_k0 + lane_idx) * params.lda + 8 * h;
    } else {
      const int row = lane_group + 8 * h;
      a_bytes[h] = row < m ? 16u : 0u;
      a_lane[h] =
          params.a + int64_t(row < m ? row : 0) * params.lda + warp_k0 + 8 * lane_pair;
    }
  }
  const int a_col_store = decode_a_col_slot(lane_idx);
  // ldmatrix matrix j = lane / 8, its row r = lane % 8: k-row 8 (r / 2) + 2j + r % 2, so that
  // lane (g, t) receives row g's k pairs 8t + 2j, + 1, as a row-major piece's word j holds them.
  const int a_col_read =
      decode_a_col_slot(8 * ((lane_idx % 8) / 2) + 2 * (lane_idx / 8) + lane_idx % 2);
  // Its pieces of B at round 0. TN: slot j is row n0 + 8j + g at K offset 8t. NN: slot 8q + r is
  // k-row 8t + r of the chunk, columns n0 + 64q + 8g .. + 7. Rows (TN) or columns (NN) past N
  // are copied as zeros; their address is clamped to the CTA's first column, so that it stays
  // inside B in every round that lies inside K (the tail round passes B's base instead).
  constexpr int kBLanes = kNN ? kBSlots / 8 : kBSlots;
  bool b_col_ok[kBLanes];
  uint16_t const* b_lane[kBLanes];
#pragma unroll
  for (int j = 0; j < kBLanes; ++j) {
    const int col = kNN ? 64 * j + 8 * lane_group : lane_group + 8 * j;
    b_col_ok[j] = col < cols_left;
    const int64_t col_in = int64_t(n0) + (b_col_ok[j] ? col : 0);
    b_lane[j] = kNN ? params.b + int64_t(warp_k0 + 8 * lane_pair) * params.ldb + col_in
                    : params.b + col_in * params.ldb + warp_k0 + 8 * lane_pair;
  }

  // Issues this lane's copies of one round into a stage. In the tail round a chunk that starts
  // at or past K is skipped whole (warp-uniform; the math skips it too), and inside a chunk the
  // pieces past K (K % 8 == 0: a piece is all in or all out) are zero-filled.
  auto issue_round = [&](int round, int stage_idx, auto full) {
    constexpr bool kFull = decltype(full)::value;
    const int64_t k_round = int64_t(round) * k_per_round;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const int64_t k_chunk = k_round + warp_k0 + 32 * c;
      if (!kFull && k_chunk >= k) break;
      const bool k_ok = kFull || k_chunk + 8 * lane_pair < k;
      uint4(*slots)[32] = &smem.ring[warp_idx][stage_idx][c * kSlotsPerChunk];
      const bool a_k_ok = a_col ? kFull || k_chunk + lane_idx < k : k_ok;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (h == 1 && !upper_rows) continue;
        uint16_t const* src =
            a_lane[h] + (a_col ? (k_round + 32 * c) * params.lda : k_round + 32 * c);
        ptx::cp_async_ca_16(
            uint32_t(__cvta_generic_to_shared(slots[h] + (a_col ? a_col_store : lane_idx))),
            a_k_ok ? src : params.a, a_k_ok ? a_bytes[h] : 0u);
      }
#pragma unroll
      for (int s = 0; s < kBSlots; ++s) {
        uint16_t const* src;
        bool ok;
        if constexpr (kNN) {
          const int r = s % 8;
          src = b_lane[s / 8] + (k_round + 32 * c + r) * params.ldb;
          ok = kFull || k_chunk + 8 * lane_pair + r < k;
        } else {
          src = b_lane[s] + k_round + 32 * c;
          ok = k_ok;
        }
        ptx::cp_async_cg_16_l2_256(uint32_t(__cvta_generic_to_shared(slots[2 + s] + lane_idx)),
                                   ok ? src : params.b,
                                   ok && b_col_ok[kNN ? s / 8 : s] ? 16u : 0u);
      }
    }
  };
  auto issue = [&](int round, int stage_idx) {
    if (round < full_rounds)
      issue_round(round, stage_idx, std::true_type{});
    else
      issue_round(round, stage_idx, std::false_type{});
  };

  // Accumulators, one m16n8 fragment per 8 columns: rows g and g + 8 of C, the columns
  // decode_frag_col gives.
  using AccFrag = std::conditional_t<kF32, float[4], uint32_t[2]>;
  AccFrag acc[kBlocks];  // (BLK_N/8, frag)
#pragma unroll
  for (int j = 0; j < kBlocks; ++j)
#pragma unroll
    for (int r = 0; r < (kF32 ? 4 : 2); ++r) acc[j][r] = 0;

  auto mma = [](AccFrag& d, uint32_t const (&a)[4], uint32_t b0, uint32_t b1) {
    const uint32_t b[2] = {b0, b1};
    if constexpr (kBF16)
      ptx::mma_m16n8k16_bf16_f32(d, a, b);
    else if constexpr (kF32)
      ptx::mma_m16n8k16_f32(d, a, b);
    else
      ptx::mma_m16n8k16_f16(d, a, b);
  };

  // The math of one round from a stage. Per k32 chunk a lane holds A's rows g and g + 8 at K
  // 8t .. 8t+7 as {x, y, z, w}; mma step 0 takes halves 0-3 (x, y), step 1 halves 4-7 (z, w), as
  // the fragments' k pairs (2t, 2t+1) and (2t+8, 2t+9). TN: a B row's piece holds the same K in
  // the same registers, so {x, y} and {z, w} are the two steps' B fragments as loaded. NN:
  // k-rows 8t+4s .. 8t+4s+3 give step s's pairs of one column by byte permutes.
  auto compute_round = [&](int round, int stage_idx, auto full) {
    constexpr bool kFull = decltype(full)::value;
    const int64_t k_warp = int64_t(round) * k_per_round + warp_k0;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      if (!kFull && k_warp + 32 * c >= k) break;
      uint4 const(*slots)[32] = &smem.ring[warp_idx][stage_idx][c * kSlotsPerChunk];
      uint4 a_lo, a_hi = make_uint4(0, 0, 0, 0);
      if (a_col) {
        uint32_t w[4];
        ptx::ldmatrix_x4_trans(w, uint32_t(__cvta_generic_to_shared(slots[0] + a_col_read)));
        a_lo = make_uint4(w[0], w[1], w[2], w[3]);
        if (upper_rows) {
          ptx::ldmatrix_x4_trans(w, uint32_t(__cvta_generic_to_shared(slots[1] + a_col_read)));
          a_hi = make_uint4(w[0], w[1], w[2], w[3]);
        }
      } else {
        a_lo = slots[0][lane_idx];
        if (upper_rows) a_hi = slots[1][lane_idx];
      }
      const uint32_t a_step[2][4] = {{a_lo.x, a_hi.x, a_lo.y, a_hi.y},
                                     {a_lo.z, a_hi.z, a_lo.w, a_hi.w}};
      if constexpr (kNN) {
#pragma unroll
        for (int q = 0; q < kBSlots / 8; ++q) {
          uint32_t rows[8][4];
#pragma unroll
          for (int r = 0; r < 8; ++r) {
            const uint4 v = slots[2 + 8 * q + r][lane_idx];
            rows[r][0] = v.x;
            rows[r][1] = v.y;
            rows[r][2] = v.z;
            rows[r][3] = v.w;
          }
#pragma unroll
          for (int step = 0; step < 2; ++step) {
#pragma unroll
            for (int j = 0; j < 8; ++j) {
              // Column j of the lane's 8 is half j % 2 of word j / 2: the low (0x5410) or high
              // (0x7632) halves of two consecutive k-rows make one k pair.
              const uint32_t sel = j % 2 == 0 ? 0x5410 : 0x7632;
              const uint32_t b0 =
                  __byte_perm(rows[4 * step][j / 2], rows[4 * step + 1][j / 2], sel);
              const uint32_t b1 =
                  __byte_perm(rows[4 * step + 2][j / 2], rows[4 * step + 3][j / 2], sel);
              mma(acc[8 * q + j], a_step[step], b0, b1);
            }
          }
        }
      } else {
#pragma unroll
        for (int j = 0; j < kBlocks; ++j) {
          const uint4 b = slots[2 + j][lane_idx];
          mma(acc[j], a_step[0], b.x, b.y);
          mma(acc[j], a_step[1], b.z, b.w);
        }
      }
    }
  };
  auto compute = [&](int round, int stage_idx) {
    if (round < full_rounds)
      compute_round(round, stage_idx, std::true_type{});
    else
      compute_round(round, stage_idx, std::false_type{});
  };

  // Nothing may be read before the kernel ahead in the stream (programmatic launch) is done.
  ptx::griddepcontrol_wait();

  // Prologue: every stage in flight. Groups are committed even when empty so that the wait
  // count below always refers to the same round.
#pragma unroll
  for (int s = 0; s < kNumStages; ++s) {
    if (s < num_rounds) issue(s, s);
    ptx::cp_async_commit();
  }

  // Main loop. NOTE: a stage is refilled only after its math, whose mma consumed the shared
  // loads of that slot, so the lane's own copy cannot overwrite bytes it has yet to read; no
  // other lane touches the slot, so no barrier is needed. A column-major A is the exception:
  // ldmatrix reads the pieces the warp's other lanes copied, so the warp meets after the wait
  // (their copies visible) and before the refill (every lane done reading).
  int stage_idx = 0;
  for (int round = 0; round < num_rounds; ++round) {
    ptx::cp_async_wait<kNumStages - 1>();
    if (a_col) __syncwarp();
    compute(round, stage_idx);
    if (a_col) __syncwarp();
    if (round + kNumStages < num_rounds) issue(round + kNumStages, stage_idx);
    ptx::cp_async_commit();
    stage_idx = stage_idx == kNumStages - 1 ? 0 : stage_idx + 1;
  }
  // Every load is issued: the next kernel in the stream may start its prologue.
  ptx::griddepcontrol_launch_dependents();

  // The partial sums reuse the ring: no copy may still target it and no warp still read it.
  ptx::cp_async_wait<0>();
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kBlocks; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = lane_group + 8 * h;
      if (row >= m) continue;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        float v;
        if constexpr (kF32) {
          v = acc[j][2 * h + e];
        } else {
          const uint32_t pair = acc[j][h];
          v = __half2float(__ushort_as_half(uint16_t(e == 0 ? pair & 0xffffu : pair >> 16)));
        }
        smem.partial[warp_idx][row][decode_frag_col<kNN>(j, lane_pair, e)] = v;
      }
    }
  }
  __syncthreads();

  // Sums over the warps in warp order, one rounding to C's type; consecutive threads take
  // consecutive columns, so the stores to C coalesce.
  for (int idx = tid; idx < m * kBlockN; idx += kThreads) {
    const int row = idx / kBlockN;
    const int col = idx % kBlockN;
    if (col >= cols_left) continue;
    float sum = smem.partial[0][row][col];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) sum += smem.partial[w][row][col];
    uint16_t* const out = params.c + row * params.ldc + n0 + col;
    if (params.epilogue.ops)
      sum = kernels::apply_epilogue<kVariant.dtype>(sum, n0 + col, params.epilogue, out);
    if constexpr (kBF16)
      *out = __bfloat16_as_ushort(__float2bfloat16_rn(sum));
    else
      *out = __half_as_ushort(__float2half_rn(sum));
  }
#elif defined(__CUDA_ARCH__)
  if (threadIdx.x == 0 && blockIdx.x == 0)
    printf("hgemm: sm80_decode_kernel needs sm_80 or newer\n");
  __trap();
#endif
}

}  // namespace hgemm::sm80
