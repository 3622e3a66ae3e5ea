// sm80 mma.sync GEMM: the safety net every shape can fall back to.
//   Arch: sm_80 and later (runs on Hopper as well; built for sm_80 and sm_90a).
//   Layouts: A M x K row-major; B K x N row-major (NN, read with ldmatrix.trans) or N x K
//   row-major (TN); C M x N row-major. Accumulation f32 or f16 (mma.sync m16n8k16).
//   Roles: none; kWarpsM x kWarpsN warps all load, all compute, all store.
//   Pipeline: kNumStages shared-memory slots, one __syncthreads per k-block. The aligned path fills
//   them with 16-byte cp.async (zero-fill outside the problem); the generic path fetches single
//   elements into registers before a k-block's math and stores them to the free slot after it.
//   Limits: any M, N, K >= 1 that fit in int32. The aligned path needs 16-byte aligned A, B, C
//   and row strides that are multiples of 8 elements; the generic path only 2-byte alignment.
#pragma once

#include <cstdint>
#include <cstdio>
#include <type_traits>

#include <cuda_fp16.h>

#include "core/kernel_variant.hpp"
#include "hgemm/hgemm.hpp"
#include "ptx/cp_async.cuh"
#include "ptx/ldmatrix.cuh"
#include "ptx/mma_sync.cuh"

namespace hgemm::sm80 {

struct Params {
  __half const* a;
  __half const* b;
  __half* c;
  int m;
  int n;
  int k;
  int num_m_blocks;
  int num_n_blocks;
  // Split-K: blockIdx.z takes k-blocks [z*k_blocks_per_split, (z+1)*k_blocks_per_split). With
  // `partial` set, each split writes its fp32 sums to partial + z*m*partial_ld (row stride
  // partial_ld, even) and splitk_reduce_kernel adds the splits into C; without it, C is written.
  int k_blocks_per_split;
  float* partial;
  int64_t partial_ld;
};

// Output tiles are visited in groups of this many M-blocks, M fastest, so the CTAs resident at
// one time share a few A row-panels and a narrow band of B instead of sweeping all of B.
inline constexpr int kRasterGroupM = 8;

// A row-major tile of kRows x kCols halves stored as 16-byte chunks, the chunk column XORed with
// the row so that the 8 rows an ldmatrix phase (or a quarter-warp of cp.async) touches land in 8
// different 16-byte bank groups. With 4 chunks per row two rows share one 128-byte line, so rows
// pair up and the pair index selects the XOR.
template <int kRows, int kCols>
struct SwizzledTile {
  static constexpr int kChunksPerRow = kCols / 8;
  static_assert(kChunksPerRow == 4 || kChunksPerRow % 8 == 0,
                "swizzle handles rows of 64 bytes or of a multiple of 128 bytes");
  static constexpr int kElems = kRows * kCols;

  __device__ __forceinline__ static int offset(int row, int chunk) {
    const int key = kChunksPerRow == 4 ? (row >> 1) & 3 : row & 7;
    return row * kCols + ((chunk ^ key) << 3);
  }
};

// Tile (m_block, n_block) for a linear tile index, grouped along M (see kRasterGroupM). A bijection
// on [0, num_m_blocks * num_n_blocks).
struct TileCoord {
  int m_block_idx;
  int n_block_idx;
};

__device__ __forceinline__ TileCoord grouped_tile(int64_t linear_idx, int num_m_blocks,
                                                  int num_n_blocks) {
  const int64_t group_span = int64_t(kRasterGroupM) * num_n_blocks;
  const int64_t group_idx = linear_idx / group_span;
  const int64_t first_m = group_idx * kRasterGroupM;
  const int64_t rows_in_group = min(int64_t(num_m_blocks) - first_m, int64_t(kRasterGroupM));
  const int64_t in_group = linear_idx - group_idx * group_span;
  return {int(first_m + in_group % rows_in_group), int(in_group / rows_in_group)};
}

__device__ __forceinline__ uint32_t pack_halves(__half lo, __half hi) {
  return uint32_t(__half_as_ushort(lo)) | (uint32_t(__half_as_ushort(hi)) << 16);
}

// Moves one operand tile of kRows x kCols halves (row-major, contiguous along kCols) between
// global and shared memory. A thread owns chunks tid, tid + kThreads, ...; since kThreads is a
// multiple of the chunks per row, all of its chunks share a column and sit kRowStep rows apart,
// so one base pointer and one 64-bit stride describe them. Rows at or past `rows_valid` and
// columns at or past `cols_valid` (both relative to the tile origin) are zero-filled.
template <int kRows, int kCols, int kThreads>
struct TileLoader {
  using Tile = SwizzledTile<kRows, kCols>;
  static constexpr int kChunks = kRows * kCols / 8;
  static constexpr int kIters = (kChunks + kThreads - 1) / kThreads;
  static constexpr int kRowStep = kThreads / Tile::kChunksPerRow;
  static_assert(kThreads % Tile::kChunksPerRow == 0, "a thread's chunks must share a column");

  __half const* gmem;  // this thread's first chunk at the tile origin
  int64_t ld;          // elements between rows in global memory
  int row;             // this thread's first row inside the tile
  int col;             // this thread's first column inside the tile (a multiple of 8)

  __device__ __forceinline__ TileLoader(__half const* tile_origin, int64_t ld_, int tid)
      : ld(ld_), row(tid / Tile::kChunksPerRow), col((tid % Tile::kChunksPerRow) * 8) {
    gmem = tile_origin + int64_t(row) * ld + col;
  }

  __device__ __forceinline__ bool owns(int i) const {
    return kChunks % kThreads == 0 || row + i * kRowStep < kRows;
  }

  // Aligned path: whole chunks, valid or not (the bounds are multiples of 8 there).
  __device__ __forceinline__ void issue_cp_async(__half* smem_tile, __half const* fallback,
                                                 int64_t gmem_offset, int rows_valid,
                                                 int cols_valid) const {
#pragma unroll
    for (int i = 0; i < kIters; ++i) {
      if (!owns(i)) continue;
      const int r = row + i * kRowStep;
      const bool valid = r < rows_valid && col < cols_valid;
      __half const* src = valid ? gmem + gmem_offset + int64_t(i) * kRowStep * ld : fallback;
      const uint32_t dst =
          uint32_t(__cvta_generic_to_shared(smem_tile + Tile::offset(r, col / 8)));
      ptx::cp_async_cg_16(dst, src, valid ? 16u : 0u);
    }
  }

  // Generic path, first half: element-wise predicated loads into registers.
  __device__ __forceinline__ void fetch(uint4 (&staged)[kIters], int64_t gmem_offset,
                                        int rows_valid, int cols_valid) const {
#pragma unroll
    for (int i = 0; i < kIters; ++i) {
      const int r = row + i * kRowStep;
      const bool row_ok = owns(i) && r < rows_valid;
      __half const* src = gmem + gmem_offset + int64_t(i) * kRowStep * ld;
      __half h[8];
#pragma unroll
      for (int e = 0; e < 8; ++e)
        h[e] = (row_ok && col + e < cols_valid) ? src[e] : __ushort_as_half(0);
      staged[i] = make_uint4(pack_halves(h[0], h[1]), pack_halves(h[2], h[3]),
                             pack_halves(h[4], h[5]), pack_halves(h[6], h[7]));
    }
  }

  // Generic path, second half: the staged chunks into their swizzled slots.
  __device__ __forceinline__ void store(uint4 const (&staged)[kIters], __half* smem_tile) const {
#pragma unroll
    for (int i = 0; i < kIters; ++i) {
      if (!owns(i)) continue;
      *reinterpret_cast<uint4*>(smem_tile + Tile::offset(row + i * kRowStep, col / 8)) = staged[i];
    }
  }
};

// The kernel's variant, wrapped: nvcc's host stubs cannot spell a class-type template argument
// of a __global__ function, only one nested in a type argument.
template <Sm80Variant kVariant_>
struct Traits {
  static constexpr Sm80Variant kVariant = kVariant_;
};

template <class Traits, bool kAligned>
__global__ void __launch_bounds__(sm80_geometry(Traits::kVariant).num_threads)
    sm80_mma_gemm_kernel(__grid_constant__ Params const params) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr Sm80Variant kVariant = Traits::kVariant;
  // Derived constants (sm80_geometry, core/kernel_variant.hpp, which the launcher uses too) and
  // the rules they rely on.
  constexpr Sm80Geometry kGeometry = sm80_geometry(kVariant);
  constexpr int kBlockM = kVariant.block_m;
  constexpr int kBlockN = kVariant.block_n;
  constexpr int kBlockK = kVariant.block_k;
  constexpr int kNumStages = kVariant.num_stages;
  constexpr int kWarpsM = kVariant.warps_m;
  constexpr int kWarpsN = kVariant.warps_n;
  constexpr int kThreads = kGeometry.num_threads;
  constexpr int kWarpM = kGeometry.warp_m;
  constexpr int kWarpN = kGeometry.warp_n;
  constexpr int kAtomsM = kGeometry.atoms_m;
  constexpr int kAtomsN = kGeometry.atoms_n;
  constexpr int kK16Steps = kBlockK / 16;
  constexpr bool kNN = kGeometry.nn;
  constexpr bool kF32 = kVariant.accum == Accum::kF32;
  static_assert(kBlockM % (16 * kWarpsM) == 0, "block_m must be a multiple of 16*warps_m");
  static_assert(kBlockN % (16 * kWarpsN) == 0,
                "block_n must be a multiple of 16*warps_n (B is read 16 columns per ldmatrix.x4)");
  static_assert(kBlockK == 32 || kBlockK == 64, "block_k must be 32 or 64");
  static_assert(kNumStages >= 2, "the pipeline needs at least 2 stages");
  static_assert(kGeometry.acc_regs <= 128, "at most 128 accumulator registers");

  // A tiles are m x k; B tiles are k x n for NN and n x k for TN, always contiguous along cols.
  constexpr int kRowsB = kNN ? kBlockK : kBlockN;
  constexpr int kColsB = kNN ? kBlockN : kBlockK;
  using TileA = SwizzledTile<kBlockM, kBlockK>;
  using TileB = SwizzledTile<kRowsB, kColsB>;
  using LoaderA = TileLoader<kBlockM, kBlockK, kThreads>;
  using LoaderB = TileLoader<kRowsB, kColsB, kThreads>;

  // Shared memory.
  struct SharedStorage {
    __half a[kNumStages][TileA::kElems];  // (BLK_M,BLK_K,PIPE)
    __half b[kNumStages][TileB::kElems];  // NN: (BLK_K,BLK_N,PIPE); TN: (BLK_N,BLK_K,PIPE)
  };
  extern __shared__ __align__(128) unsigned char smem_raw[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(smem_raw);

  const int tid = int(threadIdx.x);
  const int lane_idx = tid % 32;
  const int warp_idx = tid / 32;
  const int warp_m_idx = warp_idx / kWarpsN;
  const int warp_n_idx = warp_idx % kWarpsN;
  const int m = params.m;
  const int n = params.n;
  const int k = params.k;
  // Written so that K near 2^31 cannot overflow.
  const int total_k_blocks = k / kBlockK + (k % kBlockK != 0 ? 1 : 0);
  const int kb_begin = int(blockIdx.z) * params.k_blocks_per_split;
  const int num_k_blocks = min(total_k_blocks - kb_begin, params.k_blocks_per_split);

  // Per-lane ldmatrix coordinates: lane 8j+r addresses row r of 8x8 matrix j.
  const int ldm_matrix = lane_idx / 8;
  const int ldm_row = lane_idx % 8;
  // A atom (16 x k16): matrices (rows 0-7, k lo), (rows 8-15, k lo), (rows 0-7, k hi), (8-15, hi).
  const int a_frag_row = warp_m_idx * kWarpM + (ldm_matrix % 2) * 8 + ldm_row;
  const int a_frag_chunk = ldm_matrix / 2;
  // B pair of atoms (k16 x n16), matrices in the order b0/b1 of columns 0-7, then of 8-15.
  // TN rows are n: (n 0-7, k lo), (n 0-7, k hi), (n 8-15, k lo), (n 8-15, k hi).
  // NN rows are k, read transposed: (k lo, n 0-7), (k hi, n 0-7), (k lo, n 8-15), (k hi, n 8-15).
  const int b_frag_row = kNN ? (ldm_matrix % 2) * 8 + ldm_row
                             : warp_n_idx * kWarpN + (ldm_matrix / 2) * 8 + ldm_row;
  const int b_frag_chunk = kNN ? warp_n_idx * (kWarpN / 8) + ldm_matrix / 2 : ldm_matrix % 2;

  const int lane_group = lane_idx / 4;  // mma fragment row (C) / column (B)
  const int lane_pair = lane_idx % 4;   // mma fragment column pair

  // Blocks in y fold over M-blocks beyond the 65535 grid limit.
  for (int64_t m_iter = blockIdx.y; m_iter < params.num_m_blocks; m_iter += gridDim.y) {
    const TileCoord tile = grouped_tile(m_iter * params.num_n_blocks + blockIdx.x,
                                        params.num_m_blocks, params.num_n_blocks);
    const int m0 = tile.m_block_idx * kBlockM;
    const int n0 = tile.n_block_idx * kBlockN;

    // Tile origins in global memory and how much of each tile lies inside the problem.
    const LoaderA loader_a(params.a + int64_t(m0) * k, k, tid);
    const LoaderB loader_b(kNN ? params.b + n0 : params.b + int64_t(n0) * k, kNN ? n : k, tid);
    const int a_rows_valid = m - m0;
    const int b_outer_valid = kNN ? 0 : n - n0;  // TN rows (n); NN rows (k) depend on the k-block
    const int b_cols_valid_nn = n - n0;

    // Issues (aligned) or performs (generic prologue) the loads of one k-block into a stage.
    auto load_stage_async = [&](int stage_idx, int k_block_idx) {
      const int k0 = (kb_begin + k_block_idx) * kBlockK;
      loader_a.issue_cp_async(smem.a[stage_idx], params.a, k0, a_rows_valid, k - k0);
      if constexpr (kNN)
        loader_b.issue_cp_async(smem.b[stage_idx], params.b, int64_t(k0) * n, k - k0,
                                b_cols_valid_nn);
      else
        loader_b.issue_cp_async(smem.b[stage_idx], params.b, k0, b_outer_valid, k - k0);
    };
    uint4 staged_a[LoaderA::kIters];
    uint4 staged_b[LoaderB::kIters];
    auto fetch_stage = [&](int k_block_idx) {
      const int k0 = (kb_begin + k_block_idx) * kBlockK;
      loader_a.fetch(staged_a, k0, a_rows_valid, k - k0);
      if constexpr (kNN)
        loader_b.fetch(staged_b, int64_t(k0) * n, k - k0, b_cols_valid_nn);
      else
        loader_b.fetch(staged_b, k0, b_outer_valid, k - k0);
    };
    auto store_stage = [&](int stage_idx) {
      loader_a.store(staged_a, smem.a[stage_idx]);
      loader_b.store(staged_b, smem.b[stage_idx]);
    };

    // Accumulators, zeroed per tile.
    using AccFrag = std::conditional_t<kF32, float[4], uint32_t[2]>;
    AccFrag acc[kAtomsM][kAtomsN];  // (WARP_M/16, WARP_N/8, frag)
#pragma unroll
    for (int i = 0; i < kAtomsM; ++i)
#pragma unroll
      for (int j = 0; j < kAtomsN; ++j)
#pragma unroll
        for (int r = 0; r < (kF32 ? 4 : 2); ++r) acc[i][j][r] = 0;

    // Prologue: the first kNumStages-1 k-blocks. Groups are committed even when empty so the
    // wait count below always refers to the same k-block.
#pragma unroll
    for (int s = 0; s < kNumStages - 1; ++s) {
      if (s < num_k_blocks) {
        if constexpr (kAligned) {
          load_stage_async(s, s);
        } else {
          fetch_stage(s);
          store_stage(s);
        }
      }
      if constexpr (kAligned) ptx::cp_async_commit();
    }

    // Main loop. NOTE: the single barrier per k-block both publishes k-block kb (every thread
    // waited for its own copies) and proves every warp has finished k-block kb-1, whose slot
    // (kb + kNumStages - 1) % kNumStages is refilled right after it.
    int read_stage = 0;
    int write_stage = kNumStages - 1;
    for (int kb = 0; kb < num_k_blocks; ++kb) {
      if constexpr (kAligned) ptx::cp_async_wait<kNumStages - 2>();
      __syncthreads();

      const int next_kb = kb + kNumStages - 1;
      const bool has_next = next_kb < num_k_blocks;
      if constexpr (kAligned) {
        if (has_next) load_stage_async(write_stage, next_kb);
        ptx::cp_async_commit();
      } else {
        if (has_next) fetch_stage(next_kb);
      }

      __half const* smem_a = smem.a[read_stage];
      __half const* smem_b = smem.b[read_stage];
#pragma unroll
      for (int ks = 0; ks < kK16Steps; ++ks) {
        uint32_t a_frag[kAtomsM][4];
        uint32_t b_frag[kAtomsN][2];
#pragma unroll
        for (int i = 0; i < kAtomsM; ++i) {
          const int off = TileA::offset(a_frag_row + i * 16, ks * 2 + a_frag_chunk);
          ptx::ldmatrix_x4(a_frag[i], uint32_t(__cvta_generic_to_shared(smem_a + off)));
        }
#pragma unroll
        for (int j = 0; j < kAtomsN / 2; ++j) {
          uint32_t quad[4];
          if constexpr (kNN) {
            const int off = TileB::offset(ks * 16 + b_frag_row, b_frag_chunk + j * 2);
            ptx::ldmatrix_x4_trans(quad, uint32_t(__cvta_generic_to_shared(smem_b + off)));
          } else {
            const int off = TileB::offset(b_frag_row + j * 16, ks * 2 + b_frag_chunk);
            ptx::ldmatrix_x4(quad, uint32_t(__cvta_generic_to_shared(smem_b + off)));
          }
          b_frag[2 * j][0] = quad[0];
          b_frag[2 * j][1] = quad[1];
          b_frag[2 * j + 1][0] = quad[2];
          b_frag[2 * j + 1][1] = quad[3];
        }
#pragma unroll
        for (int i = 0; i < kAtomsM; ++i)
#pragma unroll
          for (int j = 0; j < kAtomsN; ++j) {
            if constexpr (kF32)
              ptx::mma_m16n8k16_f32(acc[i][j], a_frag[i], b_frag[j]);
            else
              ptx::mma_m16n8k16_f16(acc[i][j], a_frag[i], b_frag[j]);
          }
      }

      if constexpr (!kAligned) {
        if (has_next) store_stage(write_stage);
      }
      read_stage = read_stage == kNumStages - 1 ? 0 : read_stage + 1;
      write_stage = write_stage == kNumStages - 1 ? 0 : write_stage + 1;
    }

    // Drain: no copy may still target shared memory and no warp may still read it when the next
    // tile's prologue starts refilling the slots.
    if constexpr (kAligned) ptx::cp_async_wait<0>();
    __syncthreads();

    // Epilogue: straight from the accumulator fragments to global memory. A lane owns column
    // pairs (2t, 2t+1) of rows g and g+8 of every atom. Bounds are compared in tile coordinates
    // so that M or N near 2^31 cannot overflow them.
    const int rows_left = m - m0;
    const int cols_left = n - n0;
#pragma unroll
    for (int i = 0; i < kAtomsM; ++i) {
#pragma unroll
      for (int half_idx = 0; half_idx < 2; ++half_idx) {
        const int row = warp_m_idx * kWarpM + i * 16 + half_idx * 8 + lane_group;
        if (row >= rows_left) continue;
        if (params.partial != nullptr) {
          float* p_row = params.partial + (int64_t(blockIdx.z) * m + m0 + row) * params.partial_ld + n0;
#pragma unroll
          for (int j = 0; j < kAtomsN; ++j) {
            const int col = warp_n_idx * kWarpN + j * 8 + lane_pair * 2;
            float2 pair;
            if constexpr (kF32) {
              pair = make_float2(acc[i][j][half_idx * 2], acc[i][j][half_idx * 2 + 1]);
            } else {
              pair = __half22float2(
                  __halves2half2(__ushort_as_half(uint16_t(acc[i][j][half_idx] & 0xffffu)),
                                 __ushort_as_half(uint16_t(acc[i][j][half_idx] >> 16))));
            }
            // col is even and partial_ld is even and >= n, so the pair never leaves the row.
            if (col < cols_left) *reinterpret_cast<float2*>(p_row + col) = pair;
          }
          continue;
        }
        __half* c_row = params.c + int64_t(m0 + row) * n + n0;
#pragma unroll
        for (int j = 0; j < kAtomsN; ++j) {
          const int col = warp_n_idx * kWarpN + j * 8 + lane_pair * 2;
          __half2 pair;
          if constexpr (kF32)
            pair = __floats2half2_rn(acc[i][j][half_idx * 2], acc[i][j][half_idx * 2 + 1]);
          else
            pair = __halves2half2(__ushort_as_half(uint16_t(acc[i][j][half_idx] & 0xffffu)),
                                  __ushort_as_half(uint16_t(acc[i][j][half_idx] >> 16)));
          if constexpr (kAligned) {
            // n and n0 are multiples of 8 and col is even, so col < cols_left implies
            // col + 1 < cols_left, and the pair is 4-byte aligned because C is.
            if (col < cols_left) *reinterpret_cast<__half2*>(c_row + col) = pair;
          } else {
            if (col < cols_left) c_row[col] = __low2half(pair);
            if (col + 1 < cols_left) c_row[col + 1] = __high2half(pair);
          }
        }
      }
    }
  }
#elif defined(__CUDA_ARCH__)
  if (threadIdx.x == 0 && blockIdx.x == 0 && blockIdx.y == 0)
    printf("hgemm: sm80_mma_gemm_kernel needs sm_80 or newer\n");
  __trap();
#endif
}

}  // namespace hgemm::sm80
