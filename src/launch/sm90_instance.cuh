// Host launcher of one sm90 warp-specialized instantiation: tensor maps, persistent grid size,
// the one-time shared-memory opt-in, and the cluster launch. Included by the sm90_catalog_*.cu
// translation units, each of which instantiates a few tile shapes (they compile in parallel).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/sm90/sm90_ws.cuh"
#include "launch/launch.hpp"
#include "launch/sm90_launch.hpp"
#include "launch/sm90_tensor_map.hpp"
#include "launch/splitk.hpp"

namespace hgemm::sm90 {

template <class Traits>
struct Instance {
  static constexpr int kMaxDevices = 64;

  static_assert(Traits::kSmemBytes == sm90_dynamic_smem_bytes(Traits::config()),
                "sm90_dynamic_smem_bytes must match the kernel's SharedStorage");

  static auto kernel() { return &sm90_ws_gemm_kernel<Traits>; }

  // Per device, once: raise the dynamic smem limit and count how many clusters fit at a time.
  // Racing threads both do the (idempotent) work; the result is published with release order.
  static int max_active_clusters(int device, int sm_count) {
    static std::array<std::atomic<int>, kMaxDevices> cached{};
    if (device >= 0 && device < kMaxDevices)
      if (int v = cached[device].load(std::memory_order_acquire); v > 0) return v;
    HGEMM_CUDA_CHECK(cudaFuncSetAttribute(kernel(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          Traits::kSmemBytes));
    int clusters = sm_count / Traits::kClusterSize;
    if constexpr (Traits::kClusterSize > 1) {
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(unsigned(clusters * Traits::kClusterSize));
      config.blockDim = dim3(Traits::kNumThreads);
      config.dynamicSmemBytes = Traits::kSmemBytes;
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = Traits::kClusterSize;
      attr.val.clusterDim.y = 1;
      attr.val.clusterDim.z = 1;
      config.attrs = &attr;
      config.numAttrs = 1;
      int fit = 0;
      if (cudaOccupancyMaxActiveClusters(&fit, kernel(), &config) == cudaSuccess && fit > 0)
        clusters = std::min(clusters, fit);
      else
        cudaGetLastError();  // the query is advisory; keep the error state clean
    }
    clusters = std::max(clusters, 1);
    if (device >= 0 && device < kMaxDevices)
      cached[device].store(clusters, std::memory_order_release);
    return clusters;
  }

  static void launch(KernelConfig const& config, GemmArgs const& args) {
    if (Status s = sm90_check_args(Traits::config(), args); !s.ok())
      HGEMM_THROW(s.code, s.message);
    DeviceInfo const& device = current_device();
    const int m = int(args.m), n = int(args.n), k = int(args.k);

    Params params{};
    params.tma_a = tensor_map_2d({args.a, uint64_t(m), uint64_t(k), uint64_t(k),
                                  uint32_t(Traits::kABoxRows), uint32_t(Traits::kABoxK),
                                  uint32_t(Traits::kASwizzle)});
    if constexpr (Traits::kBKMajor)
      params.tma_b = tensor_map_2d({args.b, uint64_t(n), uint64_t(k), uint64_t(k),
                                    uint32_t(Traits::kBBoxOuter), uint32_t(Traits::kBBoxInner),
                                    uint32_t(Traits::kBSwizzle)});
    else
      params.tma_b = tensor_map_2d({args.b, uint64_t(k), uint64_t(n), uint64_t(n),
                                    uint32_t(Traits::kBBoxOuter), uint32_t(Traits::kBBoxInner),
                                    uint32_t(Traits::kBSwizzle)});
    if constexpr (Traits::kTmaStore)
      params.tma_c = tensor_map_2d({args.c, uint64_t(m), uint64_t(n), uint64_t(n),
                                    uint32_t(Traits::kCBoxOuter), uint32_t(Traits::kCBoxInner),
                                    uint32_t(Traits::kCSwizzle)});
    params.c = static_cast<__half*>(args.c);
    params.m = m;
    params.n = n;
    params.k = k;
    params.num_k_blocks = (k + Traits::kBlockK - 1) / Traits::kBlockK;
    const int num_m_blocks = (m + Traits::kBlockM - 1) / Traits::kBlockM;
    const int num_n_blocks = (n + Traits::kBlockN - 1) / Traits::kBlockN;
    params.scheduler = kernels::TileScheduler::make(num_m_blocks, num_n_blocks, Traits::kClusterM,
                                                    Traits::kClusterN, config.group_size,
                                                    config.raster == Raster::kAlongM);

    const SplitPlan plan = plan_split(config.split_k, args, Traits::kBlockK);
    const SplitScratch scratch(plan, args.stream);
    params.num_splits = scratch.splits();
    params.k_blocks_per_split =
        params.num_splits > 1 ? plan.k_blocks_per_split : params.num_k_blocks;
    params.partial = scratch.partial();
    params.partial_ld = plan.partial_ld;

    // Persistent grid: no more clusters than fit at once, than the CTA limit allows, or than
    // there are work units (cluster tiles times K-splits).
    int clusters = max_active_clusters(device.ordinal, device.sm_count);
    if (int limit = sm90_max_ctas(); limit > 0)
      clusters = std::min(clusters, std::max(1, limit / Traits::kClusterSize));
    clusters = std::min(clusters, params.scheduler.num_cluster_tiles() * params.num_splits);

    cudaLaunchConfig_t launch{};
    launch.gridDim = dim3(unsigned(clusters * Traits::kClusterSize));
    launch.blockDim = dim3(Traits::kNumThreads);
    launch.dynamicSmemBytes = Traits::kSmemBytes;
    launch.stream = args.stream;
    cudaLaunchAttribute attrs[2]{};
    launch.attrs = attrs;
    if constexpr (Traits::kClusterSize > 1) {
      cudaLaunchAttribute& attr = attrs[launch.numAttrs++];
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = Traits::kClusterSize;
      attr.val.clusterDim.y = 1;
      attr.val.clusterDim.z = 1;
    }
    const bool programmatic = programmatic_launch(device);
    if (programmatic) attrs[launch.numAttrs++] = programmatic_launch_attribute();
    HGEMM_CUDA_CHECK(cudaLaunchKernelEx(&launch, kernel(), params));
    HGEMM_LAUNCH_CHECK();
    if (params.num_splits > 1)
      launch_splitk_reduce(params.partial, params.partial_ld, params.num_splits, args.c, m, n,
                           args.stream, programmatic);
  }

  static KernelInstance instance() { return {Traits::config(), &launch}; }
};

// The variants of one tile shape: both layouts for each accumulation in kAccums.
template <int kBlockM, int kBlockN, int kBlockK, int kNumStages, int kNumConsumerWgs,
          int kClusterM, int kClusterN, Epilogue kEpilogue, Schedule kSchedule, Accum... kAccums>
void add_layouts(std::vector<KernelInstance>& out) {
  auto add = [&]<Accum kAccum>() {
    out.push_back(Instance<Traits<kBlockM, kBlockN, kBlockK, kNumStages, kNumConsumerWgs,
                                  kClusterM, kClusterN, kEpilogue, kAccum, Layout::kNN,
                                  kSchedule>>::instance());
    out.push_back(Instance<Traits<kBlockM, kBlockN, kBlockK, kNumStages, kNumConsumerWgs,
                                  kClusterM, kClusterN, kEpilogue, kAccum, Layout::kTN,
                                  kSchedule>>::instance());
  };
  (add.template operator()<kAccums>(), ...);
}

// The four variants (NN/TN x f32/f16) of one tile shape.
template <int kBlockM, int kBlockN, int kBlockK, int kNumStages, int kNumConsumerWgs,
          int kClusterM, int kClusterN, Epilogue kEpilogue,
          Schedule kSchedule = Schedule::kCooperative>
void add_variants(std::vector<KernelInstance>& out) {
  add_layouts<kBlockM, kBlockN, kBlockK, kNumStages, kNumConsumerWgs, kClusterM, kClusterN,
              kEpilogue, kSchedule, Accum::kF32, Accum::kF16>(out);
}

// The two fp16-accumulation variants (NN/TN) of a tile too wide for fp32 accumulators.
template <int kBlockM, int kBlockN, int kBlockK, int kNumStages, int kNumConsumerWgs,
          int kClusterM, int kClusterN, Epilogue kEpilogue,
          Schedule kSchedule = Schedule::kCooperative>
void add_variants_f16(std::vector<KernelInstance>& out) {
  add_layouts<kBlockM, kBlockN, kBlockK, kNumStages, kNumConsumerWgs, kClusterM, kClusterN,
              kEpilogue, kSchedule, Accum::kF16>(out);
}

}  // namespace hgemm::sm90
