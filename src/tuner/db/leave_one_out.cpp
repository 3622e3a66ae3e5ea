#include "tuner/db/leave_one_out.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "dispatch/neighbors.hpp"
#include "tuner/ablation.hpp"

namespace hgemm::tuner {
namespace {

struct Timed {
  double us = 0, ref_us = 0;
  int samples = 0;
  double mean_us() const { return us / samples; }
  double speedup() const { return ref_us / us; }  // the ratio of the sums: the mean times' ratio
};

struct Scored {
  PickScore pick;  // its ratio is the score
  double speedup = 0, best_speedup = 0;
  bool best = false;
};

// The measured direct-store tile of a swap-AB TMA-store twin `pick`, deepest ring first.
template <typename ByConfig>
auto direct_store_tile(const KernelConfig& pick, const ByConfig& by_config) {
  if (!pick.swap_ab || pick.epilogue != Epilogue::kTmaStore) return by_config.end();
  KernelConfig direct = pick;
  direct.epilogue = Epilogue::kDirect;
  for (auto it = std::rbegin(dispatch::kSm90Stages); it != std::rend(dispatch::kSm90Stages); ++it) {
    direct.num_stages = *it;
    if (auto found = by_config.find(direct.name()); found != by_config.end()) return found;
  }
  return by_config.end();
}

struct Sums {
  int n = 0, best = 0, within = 0;
  double log_ratio = 0, log_speedup = 0, log_best = 0;
  void add(const Scored& s) {
    ++n;
    best += s.best;
    within += s.pick.ratio >= 0.98;
    log_ratio += std::log(s.pick.ratio);
    log_speedup += std::log(s.speedup);
    log_best += std::log(s.best_speedup);
  }
  double mean(double log_sum) const { return n ? std::exp(log_sum / n) : 0.0; }
};

}  // namespace

std::vector<RuleScore> leave_one_out(const TunedTable& neighbours, const Database& table,
                                     const std::vector<NeighborRule>& rules,
                                     std::optional<Layout> layout, bool twins_as_direct) {
  // Per problem (by name, which orders them deterministically), per config: the mean time.
  std::map<std::string, std::pair<Problem, std::map<std::string, Timed>>> measured;
  for (const Record& r : current_records(table.records)) {
    if (r.measurement.disposition != Disposition::kPassed || !r.measurement.timed()) continue;
    if (layout && r.problem.layout != *layout) continue;
    auto& [problem, by_config] = measured[r.problem.name()];
    problem = r.problem;
    Timed& t = by_config[r.config];
    t.us += r.measurement.median_us;
    t.ref_us += r.measurement.reference_us;
    ++t.samples;
  }
  // scored[rule][problem]: nullopt where the pick was not measured (or there was none).
  std::vector<std::vector<std::optional<Scored>>> scored(rules.size());
  std::vector<int> bucket_of;
  for (const auto& [name, item] : measured) {
    const auto& [problem, by_config] = item;
    bucket_of.push_back(size_bucket(problem));
    // The best config by its speedup over its own cuBLASLt reference, not by its time: a
    // problem's configs are timed minutes apart, at whatever clock the card's power cap allows
    // then (1.0-2.0 GHz), and each time's interleaved reference ran at the same clock. On the
    // dev set's large shapes raster variants of one tile spread 15% in time and 1% in speedup.
    auto fastest = by_config.begin();
    for (auto it = by_config.begin(); it != by_config.end(); ++it)
      if (it->second.speedup() > fastest->second.speedup()) fastest = it;
    for (size_t r = 0; r < rules.size(); ++r) {
      const auto pick = neighbours.predict_nearest(problem, rules[r], /*leave_out_self=*/true);
      auto it = pick ? by_config.find(pick->name()) : by_config.end();
      std::string scored_as;
      if (it == by_config.end() && pick && twins_as_direct) {
        it = direct_store_tile(*pick, by_config);
        if (it != by_config.end()) scored_as = it->first;
      }
      if (it == by_config.end()) {
        scored[r].push_back(std::nullopt);
        continue;
      }
      scored[r].push_back(Scored{
          PickScore{problem, pick->name(), fastest->first,
                    it->second.speedup() / fastest->second.speedup(), scored_as},
          it->second.speedup(), fastest->second.speedup(), it == fastest});
    }
  }
  const size_t n = bucket_of.size();
  std::vector<bool> common(n, true);
  for (const auto& per_rule : scored)
    for (size_t p = 0; p < n; ++p) common[p] = common[p] && per_rule[p].has_value();

  std::vector<RuleScore> out;
  for (size_t r = 0; r < rules.size(); ++r) {
    Sums covered, shared;
    std::vector<Sums> buckets(kSizeBuckets);
    RuleScore s;
    for (size_t p = 0; p < n; ++p) {
      if (!scored[r][p]) continue;
      covered.add(*scored[r][p]);
      s.as_direct += !scored[r][p]->pick.scored_as.empty();
      s.picks.push_back(scored[r][p]->pick);
      if (!common[p]) continue;
      shared.add(*scored[r][p]);
      buckets[bucket_of[p]].add(*scored[r][p]);
    }
    std::stable_sort(s.picks.begin(), s.picks.end(),
                     [](const PickScore& a, const PickScore& b) { return a.ratio < b.ratio; });
    s.rule = rules[r];
    s.problems = int(n);
    s.covered = covered.n;
    s.best = covered.best;
    s.ratio = covered.mean(covered.log_ratio);
    s.speedup = covered.mean(covered.log_speedup);
    s.best_speedup = covered.mean(covered.log_best);
    s.within_2pct = covered.n ? double(covered.within) / covered.n : 0.0;
    s.common = shared.n;
    s.common_ratio = shared.mean(shared.log_ratio);
    s.common_speedup = shared.mean(shared.log_speedup);
    for (const Sums& b : buckets) s.bucket_ratio.push_back(b.n ? b.mean(b.log_ratio) : kNaN);
    for (const Sums& b : buckets) s.bucket_count.push_back(b.n);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace hgemm::tuner
