#include "dispatch/neighbors.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dispatch/cost.hpp"

namespace hgemm::dispatch {

std::string_view to_string(NeighborRule rule) {
  switch (rule) {
    case NeighborRule::kNearest: return "nearest";
    case NeighborRule::kCost: return "cost";
    case NeighborRule::kScaled: return "scaled";
    case NeighborRule::kSiblings: return "siblings";
  }
  return "?";
}

std::optional<NeighborRule> parse_neighbor_rule(std::string_view name) {
  for (NeighborRule r :
       {NeighborRule::kNearest, NeighborRule::kCost, NeighborRule::kScaled, NeighborRule::kSiblings})
    if (name == to_string(r)) return r;
  return std::nullopt;
}

double shape_distance(const Problem& a, const Problem& b) {
  auto log_ratio = [](int64_t x, int64_t y) { return std::log2(double(x) / double(y)); };
  const double dm = log_ratio(a.m, b.m), dn = log_ratio(a.n, b.n), dk = log_ratio(a.k, b.k);
  return dm * dm + dn * dn + dk * dk;
}

const std::vector<int>& swap_block_m_values() {
  static const std::vector<int> widths{32, 48, 64, 80, 112, 128, 144, 176, 192, 208, 256};
  return widths;
}

const std::vector<int>& block_n_values(Family family) {
  // sm90: the catalog compiles a few of these; the JIT (launch/sm90_jit) builds any other.
  static const std::vector<int> sm90{64, 96, 128, 160, 192, 224, 256};
  static const std::vector<int> sm80{32, 64, 128, 256};
  static const std::vector<int> decode{8, 16, 32, 64, 128};
  return family == Family::kSm90Ws ? sm90 : family == Family::kDecode ? decode : sm80;
}

std::optional<Prediction> predict_from_neighbors(const Problem& problem,
                                                 const std::vector<TunedPoint>& points,
                                                 NeighborRule rule, const NeighborScope& scope,
                                                 bool leave_out_self) {
  const DeviceInfo& device = *scope.device;
  if (rule == NeighborRule::kSiblings) {
    // Only the cost rule's pick is varied: over all the neighbours' winners and their siblings
    // the model's stage term preferred shallow rings, which lost up to 44% on decode shapes.
    std::optional<Prediction> pick =
        predict_from_neighbors(problem, points, NeighborRule::kCost, scope, leave_out_self);
    if (!pick) return pick;
    const KernelConfig winner = pick->config;
    double best_cost = estimate_cost(problem, winner, device);
    auto consider = [&](const KernelConfig& sibling) {
      if (!scope.legal(problem, sibling) || scope.blocked(sibling)) return;
      const double cost = estimate_cost(problem, sibling, device);
      if (cost < best_cost) {
        best_cost = cost;
        pick->config = sibling;
        pick->sibling = true;
      }
    };
    if (winner.swap_ab) {
      // A swap-AB tile's width is M's: the neighbour's M was another one, so every compiled
      // width (each with the ring depth its row compiles) competes for this M.
      for (int block_m : swap_block_m_values())
        for (int stages : kSm90Stages) {
          if (block_m == winner.block_m && stages == winner.num_stages) continue;
          KernelConfig sibling = winner;
          sibling.block_m = block_m;
          sibling.num_stages = stages;
          consider(sibling);
        }
      return pick;
    }
    // A neighbour's cluster fits its own tile count; where this shape's count along the cluster
    // is odd the last cluster runs a CTA on nothing (8192x576 in 128-wide tiles, 1x2: 6 tiles
    // for 5), so the same tile without a cluster, at each compiled schedule, ring depth and
    // epilogue, competes too, and each base's block_n siblings after it.
    std::vector<KernelConfig> bases{winner};
    if (winner.family == Family::kSm90Ws && cluster_pads_tiles(problem, winner))
      for (Schedule schedule : {Schedule::kCooperative, Schedule::kPingPong})
        for (int stages : kSm90Stages)
          for (Epilogue epilogue : {Epilogue::kDirect, Epilogue::kTmaStore}) {
            KernelConfig plain = winner;
            plain.cluster_m = plain.cluster_n = 1;
            plain.schedule = schedule;
            plain.num_stages = stages;
            plain.epilogue = epilogue;
            if (!scope.legal(problem, plain) || scope.blocked(plain)) continue;
            bases.push_back(plain);
            consider(plain);
          }
    for (const KernelConfig& base : bases)
      for (int block_n : block_n_values(base.family)) {  // ties keep the pick, then axis order
        if (block_n == base.block_n) continue;
        KernelConfig sibling = base;
        sibling.block_n = block_n;
        consider(sibling);
      }
    return pick;
  }
  // The tuned shapes of this layout and accumulation, nearest first (ties by config name, so the
  // answer does not depend on the order of `points`).
  std::vector<std::pair<double, const TunedPoint*>> near;
  near.reserve(points.size());
  for (const TunedPoint& point : points) {
    const Problem& at = point.problem;
    if (at.layout != problem.layout || at.accum != problem.accum) continue;
    if (leave_out_self && at.m == problem.m && at.n == problem.n && at.k == problem.k) continue;
    near.push_back({shape_distance(at, problem), &point});
  }
  std::sort(near.begin(), near.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first
                              : x.second->config.name() < y.second->config.name();
  });
  const int k = rule == NeighborRule::kNearest ? 1 : kNeighbors;
  std::optional<Prediction> best;
  double best_score = -std::numeric_limits<double>::infinity();
  int considered = 0;
  for (const auto& [distance, point] : near) {
    if (considered == k) break;
    if (!scope.legal(problem, point->config)) continue;
    ++considered;
    double score = 0;
    if (rule == NeighborRule::kCost) {
      score = -estimate_cost(problem, point->config, device);
    } else if (rule == NeighborRule::kScaled) {
      // The neighbour's measured speedup, carried over by the cost model's change in
      // efficiency (ideal work over estimated cost) from the neighbour's shape to this one.
      const Problem& at = point->problem;
      const double work_here = double(problem.m) * problem.n * problem.k;
      const double work_there = double(at.m) * at.n * at.k;
      const double eff_here = work_here / estimate_cost(problem, point->config, device);
      const double eff_there = work_there / estimate_cost(at, point->config, device);
      score = point->speedup * eff_here / eff_there;
    }
    if (!best || score > best_score) {
      best_score = score;
      best = Prediction{point->config, point->problem, false};
    }
  }
  return best;
}

}  // namespace hgemm::dispatch
