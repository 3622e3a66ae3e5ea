// Internal interface of the sm90 launcher, shared by sm90_launch.cu (catalog, can_implement) and
// the generated catalog shards that instantiate the kernels.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "hgemm/hgemm.hpp"
#include "core/kernel_variant.hpp"
#include "kernels/common/tile_scheduler.hpp"
#include "launch/launch.hpp"
#include "launch/splitk.hpp"

namespace hgemm {

// The geometry of a config's compiled instance (core/kernel_variant.hpp): what a catalog
// instance, a kernel compiled at run time (launch/sm90_jit) and can_implement all launch with.
constexpr Sm90Geometry sm90_geometry(KernelConfig const& c) {
  return sm90_geometry(sm90_variant(c));
}

// One launchable sm90 kernel: its entry (a __global__ function, or a cudaKernel_t from a library
// loaded at run time), its geometry, and per device the number of clusters that fit at once
// (0 until the first launch there, which also raises the kernel's shared-memory limit).
struct Sm90Kernel {
  static constexpr int kMaxDevices = 64;
  const void* entry = nullptr;
  Sm90Geometry geometry;
  bool general = false;  // the flavour that runs strided batches and beta * C (Sm90Variant)
  bool a_mn_major = false;  // its flavour that reads a column-major A
  mutable std::array<std::atomic<int>, kMaxDevices> max_clusters{};
};

// Launches `kernel` for this call: tensor maps, persistent grid, cluster and PDL attributes, and
// the split-K reduction when config.split_k > 1, or with split_k 0 the clearing of the last
// round's arrival counters before it. `config` carries the run-time arguments (raster, group
// size, split-K); the instance is config.instance(). Throws hgemm::Error; never syncs.
void sm90_launch(KernelConfig const& config, Sm90Kernel const& kernel, GemmArgs const& args);

// The last round's split (a config's split_k 0, sm90_ws.cuh): the tiles left over from the full
// rounds of `clusters`, each cut into split.pieces k-aligned pieces (2 to kSm90MaxTailPieces, of
// at least kSm90MinTailPieceKBlocks k-blocks each), reduced in the kernel. split.tiles is 0 (the
// call runs whole tiles) where the rounds are full, too few clusters idle or K is short, or where
// the workspace (scratch.workspace_bytes: counters, counter_bytes of them, then a partial tile per
// piece) would pass kMaxWorkspaceBytes. The caller checks that the kernel compiles the split
// (Sm90Geometry::tail_split).
inline constexpr int kSm90MaxTailPieces = 4;
inline constexpr int kSm90MinTailPieceKBlocks = 4;
struct Sm90TailSplit {
  kernels::TailSplit split;
  size_t counter_bytes = 0;
  SplitPlan scratch;
};
Sm90TailSplit sm90_plan_tail_split(Sm90Geometry const& g, Sm90Variant const& v, int tiles,
                                   int k_blocks, int clusters);

// Programmatic dependent launch: whether the kernel lets the next one in the stream launch from
// each CTA's producer's last load (true) or only once its consumers finish their last tile's
// mainloop (false). Early pays on CTAs whose whole mainloop, `units` work units shared by `ctas`
// CTAs of `k_blocks_per_unit` k-blocks each, is at most 32 k-blocks (a few microseconds): there
// the next launch is what there is to hide. On longer ones a dependent launched early cost grids
// under the SM count up to 17% on an H200 (docs/notes/2026-11-28-pdl-trigger.md).
bool sm90_early_dependents(int64_t k_blocks_per_unit, int64_t units, int64_t ctas);

// Whether a call needs a kernel's general flavour: the plain one runs one matrix and never reads
// C.
inline bool sm90_needs_general(GemmArgs const& args) {
  return args.batch_count > 1 || args.epilogue.beta != 0.0f;
}

// Whether a call needs a flavour beside the plain kernel's: the general one, or one that reads a
// column-major A (the general flavour's twin, or a swap-AB row's plain one;
// launch/sm90_catalog.hpp).
inline bool sm90_needs_flavour(GemmArgs const& args) {
  return sm90_needs_general(args) || args.a_col_major;
}

// The per-call checks the kernel cannot survive without (sizes, TMA alignment); shared by
// can_implement and the launch itself.
Status sm90_check_args(KernelConfig const& config, GemmArgs const& args);

// Upper bound on the persistent grid in CTAs (0: the device's SM count). A run-time knob for
// experiments such as 128 vs 132 CTAs; the effective grid is also capped by the cluster occupancy
// and the number of tiles, and is a multiple of the cluster size.
void sm90_set_max_ctas(int max_ctas);
int sm90_max_ctas();

// The catalog (launch/sm90_catalog.hpp) is compiled in HGEMM_SM90_CATALOG_SHARDS translation
// units that CMake generates, each an explicit instantiation of this for its shard s
// (launch/sm90_catalog_shard.cuh): it fills slots[i] for every catalog index i with
// i % HGEMM_SM90_CATALOG_SHARDS == s.
template <int kShard>
void sm90_add_catalog_shard(std::span<KernelInstance> slots);

}  // namespace hgemm
