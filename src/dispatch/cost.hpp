// The analytic cost model: the heuristic's ranking of compiled instances, the unseen-shape rule's
// ranking of tuned neighbours' winners, and a feature of the tuner's policy.
#pragma once

#include <vector>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::dispatch {

// How an sm90 or sm80 config's output tiles meet the SMs: what estimate_cost counts, and the
// dispatch model's grid features (model.cpp). Whole numbers, held as doubles.
struct TileWaves {
  double tiles_m = 0, tiles_n = 0;                  // output tiles along M and N
  double cluster_tiles_m = 0, cluster_tiles_n = 0;  // the same, rounded up to whole clusters
  double slots = 0;      // CTAs resident at once: whole clusters on the SMs
  double per_split = 0;  // k-blocks of each split
  double splits = 0;     // the K-splits those k-blocks make (at most config.split_k)
  double ctas = 0;       // cluster tiles x splits x batches
  double waves = 0;      // ctas over slots, rounded up
};
TileWaves tile_waves(const Problem& problem, const KernelConfig& config, const DeviceInfo& device,
                     int64_t batches = 1);

// An estimate of a config's run time (arbitrary units; lower is better). Counts waves of output
// tiles over the SMs, the work each tile does (padded to the tile), and a per-family/per-tile
// efficiency. Includes the split-K reduction when config.split_k > 1. Deliberately simple: its
// job is to be reasonable everywhere, the tuner's is to be best.
// `batches` strided batches of the problem count as that many times its tiles.
double estimate_cost(const Problem& problem, const KernelConfig& config, const DeviceInfo& device,
                     int64_t batches = 1);

// The same with the tile's efficiency given (a fitted one) in place of formula_tile_efficiency's.
double estimate_cost_at(const Problem& problem, const KernelConfig& config,
                        const DeviceInfo& device, double efficiency, int64_t batches = 1);
// The model's relative throughput of a full tile, from its operand reuse alone (1.0 for sm90's
// 128x256); the decode family does not use it.
double formula_tile_efficiency(const KernelConfig& config);

// Whether config's cluster leaves CTAs of its last cluster outside the problem (the tile count
// along M or N is no multiple of the cluster's extent there): the padding estimate_cost charges.
bool cluster_pads_tiles(const Problem& problem, const KernelConfig& config);

// DRAM bytes of A and B under an sm90 config's raster. Along M with group g the cluster-tile
// grid is cut into bands of g tile rows, and each band sweeps all of B: B is read once per band
// unless it fits in half the L2, A once (along N the roles swap). A count of re-reads, not a
// time: it ignores that one wave can span several narrow bands.
double raster_operand_bytes(const Problem& problem, const KernelConfig& config,
                            const DeviceInfo& device);

// `config` with KernelConfig's default raster order and group size (along M, 8), its tile and
// split kept.
KernelConfig with_default_raster(KernelConfig config);

// Whether an sm90 config's raster re-reads an operand that the default raster (along M, group 8)
// of the same tile reads once, by enough to matter: more than 5% more bytes, and those bytes at
// DRAM rate worth over 0.8 of the multiply-adds at the SMs' peak. Fitted on the H100's history:
// over 7960 (tuned shape, neighbour) pairs where a neighbour's raster met its default, it held
// for 112, where the neighbour's raster ran 0.926 of the default (3 faster by over 5%).
bool raster_rereads(const Problem& problem, const KernelConfig& config, const DeviceInfo& device);

// Split-K factors the heuristic tries for a config, 1 first: only where the unsplit grid leaves
// SMs idle, each split keeps at least kMinKPerSplit of K, and the partials fit the workspace.
std::vector<int> split_candidates(const Problem& problem, const KernelConfig& config,
                                  const DeviceInfo& device);

// `config` at the split_candidates() factor estimate_cost() finds cheapest (the first on ties),
// with that cost.
struct SplitChoice {
  KernelConfig config;
  double cost = 0;
};
SplitChoice cheapest_split(const Problem& problem, const KernelConfig& config,
                           const DeviceInfo& device);

}  // namespace hgemm::dispatch
