// sm80 general GEMM: the safety net of hgemmGemm, for every call the tuned kernels cannot take.
//   Arch: sm_80 and later (runs on Hopper as well; built for sm_80 and sm_90a).
//   Layouts: A, B and C each given as two element strides (row, column), so any storage order and
//   leading dimension; strided batches; any 2-byte alignment (operands are read element by
//   element, coalesced along whichever index is contiguous in memory).
//   Types: fp16 with f32 or f16 accumulation, bf16 with f32 (mma.sync m16n8k16).
//   Epilogue: C = act(alpha * acc + beta * C + bias) in fp32, one rounding; C is read only when
//   beta != 0.
//   Roles: none; 2 x 2 warps of 32 x 32 share a 64 x 64 block tile, all load, compute and store.
//   Pipeline: one shared-memory stage; the next k-block is fetched into registers while the
//   current one multiplies. A grid-stride loop over (batch, m-block, n-block) tiles lets any size
//   and batch count run in one launch.
//   Limits: M, N, K <= 2^31-1 (32-bit tile coordinates inside a block, 64-bit addresses).
#pragma once

#include <cstdint>
#include <cstdio>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "hgemm/hgemm.hpp"
#include "kernels/common/epilogue.cuh"
#include "ptx/mma_sync.cuh"

namespace hgemm::sm80::general {

inline constexpr int kBlockM = 64;
inline constexpr int kBlockN = 64;
inline constexpr int kBlockK = 32;
inline constexpr int kWarpsM = 2;
inline constexpr int kWarpsN = 2;
inline constexpr int kThreads = 32 * kWarpsM * kWarpsN;
// A padded shared row of 40 halves (20 words): the eight rows a fragment load touches start on
// banks 0, 20, 8, 28, 16, 4, 24, 12, so its 32 words land on 32 distinct banks.
inline constexpr int kSmemK = kBlockK + 8;

// Every pointer holds raw 16-bit elements of the call's type; strides are in elements.
struct Params {
  uint16_t const* a;
  uint16_t const* b;
  uint16_t* c;
  uint16_t const* bias;  // nullptr: none
  int64_t m, n, k;
  int64_t a_stride_m, a_stride_k;  // A(i, l) at a[i * a_stride_m + l * a_stride_k]
  int64_t b_stride_k, b_stride_n;  // B(l, j) at b[l * b_stride_k + j * b_stride_n]
  int64_t c_stride_m, c_stride_n;  // C(i, j) at c[i * c_stride_m + j * c_stride_n]
  int64_t a_batch_stride, b_batch_stride, c_batch_stride;
  int64_t batch_count;
  int64_t num_m_blocks, num_n_blocks;
  float alpha, beta;
  Activation activation;
};

using kernels::activate;
using kernels::from_float;
using kernels::to_float;

// One operand tile, kTileRows (m of A or n of B) x kBlockK, each thread's share in registers.
inline constexpr int kTileRows = kBlockM;
inline constexpr int kLoadsPerThread = kTileRows * kBlockK / kThreads;
static_assert(kBlockM == kBlockN, "A and B tiles share one loader: kBlockM must equal kBlockN");
static_assert(kTileRows * kBlockK % kThreads == 0, "every thread loads the same number of elements");

// A thread's loads keep one tile index fixed and step the other. Consecutive threads walk k when
// k is the operand's contiguous index, else the row index, so a warp's reads coalesce either way.
inline constexpr int kRowStep = kThreads / kBlockK;  // k contiguous: rows r0, r0 + 4, ...
inline constexpr int kKStep = kThreads / kTileRows;  // rows contiguous: k l0, l0 + 2, ...
static_assert(kThreads % kBlockK == 0 && kThreads % kTileRows == 0,
              "each thread keeps one tile index fixed across its loads");

// Reads tile (row0.., k0..) of an operand whose element (r, l) is at base[r * stride_row +
// l * stride_k]; elements outside rows x k_size become zeros, which add nothing to the product.
__device__ __forceinline__ void load_tile(uint16_t (&regs)[kLoadsPerThread], uint16_t const* base,
                                          int64_t stride_row, int64_t stride_k, bool k_contiguous,
                                          int64_t row0, int64_t rows, int64_t k0, int64_t k_size,
                                          int thread_idx) {
  if (k_contiguous) {
    const int64_t row = row0 + thread_idx / kBlockK;
    const int64_t kk = k0 + thread_idx % kBlockK;
    uint16_t const* p = base + row * stride_row + kk * stride_k;
    const int64_t step = kRowStep * stride_row;
#pragma unroll
    for (int i = 0; i < kLoadsPerThread; ++i)
      regs[i] = kk < k_size && row + i * kRowStep < rows ? p[i * step] : uint16_t(0);
  } else {
    const int64_t row = row0 + thread_idx % kTileRows;
    const int64_t kk = k0 + thread_idx / kTileRows;
    uint16_t const* p = base + row * stride_row + kk * stride_k;
    const int64_t step = kKStep * stride_k;
#pragma unroll
    for (int i = 0; i < kLoadsPerThread; ++i)
      regs[i] = row < rows && kk + i * kKStep < k_size ? p[i * step] : uint16_t(0);
  }
}

__device__ __forceinline__ void store_tile(uint16_t (*smem)[kSmemK],
                                           uint16_t const (&regs)[kLoadsPerThread],
                                           bool k_contiguous, int thread_idx) {
  if (k_contiguous) {
    const int r = thread_idx / kBlockK, l = thread_idx % kBlockK;
#pragma unroll
    for (int i = 0; i < kLoadsPerThread; ++i) smem[r + i * kRowStep][l] = regs[i];
  } else {
    const int r = thread_idx % kTileRows, l = thread_idx / kTileRows;
#pragma unroll
    for (int i = 0; i < kLoadsPerThread; ++i) smem[r][l + i * kKStep] = regs[i];
  }
}

// Two consecutive k elements of one shared row, as an mma.sync fragment register (the lower
// index in the lower half).
__device__ __forceinline__ uint32_t pair_at(uint16_t const* p) {
  return *reinterpret_cast<uint32_t const*>(p);
}

template <DType kDType, Accum kAccum>
__global__ void __launch_bounds__(kThreads)
    sm80_general_gemm_kernel(__grid_constant__ Params const params) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // Derived constants and the rules they rely on.
  constexpr int kWarpTileM = kBlockM / kWarpsM;  // 32
  constexpr int kWarpTileN = kBlockN / kWarpsN;  // 32
  constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;
  constexpr int kFragsM = kWarpTileM / kMmaM;  // 2
  constexpr int kFragsN = kWarpTileN / kMmaN;  // 4
  static_assert(kDType == DType::kF16 || kAccum == Accum::kF32,
                "bf16 accumulates in f32 only (mma.sync has no bf16 accumulator)");
  static_assert(kBlockK % kMmaK == 0, "a k-block is whole mma.sync k-steps");
  static_assert(kWarpTileM % kMmaM == 0 && kWarpTileN % kMmaN == 0,
                "a warp tile is whole mma.sync tiles");
  constexpr bool kF32Acc = kAccum == Accum::kF32;
  // f32: four floats per mma tile; f16: two registers of packed halves.
  using AccFrag = std::conditional_t<kF32Acc, float[4], uint32_t[2]>;

  struct SharedStorage {
    alignas(16) uint16_t a[kBlockM][kSmemK];  // (BLK_M, BLK_K), k contiguous
    alignas(16) uint16_t b[kBlockN][kSmemK];  // (BLK_N, BLK_K), k contiguous
  };
  __shared__ SharedStorage smem;

  const int thread_idx = int(threadIdx.x);
  const int warp_idx = thread_idx / 32;
  const int lane_idx = thread_idx % 32;
  const int warp_m_idx = warp_idx / kWarpsN;
  const int warp_n_idx = warp_idx % kWarpsN;
  const int group_idx = lane_idx / 4;   // g in the fragment layout (ptx/mma_sync.cuh)
  const int quad_idx = lane_idx % 4;    // t

  const Params& p = params;
  const bool a_k_contiguous = p.a_stride_k == 1;
  const bool b_k_contiguous = p.b_stride_k == 1;
  const int64_t tiles_per_batch = p.num_m_blocks * p.num_n_blocks;
  const int64_t num_tiles = tiles_per_batch * p.batch_count;
  const int64_t num_k_blocks = (p.k + kBlockK - 1) / kBlockK;

  for (int64_t tile_idx = blockIdx.x; tile_idx < num_tiles; tile_idx += gridDim.x) {
    const int64_t batch_idx = tile_idx / tiles_per_batch;
    const int64_t rest = tile_idx % tiles_per_batch;
    const int64_t m0 = rest / p.num_n_blocks * kBlockM;
    const int64_t n0 = rest % p.num_n_blocks * kBlockN;
    uint16_t const* a = p.a + batch_idx * p.a_batch_stride;
    uint16_t const* b = p.b + batch_idx * p.b_batch_stride;
    uint16_t* c = p.c + batch_idx * p.c_batch_stride;

    AccFrag acc[kFragsM][kFragsN];                                // (WARP_M, WARP_N)
#pragma unroll
    for (int mi = 0; mi < kFragsM; ++mi)
#pragma unroll
      for (int ni = 0; ni < kFragsN; ++ni)
#pragma unroll
        for (int r = 0; r < int(sizeof(AccFrag) / 4); ++r) {
          if constexpr (kF32Acc) acc[mi][ni][r] = 0.0f;
          else acc[mi][ni][r] = 0u;
        }

    // Main loop: the k-block in registers goes to shared memory, the next one is fetched, then
    // the warps multiply out of shared memory while those loads are in flight.
    uint16_t a_regs[kLoadsPerThread], b_regs[kLoadsPerThread];
    load_tile(a_regs, a, p.a_stride_m, p.a_stride_k, a_k_contiguous, m0, p.m, 0, p.k, thread_idx);
    load_tile(b_regs, b, p.b_stride_n, p.b_stride_k, b_k_contiguous, n0, p.n, 0, p.k, thread_idx);
    for (int64_t k_block_idx = 0; k_block_idx < num_k_blocks; ++k_block_idx) {
      store_tile(smem.a, a_regs, a_k_contiguous, thread_idx);
      store_tile(smem.b, b_regs, b_k_contiguous, thread_idx);
      __syncthreads();
      if (k_block_idx + 1 < num_k_blocks) {
        const int64_t k0 = (k_block_idx + 1) * kBlockK;
        load_tile(a_regs, a, p.a_stride_m, p.a_stride_k, a_k_contiguous, m0, p.m, k0, p.k,
                  thread_idx);
        load_tile(b_regs, b, p.b_stride_n, p.b_stride_k, b_k_contiguous, n0, p.n, k0, p.k,
                  thread_idx);
      }
#pragma unroll
      for (int kk = 0; kk < kBlockK; kk += kMmaK) {
        const int k_lo = kk + 2 * quad_idx;
        uint32_t a_frag[kFragsM][4];
        uint32_t b_frag[kFragsN][2];
#pragma unroll
        for (int mi = 0; mi < kFragsM; ++mi) {
          const int row = warp_m_idx * kWarpTileM + mi * kMmaM + group_idx;
          a_frag[mi][0] = pair_at(&smem.a[row][k_lo]);
          a_frag[mi][1] = pair_at(&smem.a[row + 8][k_lo]);
          a_frag[mi][2] = pair_at(&smem.a[row][k_lo + 8]);
          a_frag[mi][3] = pair_at(&smem.a[row + 8][k_lo + 8]);
        }
#pragma unroll
        for (int ni = 0; ni < kFragsN; ++ni) {
          const int col = warp_n_idx * kWarpTileN + ni * kMmaN + group_idx;
          b_frag[ni][0] = pair_at(&smem.b[col][k_lo]);
          b_frag[ni][1] = pair_at(&smem.b[col][k_lo + 8]);
        }
#pragma unroll
        for (int mi = 0; mi < kFragsM; ++mi)
#pragma unroll
          for (int ni = 0; ni < kFragsN; ++ni) {
            if constexpr (!kF32Acc)
              ptx::mma_m16n8k16_f16(acc[mi][ni], a_frag[mi], b_frag[ni]);
            else if constexpr (kDType == DType::kF16)
              ptx::mma_m16n8k16_f32(acc[mi][ni], a_frag[mi], b_frag[ni]);
            else
              ptx::mma_m16n8k16_bf16_f32(acc[mi][ni], a_frag[mi], b_frag[ni]);
          }
      }
      // NOTE: the next iteration (or tile) overwrites the stage; every warp must be done with it.
      __syncthreads();
    }

    // Epilogue: per element, in fp32, then one rounding. C is read only when beta != 0, so
    // whatever C held (NaN included) never reaches a beta == 0 result.
    const bool read_c = p.beta != 0.0f;
#pragma unroll
    for (int mi = 0; mi < kFragsM; ++mi)
#pragma unroll
      for (int ni = 0; ni < kFragsN; ++ni)
#pragma unroll
        for (int half_idx = 0; half_idx < 2; ++half_idx)
#pragma unroll
          for (int j = 0; j < 2; ++j) {
            const int64_t row = m0 + warp_m_idx * kWarpTileM + mi * kMmaM + group_idx + 8 * half_idx;
            const int64_t col = n0 + warp_n_idx * kWarpTileN + ni * kMmaN + 2 * quad_idx + j;
            if (row >= p.m || col >= p.n) continue;
            float x;
            if constexpr (kF32Acc) {
              x = acc[mi][ni][2 * half_idx + j];
            } else {
              const uint32_t pair = acc[mi][ni][half_idx];  // column 2t in the lower half
              x = __half2float(__ushort_as_half(uint16_t(j == 0 ? pair & 0xffffu : pair >> 16)));
            }
            uint16_t* out = c + row * p.c_stride_m + col * p.c_stride_n;
            float v = p.alpha * x;
            if (read_c) v += p.beta * to_float<kDType>(*out);
            if (p.bias) v += to_float<kDType>(p.bias[col]);
            *out = from_float<kDType>(activate(v, p.activation));
          }
  }
#elif defined(__CUDA_ARCH__)
  if (threadIdx.x == 0 && blockIdx.x == 0)
    printf("hgemm: sm80_general_gemm_kernel needs sm_80 or newer\n");
  __trap();
#endif
}

}  // namespace hgemm::sm80::general
