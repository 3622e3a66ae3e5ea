// Dispatch: the advisor's config (the tuning database, installed by the API layer) when it is
// compiled and can run the call; otherwise, among the compiled instances that can implement the
// call, the lowest estimate_cost(). The estimate counts waves of output tiles over the SMs, the
// work each tile does (padded to the tile), and a per-family/per-tile efficiency. It is
// deliberately simple: its job is to be reasonable everywhere, the tuner's is to be best.
#include "registry/registry.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "core/error.hpp"
#include "launch/sm90_jit.hpp"
#include "launch/workspace.hpp"

namespace hgemm::registry {
namespace {

struct DispatchKey {
  int64_t m, n, k;
  int layout, accum, device, align_class;
  bool operator==(const DispatchKey&) const = default;
};

struct DispatchKeyHash {
  size_t operator()(const DispatchKey& k) const {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t v : {uint64_t(k.m), uint64_t(k.n), uint64_t(k.k), uint64_t(k.layout),
                       uint64_t(k.accum), uint64_t(k.device), uint64_t(k.align_class)}) {
      h ^= v;
      h *= 1099511628211ull;
    }
    return size_t(h);
  }
};

// Which pointers are 16-byte aligned: the only property of the pointers can_implement looks at.
int align_class(const GemmArgs& args) {
  auto aligned = [](const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; };
  return (aligned(args.a) ? 1 : 0) | (aligned(args.b) ? 2 : 0) | (aligned(args.c) ? 4 : 0);
}

// Relative throughput of a full tile of this shape, from the tile's operand reuse (bm*bn/(bm+bn))
// and the family's peak; 128x256 on sm90 is 1.0. The sm80 peak (0.12) was fitted on the H100 to
// the 120 long-K grid shapes timed with and without split-K (bench/results/2026-11-22-h100-split-k):
// at 0.35 dispatch split 43 shapes where the unsplit sm90 kernel was faster, at 0.12 none, and
// 7 measured wins are left unsplit. One CTA of the mma.sync kernel per SM is latency bound.
double tile_efficiency(const KernelConfig& c) {
  const double reuse = double(c.block_m) * c.block_n / (c.block_m + c.block_n);
  const double reuse_ref = 128.0 * 256.0 / (128 + 256);
  const double family_peak = c.family == Family::kSm90Ws ? 1.0 : 0.12;
  return family_peak * std::pow(std::min(1.0, reuse / reuse_ref), 0.5);
}

}  // namespace

const std::vector<KernelInstance>& instances() {
  static const std::vector<KernelInstance> all = [] {
    std::vector<KernelInstance> v = sm90_instances();
    auto sm80 = sm80_instances();
    v.insert(v.end(), sm80.begin(), sm80.end());
    return v;
  }();
  return all;
}

const KernelInstance* find(const KernelConfig& config) {
  for (const auto& inst : instances())
    if (inst.config.instance() == config.instance()) return &inst;
  if (config.family == Family::kSm90Ws && jit::enabled()) return jit::instance(config);
  return nullptr;
}

Status can_implement(const Problem& problem, const KernelConfig& config, const GemmArgs& args,
                     const DeviceInfo& device) {
  if (Status s = problem.validate(); !s.ok()) return s;
  if (Status s = config.validate(); !s.ok()) return s;
  if (config.layout != problem.layout || config.accum != problem.accum)
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                           config.name() + " is built for " + std::string(to_string(config.layout)) +
                               "/" + std::string(to_string(config.accum)) + ", the problem is " +
                               problem.name());
  if (config.family == Family::kSm90Ws) return sm90_can_implement(problem, config, args, device);
  return sm80_can_implement(problem, config, args, device);
}

// Cost units are multiply-adds of one SM at its peak (about 3.75e12/s on an H100), so one byte
// of DRAM traffic (about 3e12 B/s for the whole chip) is worth about 1.25 units and the launch and
// tail of an extra kernel (about 3 us) about 1.1e7.
constexpr double kUnitsPerDramByte = 1.25;
constexpr double kUnitsPerExtraKernel = 1.1e7;

double estimate_cost(const Problem& p, const KernelConfig& c, const DeviceInfo& device) {
  // Tiles are handed out a cluster at a time: a cluster tile reaching past the problem still
  // occupies all its CTAs (the ones outside run on zero-filled operands and store nothing), and
  // only whole clusters fit on the SMs. At M = 128 a 2x1 cluster of 128-row tiles wastes half of
  // its SMs, which the plain tile count hid.
  const int cluster_m = std::max(1, c.cluster_m), cluster_n = std::max(1, c.cluster_n);
  const double tiles_m = std::ceil(std::ceil(double(p.m) / c.block_m) / cluster_m) * cluster_m;
  const double tiles_n = std::ceil(std::ceil(double(p.n) / c.block_n) / cluster_n) * cluster_n;
  const int cluster = cluster_m * cluster_n;
  const double slots = std::max(cluster, device.sm_count / cluster * cluster);
  const double k_blocks = std::ceil(double(p.k) / c.block_k);
  const double per_split = std::ceil(k_blocks / std::max(1, c.split_k));
  const double splits = std::ceil(k_blocks / per_split);
  const double waves = std::ceil(tiles_m * tiles_n * splits / slots);
  // A fixed per-tile pipeline fill/drain and epilogue, worth a few k-blocks, penalises deep tiles
  // on short K; a ping-pong kernel hides it behind the other warpgroup's mainloop.
  const double fill =
      c.schedule == Schedule::kPingPong ? 0.0 : double(c.num_stages) * c.block_k;
  double cost = waves * double(c.block_m) * c.block_n * (per_split * c.block_k + fill) /
                tile_efficiency(c);
  if (splits > 1) {
    // fp32 partials written once and read once, then C written.
    const double bytes = 2.0 * splits * double(p.m) * double(p.n) * 4 + double(p.m) * p.n * 2;
    cost += bytes * kUnitsPerDramByte + kUnitsPerExtraKernel;
  }
  return cost;
}

namespace {

// Split-K factors worth trying for a config: only where the unsplit grid leaves SMs idle, each
// split keeps at least 256 of K, and the partials fit the launcher's workspace. Both families
// split; on the 19 ablation shapes where both could, the best sm90 split beat the best sm80 split
// every time (bench/results/2026-11-22-h100-ablation).
std::vector<int> split_candidates(const Problem& p, const KernelConfig& c,
                                  const DeviceInfo& device) {
  std::vector<int> out{1};
  const double tiles = std::ceil(double(p.m) / c.block_m) * std::ceil(double(p.n) / c.block_n);
  if (tiles >= device.sm_count) return out;
  const double split_bytes = double(splitk_partial_bytes(p.m, p.n));
  for (int s : {2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}) {
    if (p.k / s < kMinKPerSplit || s * split_bytes > double(kMaxWorkspaceBytes)) break;
    out.push_back(s);
  }
  return out;
}

}  // namespace

namespace {
std::atomic<Advisor> g_advisor{nullptr};
}  // namespace

void set_advisor(Advisor advisor) { g_advisor.store(advisor, std::memory_order_release); }

const Choice& select(const Problem& problem, const GemmArgs& args, const DeviceInfo& device) {
  static std::shared_mutex mutex;
  static std::unordered_map<DispatchKey, Choice, DispatchKeyHash> cache;
  const DispatchKey key{problem.m,          problem.n,          problem.k,         int(problem.layout),
                        int(problem.accum), device.ordinal,     align_class(args)};
  {
    std::shared_lock lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  Choice advised;
  bool advice_blind_to_split = false;
  if (Advisor advisor = g_advisor.load(std::memory_order_acquire)) {
    if (std::optional<Advice> advice = advisor(problem, device)) {
      const KernelInstance* inst = find(advice->config);
      if (inst && can_implement(problem, advice->config, args, device).ok())
        advised = {inst, advice->config};
      advice_blind_to_split = !advice->searched_split_k && advice->config.split_k == 1;
    }
  }
  // The heuristic is needed when there is no usable advice, or to see whether it would split K
  // where the advice never could have.
  Choice best = advised;
  if (!advised.instance || advice_blind_to_split) {
    Choice heuristic;
    double best_cost = std::numeric_limits<double>::infinity();
    for (const auto& inst : instances()) {
      if (!can_implement(problem, inst.config, args, device).ok()) continue;
      for (int split : split_candidates(problem, inst.config, device)) {
        KernelConfig config = inst.config;
        config.split_k = split;
        const double cost = estimate_cost(problem, config, device);
        if (cost < best_cost) {
          best_cost = cost;
          heuristic = {&inst, config};
        }
      }
    }
    if (!advised.instance || (heuristic.instance && heuristic.config.split_k > 1))
      best = heuristic;
  }
  if (!best.instance)
    HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED,
                "no compiled kernel implements " + problem.name() + " on " + device.name);
  std::unique_lock lock(mutex);
  // Node-based map: the reference stays valid while other threads insert.
  return cache.emplace(key, best).first->second;
}

}  // namespace hgemm::registry
