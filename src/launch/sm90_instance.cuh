// One sm90 warp-specialized instantiation as a catalog entry: the kernel, its launch geometry
// (checked against the kernel's Traits) and sm90_launch. Included by the sm90_catalog_*.cu
// translation units, each of which instantiates a few tile shapes (they compile in parallel).
#pragma once

#include <vector>

#include "kernels/sm90/sm90_ws.cuh"
#include "launch/launch.hpp"
#include "launch/sm90_launch.hpp"

namespace hgemm::sm90 {

template <class Traits>
struct Instance {
  static_assert(Traits::kSmemBytes == sm90_dynamic_smem_bytes(Traits::config()),
                "sm90_dynamic_smem_bytes must match the kernel's SharedStorage");

  static constexpr Sm90Geometry kGeometry = sm90_geometry(Traits::config());
  static_assert(kGeometry.num_threads == Traits::kNumThreads &&
                    kGeometry.smem_bytes == Traits::kSmemBytes &&
                    kGeometry.cluster_size == Traits::kClusterSize &&
                    kGeometry.b_k_major == Traits::kBKMajor &&
                    kGeometry.tma_store == Traits::kTmaStore &&
                    kGeometry.a_box_rows == Traits::kABoxRows &&
                    kGeometry.a_box_k == Traits::kABoxK &&
                    kGeometry.a_swizzle == Traits::kASwizzle &&
                    kGeometry.b_box_outer == Traits::kBBoxOuter &&
                    kGeometry.b_box_inner == Traits::kBBoxInner &&
                    kGeometry.b_swizzle == Traits::kBSwizzle &&
                    kGeometry.c_box_outer == Traits::kCBoxOuter &&
                    kGeometry.c_box_inner == Traits::kCBoxInner &&
                    kGeometry.c_swizzle == Traits::kCSwizzle,
                "sm90_geometry (launch/sm90_launch.hpp) must match the kernel's Traits");

  static Sm90Kernel const& kernel() {
    static const Sm90Kernel k{reinterpret_cast<const void*>(&sm90_ws_gemm_kernel<Traits>),
                              kGeometry};
    return k;
  }

  static void launch(KernelConfig const& config, GemmArgs const& args) {
    sm90_launch(config, kernel(), args);
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
