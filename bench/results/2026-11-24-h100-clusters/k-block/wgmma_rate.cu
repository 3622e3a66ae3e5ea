// Microbenchmark: cycles per 64-deep k-block (four m64nNk16 wgmma, SS, fp32 acc, 128B-swizzled
// K-major operands resident in shared memory) for W consumer warpgroups issuing side by side,
// with the kernel's loop shape (fence, 4 wgmma, commit, wait<kWait>). Per run (all() lists
// them): rotate (8 stages, as the kernel's ring), bars (an mbarrier wait per k-block, each slot
// completed at once by a producer with no latency), spin (a producer warpgroup polling a barrier
// beside the consumer), release (a per-warp arrive after each group), big_smem (207 KB of dynamic
// shared memory), tma (operands loaded by TMA). Results and reading: README.md beside it.
// Build from the repository root: nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a
//   -Isrc -Iinclude bench/results/2026-11-24-h100-clusters/k-block/wgmma_rate.cu
#include <cstdio>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <vector>
#include <random>
#include "ptx/tma.cuh"
#include "ptx/wgmma.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/fence.cuh"
using namespace hgemm;

template <int N, int kWait, bool kOwnB>
__global__ void __launch_bounds__(384) rate(long long* out, int iters, int random, int rotate, int bars, int spin, int release,
     const __grid_constant__ CUtensorMap tmap, int tma) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const int wg = threadIdx.x / 128;
  // A: 64 rows x 128 B; B: N rows x 128 B (one per warpgroup when kOwnB).
  // kStages rotating stages of A (64 x 128 B) and B (N x 128 B), like the kernel's ring.
  constexpr int kStages = 8;
  const uint32_t a0 = base;
  const uint32_t b0 = base + kStages * 64 * 128;
  for (int i = threadIdx.x; !tma && i < kStages * (64 + N) * 128 / 4; i += blockDim.x)
    if (random) {
      uint32_t x = i * 2654435761u + 12345u;
      x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
      // two halves with random sign, exponent 13..16 (0.125 to 2) and mantissa
      const uint32_t lo = (x & 0x83ffu) | ((13u + ((x >> 10) & 3u)) << 10);
      const uint32_t hi = ((x >> 16) & 0x83ffu) | ((13u + ((x >> 26) & 3u)) << 10);
      reinterpret_cast<uint32_t*>(smem)[i] = lo | (hi << 16);
    } else {
      reinterpret_cast<uint32_t*>(smem)[i] = 0x3c003c00u * ((i & 7) == 0);
    }
  __shared__ __align__(8) uint64_t full[8];
  __shared__ __align__(8) uint64_t never;
  __shared__ __align__(8) uint64_t tbar;
  __shared__ __align__(8) uint64_t empty;
  const uint32_t full0 = static_cast<uint32_t>(__cvta_generic_to_shared(&full[0]));
  if (threadIdx.x == 0) {
    for (int i = 0; i < 8; ++i) ptx::mbarrier_init(full0 + 8 * i, 1);
    ptx::mbarrier_init(static_cast<uint32_t>(__cvta_generic_to_shared(&never)), 1);
    ptx::mbarrier_init(static_cast<uint32_t>(__cvta_generic_to_shared(&tbar)), 1);
    ptx::mbarrier_init(static_cast<uint32_t>(__cvta_generic_to_shared(&empty)), (1u << 20) - 1);
    ptx::fence_mbarrier_init();
  }
  __syncthreads();
  if (tma) {
    // The operands loaded by TMA (the async proxy), as the kernel's are, in 32-row boxes.
    const uint32_t tb = static_cast<uint32_t>(__cvta_generic_to_shared(&tbar));
    if (threadIdx.x == 0) {
      constexpr int kRows = kStages * (64 + N);
      ptx::mbarrier_arrive_expect_tx(tb, kRows * 128);
      for (int r = 0; r < kRows; r += 32) ptx::tma_load_2d(base + r * 128, &tmap, tb, 0, r);
    }
    ptx::mbarrier_wait(tb, 0);
  }
  if (threadIdx.x == 0)
    for (int i = 0; i < 8; ++i) ptx::mbarrier_arrive(full0 + 8 * i);
  __syncthreads();
  ptx::fence_proxy_async_shared_cta();
  uint32_t phase = 0;
  const int consumers = spin ? int(blockDim.x) - 128 : int(blockDim.x);
  if (int(threadIdx.x) >= consumers) {
    // A producer warpgroup: one thread polls a barrier that completes when the consumers finish.
    if (threadIdx.x == consumers) {
      const uint32_t nv = static_cast<uint32_t>(__cvta_generic_to_shared(&never));
      ptx::mbarrier_wait(nv, 0);
    }
    return;
  }
  constexpr uint64_t kDesc = ptx::make_smem_desc_base(16, 8 * 128, 128);
  float acc[N / 2];
  for (int i = 0; i < N / 2; ++i) acc[i] = 0.f;
  long long t0 = 0;
  for (int it = -8; it < iters; ++it) {
    if (it == 0) t0 = clock64();
    const int st = rotate ? (it & 7) : 0;
    if (bars) ptx::mbarrier_wait(full0 + 8 * (it & 7), phase);
    const uint32_t a = a0 + st * 64 * 128;
    const uint32_t b = b0 + st * N * 128;
    ptx::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      ptx::wgmma_ss<N, true, 0>(acc, ptx::make_smem_desc(kDesc, a + kk * 32),
                                ptx::make_smem_desc(kDesc, b + kk * 32), 1u);
    ptx::wgmma_commit();
    ptx::wgmma_wait<kWait>();
    if (bars) {
      // Complete the slot's next phase at once: a producer with no latency.
      if (threadIdx.x == 0 && it > -8) ptx::mbarrier_arrive(full0 + 8 * ((it + 7) & 7));
      if ((it & 7) == 7) phase ^= 1;
    }
    if (release && threadIdx.x % 32 == 0)
      ptx::mbarrier_arrive(static_cast<uint32_t>(__cvta_generic_to_shared(&empty)));
  }
  ptx::wgmma_wait<0>();
  const long long t1 = clock64();
  if (spin && threadIdx.x == 0)
    ptx::mbarrier_arrive(static_cast<uint32_t>(__cvta_generic_to_shared(&never)));
  float s = 0;
  for (int i = 0; i < N / 2; ++i) s += acc[i];
  if (threadIdx.x % 128 == 0) out[blockIdx.x * 2 + wg] = (t1 - t0) + (s == 12345.f);
}

CUtensorMap make_map(int rows) {
  static void* g = nullptr;
  static int have = 0;
  if (rows > have) {
    if (g) cudaFree(g);
    cudaMalloc(&g, size_t(rows) * 128);
    std::vector<uint16_t> h(size_t(rows) * 64);
    std::mt19937 rng(7);
    for (auto& x : h) x = uint16_t((rng() & 0x83ffu) | ((13u + (rng() & 3u)) << 10));
    cudaMemcpy(g, h.data(), h.size() * 2, cudaMemcpyHostToDevice);
    have = rows;
  }
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
  CUtensorMap m{};
  cuuint64_t dims[2] = {64, cuuint64_t(rows)};
  cuuint64_t strides[1] = {128};
  cuuint32_t box[2] = {64, 32};
  cuuint32_t es[2] = {1, 1};
  CUresult r = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn)(
      &m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, g, dims, strides, box, es,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) printf("encode failed %d\n", int(r));
  return m;
}

template <int N, int kWait, bool kOwnB>
void run(int wgs, int blocks, int random, int rotate, int bars, int spin = 0, int release = 0,
         int big_smem = 0, int tma = 0) {
  long long* d;
  cudaMalloc(&d, 132 * 2 * sizeof(long long));
  const int smem = big_smem ? 207 * 1024 : 8 * (64 + N) * 128;
  cudaFuncSetAttribute(rate<N, kWait, kOwnB>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  const int iters = 2000;
  const CUtensorMap tmap = make_map(8 * (64 + N));
  rate<N, kWait, kOwnB><<<blocks, 128 * (wgs + spin), smem>>>(d, iters, random, rotate, bars, spin,
                                                              release, tmap, tma);
  cudaError_t e = cudaDeviceSynchronize();
  long long h[2];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  const double per = double(h[0]) / iters;
  const double flop = 2.0 * 64 * N * 64 * wgs;
  printf("tma=%d spin=%d release=%d bigsmem=%d bars=%d %s %s N=%3d wait<%d> wgs=%d ownB=%d blocks=%3d: %7.1f cycles/k-block  %6.0f FLOP/clk/SM (peak 4096)  %s\n",
         tma, spin, release, big_smem, bars, random ? "random" : "zeros ", rotate ? "8 stages" : "1 stage ", N, kWait, wgs, int(kOwnB), blocks, per, flop / per, e == cudaSuccess ? "" : cudaGetErrorString(e));
  cudaFree(d);
}

template <int N>
void all() {
  for (int tma : {0, 1}) {
    run<N, 1, false>(1, 132, 1, 1, 0, 0, 0, 0, tma);
    run<N, 1, false>(1, 132, 1, 1, 1, 0, 0, 0, tma);
    run<N, 1, false>(2, 132, 1, 1, 1, 0, 0, 0, tma);
  }
}

int main() {
  all<96>();
  all<128>();

}
