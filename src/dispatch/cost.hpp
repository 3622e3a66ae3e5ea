// The analytic cost model: the heuristic's ranking of compiled instances, the unseen-shape rule's
// ranking of tuned neighbours' winners, and a feature of the tuner's policy.
#pragma once

#include <vector>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::dispatch {

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
