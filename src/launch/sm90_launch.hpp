// Internal interface of the sm90 launcher, shared by sm90_launch.cu (catalog, can_implement) and
// the sm90_catalog_*.cu translation units that instantiate the kernels.
#pragma once

#include <array>
#include <atomic>
#include <vector>

#include "hgemm/hgemm.hpp"
#include "core/smem_budget.hpp"
#include "launch/launch.hpp"

namespace hgemm {

// Dynamic shared memory an sm90 instantiation launches with (core/smem_budget.hpp); equal to
// config.smem_bytes(), but usable in the instantiations' static_asserts.
constexpr int sm90_dynamic_smem_bytes(KernelConfig const& c) {
  return sm90_smem_plan(c.block_m, c.block_n, c.block_k, c.num_stages,
                        c.epilogue == Epilogue::kTmaStore, c.schedule == Schedule::kPingPong)
      .dynamic_bytes;
}

// What the host needs to launch an instantiation of `config`: block size, shared memory, cluster
// and the TMA boxes and swizzles of the tensor maps. A function of the config alone, so that a
// kernel compiled at run time (launch/sm90_jit) launches exactly like a catalog one; the catalog's
// Instance static_asserts that it equals the kernel's own Traits.
struct Sm90Geometry {
  int num_threads = 0;
  int smem_bytes = 0;
  int cluster_size = 1;
  bool b_k_major = true;  // TN: B is N x K
  bool tma_store = false;
  int a_box_rows = 0, a_box_k = 0, a_swizzle = 0;
  int b_box_outer = 0, b_box_inner = 0, b_swizzle = 0;
  int c_box_outer = 0, c_box_inner = 0, c_swizzle = 0;

  constexpr bool operator==(Sm90Geometry const&) const = default;
};

constexpr Sm90Geometry sm90_geometry(KernelConfig const& c) {
  Sm90Geometry g;
  const bool ping_pong = c.schedule == Schedule::kPingPong;
  g.num_threads = 128 * (c.num_consumer_wgs + 1);
  g.smem_bytes = sm90_dynamic_smem_bytes(c);
  g.cluster_size = c.cluster_m * c.cluster_n;
  g.b_k_major = c.layout == Layout::kTN;
  g.tma_store = c.epilogue == Epilogue::kTmaStore;
  // With a cluster of 2 each CTA loads half of the operand it shares and multicasts it.
  g.a_box_rows = c.block_m / c.cluster_n;
  g.a_box_k = c.block_k;
  g.a_swizzle = c.block_k * 2;
  const int b_chunk = g.b_k_major ? c.block_k : swizzle_chunk_elems(c.block_n);
  g.b_swizzle = b_chunk * 2;
  g.b_box_inner = b_chunk;
  g.b_box_outer = g.b_k_major ? c.block_n / c.cluster_m : c.block_k / c.cluster_m;
  const int c_chunk = swizzle_chunk_elems(c.block_n);
  g.c_swizzle = c_chunk * 2;
  g.c_box_inner = c_chunk;
  g.c_box_outer = ping_pong ? c.block_m : c.block_m / c.num_consumer_wgs;
  return g;
}

// One launchable sm90 kernel: its entry (a __global__ function, or a cudaKernel_t from a library
// loaded at run time), its geometry, and per device the number of clusters that fit at once
// (0 until the first launch there, which also raises the kernel's shared-memory limit).
struct Sm90Kernel {
  static constexpr int kMaxDevices = 64;
  const void* entry = nullptr;
  Sm90Geometry geometry;
  mutable std::array<std::atomic<int>, kMaxDevices> max_clusters{};
};

// Launches `kernel` for this call: tensor maps, persistent grid, cluster and PDL attributes, and
// the split-K reduction when config.split_k > 1. `config` carries the run-time arguments (raster,
// group size, split-K); the instance is config.instance(). Throws hgemm::Error; never syncs.
void sm90_launch(KernelConfig const& config, Sm90Kernel const& kernel, GemmArgs const& args);

// The per-call checks the kernel cannot survive without (sizes, TMA alignment); shared by
// can_implement and the launch itself.
Status sm90_check_args(KernelConfig const& config, GemmArgs const& args);

// Upper bound on the persistent grid in CTAs (0: the device's SM count). A run-time knob for
// experiments such as 128 vs 132 CTAs; the effective grid is also capped by the cluster occupancy
// and the number of tiles, and is a multiple of the cluster size.
void sm90_set_max_ctas(int max_ctas);
int sm90_max_ctas();

// The catalog, one function per translation unit.
void sm90_add_catalog_128x256(std::vector<KernelInstance>& out);
void sm90_add_catalog_128x128(std::vector<KernelInstance>& out);
void sm90_add_catalog_256x128(std::vector<KernelInstance>& out);
void sm90_add_catalog_64xn(std::vector<KernelInstance>& out);
void sm90_add_catalog_256x256(std::vector<KernelInstance>& out);
void sm90_add_catalog_pingpong(std::vector<KernelInstance>& out);
void sm90_add_catalog_wavefill(std::vector<KernelInstance>& out);
void sm90_add_catalog_wavefill_decode(std::vector<KernelInstance>& out);

}  // namespace hgemm
