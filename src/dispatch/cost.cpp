#include "dispatch/cost.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "launch/launch.hpp"
#include "launch/workspace.hpp"

namespace hgemm::dispatch {

// Relative throughput of a full tile of this shape, from the tile's operand reuse (bm*bn/(bm+bn))
// and the family's peak; 128x256 on sm90 is 1.0. The sm80 peak (0.12) was fitted on the H100 to
// the 120 long-K grid shapes timed with and without split-K (bench/results/2026-11-22-h100-split-k):
// at 0.35 dispatch split 43 shapes where the unsplit sm90 kernel was faster, at 0.12 none, and
// 7 measured wins are left unsplit. One CTA of the mma.sync kernel per SM is latency bound.
double formula_tile_efficiency(const KernelConfig& c) {
  const double reuse = double(c.block_m) * c.block_n / (c.block_m + c.block_n);
  const double reuse_ref = 128.0 * 256.0 / (128 + 256);
  const double family_peak = c.family == Family::kSm90Ws ? 1.0 : 0.12;
  return family_peak * std::pow(std::min(1.0, reuse / reuse_ref), 0.5);
}

namespace {

// Cost units are multiply-adds of one SM at its peak (about 3.75e12/s on an H100), so one byte
// of DRAM traffic (about 3e12 B/s for the whole chip) is worth about 1.25 units and the launch and
// tail of an extra kernel (about 3 us) about 1.1e7.
constexpr double kUnitsPerDramByte = 1.25;
constexpr double kUnitsPerExtraKernel = 1.1e7;

}  // namespace

TileWaves tile_waves(const Problem& p, const KernelConfig& c, const DeviceInfo& device,
                     int64_t batches) {
  TileWaves w;
  const int cluster_m = std::max(1, c.cluster_m), cluster_n = std::max(1, c.cluster_n);
  w.tiles_m = std::ceil(double(p.m) / c.block_m);
  w.tiles_n = std::ceil(double(p.n) / c.block_n);
  w.cluster_tiles_m = std::ceil(w.tiles_m / cluster_m) * cluster_m;
  w.cluster_tiles_n = std::ceil(w.tiles_n / cluster_n) * cluster_n;
  const int cluster = cluster_m * cluster_n;
  w.slots = std::max(cluster, device.sm_count / cluster * cluster);
  const double k_blocks = std::ceil(double(p.k) / c.block_k);
  w.per_split = std::ceil(k_blocks / std::max(1, c.split_k));
  w.splits = std::ceil(k_blocks / w.per_split);
  w.ctas = w.cluster_tiles_m * w.cluster_tiles_n * w.splits * double(batches);
  w.waves = std::ceil(w.ctas / w.slots);
  return w;
}

bool cluster_pads_tiles(const Problem& p, const KernelConfig& c) {
  const TileWaves w = tile_waves(p, c, DeviceInfo{});
  return w.cluster_tiles_m != w.tiles_m || w.cluster_tiles_n != w.tiles_n;
}

double estimate_cost(const Problem& p, const KernelConfig& c, const DeviceInfo& device,
                     int64_t batches) {
  return estimate_cost_at(p, c, device, formula_tile_efficiency(c), batches);
}

double estimate_cost_at(const Problem& p, const KernelConfig& c, const DeviceInfo& device,
                        double efficiency, int64_t batches) {
  if (c.family == Family::kDecode) {
    // A stream of B: the DRAM bytes of A, B and C, or, where larger, the L2 traffic of B plus A
    // re-read by every CTA (L2 taken as twice DRAM's bandwidth); slower in proportion where the
    // grid leaves SMs without a CTA. Not fitted to measurements yet.
    const double ctas = std::ceil(double(p.n) / c.block_n) * double(batches);
    const double dram =
        2.0 * double(batches) * (double(p.n) * p.k + double(p.m) * p.k + double(p.m) * p.n);
    const double l2 = 2.0 * (double(batches) * double(p.n) * p.k + ctas * double(p.m) * p.k) / 2.0;
    const double busy = std::min(1.0, ctas / std::max(1, device.sm_count));
    return std::max(dram, l2) * kUnitsPerDramByte / busy;
  }
  // Tiles are handed out a cluster at a time: a cluster tile reaching past the problem still
  // occupies all its CTAs (the ones outside run on zero-filled operands and store nothing), and
  // only whole clusters fit on the SMs. At M = 128 a 2x1 cluster of 128-row tiles wastes half of
  // its SMs, which the plain tile count hid.
  const TileWaves w = tile_waves(p, c, device, batches);
  // A fixed per-tile pipeline fill/drain and epilogue, worth a few k-blocks, penalises deep tiles
  // on short K; a ping-pong kernel hides it behind the other warpgroup's mainloop.
  const double fill =
      c.schedule == Schedule::kPingPong ? 0.0 : double(c.num_stages) * c.block_k;
  double cost = w.waves * double(c.block_m) * c.block_n * (w.per_split * c.block_k + fill) /
                efficiency;
  if (w.splits > 1) {
    // fp32 partials written once and read once, then C written.
    const double bytes =
        2.0 * w.splits * double(p.m) * double(p.n) * 4 + double(p.m) * p.n * 2;
    cost += bytes * kUnitsPerDramByte + kUnitsPerExtraKernel;
  }
  return cost;
}

double raster_operand_bytes(const Problem& p, const KernelConfig& c, const DeviceInfo& device) {
  const TileWaves grid = tile_waves(p, c, device);
  const double rows = grid.cluster_tiles_m / std::max(1, c.cluster_m);
  const double cols = grid.cluster_tiles_n / std::max(1, c.cluster_n);
  const double a = 2.0 * double(p.m) * p.k, b = 2.0 * double(p.n) * p.k;
  const double resident = 0.5 * device.l2_bytes;
  const double group = std::max(1, c.group_size);
  if (c.raster == Raster::kAlongM) {
    const double bands = std::ceil(rows / std::min(group, rows));
    return a + (b <= resident ? b : b * bands);
  }
  const double bands = std::ceil(cols / std::min(group, cols));
  return b + (a <= resident ? a : a * bands);
}

KernelConfig with_default_raster(KernelConfig config) {
  const KernelConfig defaults;
  config.raster = defaults.raster;
  config.group_size = defaults.group_size;
  return config;
}

bool raster_rereads(const Problem& p, const KernelConfig& c, const DeviceInfo& device) {
  if (c.family != Family::kSm90Ws) return false;
  const double bytes = raster_operand_bytes(p, c, device);
  const double plain_bytes = raster_operand_bytes(p, with_default_raster(c), device);
  const double work = double(p.m) * p.n * p.k / std::max(1, device.sm_count);
  return bytes > 1.05 * plain_bytes && bytes * kUnitsPerDramByte > 0.8 * work;
}

// The sm90 and sm80 families split (decode's warps split K inside the CTA); on the 19 ablation
// shapes where both could, the best sm90 split beat the best sm80 split every time
// (bench/results/2026-11-22-h100-ablation).
std::vector<int> split_candidates(const Problem& p, const KernelConfig& c,
                                  const DeviceInfo& device) {
  std::vector<int> out{1};
  if (c.family == Family::kDecode) return out;
  const double tiles = std::ceil(double(p.m) / c.block_m) * std::ceil(double(p.n) / c.block_n);
  if (tiles >= device.sm_count) return out;
  const double split_bytes = double(splitk_partial_bytes(p.m, p.n));
  for (int s : {2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}) {
    if (p.k / s < kMinKPerSplit || s * split_bytes > double(kMaxWorkspaceBytes)) break;
    out.push_back(s);
  }
  return out;
}

SplitChoice cheapest_split(const Problem& problem, const KernelConfig& config,
                           const DeviceInfo& device) {
  SplitChoice best{config, std::numeric_limits<double>::infinity()};
  for (int split : split_candidates(problem, config, device)) {
    KernelConfig c = config;
    c.split_k = split;
    if (const double cost = estimate_cost(problem, c, device); cost < best.cost) best = {c, cost};
  }
  return best;
}

}  // namespace hgemm::dispatch
