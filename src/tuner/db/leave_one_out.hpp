// Scoring dispatch's rules for untuned problems without a GPU: every problem the measurement
// table holds is treated as if it had never been tuned (its own entry is left out of the
// neighbours), each rule picks a config, and the pick is scored by the table's own measurement
// of it on that problem. A pick the table never measured there cannot be scored; the coverage
// says how often that happened, and the scores hold only for the covered problems.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hgemm/hgemm.hpp"
#include "tuner/db/database.hpp"
#include "tuner/db/tuned_table.hpp"

namespace hgemm::tuner {

// One covered problem: the rule's pick, the best measured config there, and the pick's speedup
// over the best's.
struct PickScore {
  Problem problem;
  std::string pick;
  std::string best;
  double ratio = 0;
  std::string scored_as;  // the direct-store tile whose measurement scored a TMA-store twin
};

struct RuleScore {
  NeighborRule rule = NeighborRule::kCost;
  int problems = 0;  // problems with at least one passing measurement in the table
  int covered = 0;   // of those, where the rule's pick was measured
  int best = 0;      // of the covered, where the pick was the best measured config
  int as_direct = 0;  // of the covered, TMA-store twins scored by their direct-store tile
  // Over the covered problems, geometric means of: the pick's speedup over the best measured
  // config's, each time over its own interleaved cuBLASLt reference (1 is perfect; speedups, not
  // times, because a problem's configs were timed at different clocks); the pick's speedup; the
  // best measured config's speedup (the ceiling for the same problems).
  double ratio = 0;
  double speedup = 0;
  double best_speedup = 0;
  double within_2pct = 0;  // fraction of the covered with ratio >= 0.98
  // The same over the problems every scored rule covered, where the rules compare fairly (each
  // rule's own coverage selects different problems).
  int common = 0;
  double common_ratio = 0;
  double common_speedup = 0;
  // common_ratio per size bucket (tuner/ablation.hpp), NaN for an empty bucket, and the counts.
  std::vector<double> bucket_ratio;
  std::vector<int> bucket_count;
  std::vector<PickScore> picks;  // every covered problem, worst ratio first
};

// `neighbours` gives the tuned winners (built from a database that may hold the table's
// problems: each one's own entry is left out); `table` gives the measurements that score the
// picks, averaged per (problem, config) over passing records as TunedTable does. Only the
// table's problems of `layout` (when given) are scored. With `twins_as_direct`, a swap-AB pick
// that stores C through TMA and was not measured there is scored by its direct-store tile's
// measurement (the deepest ring measured): dispatch turns unclustered unsplit swap-AB picks into
// such twins, which histories tuned before them never measured; the twins ran 0.976-1.21 of
// their direct stores (1.036 geomean, bench/results/2026-11-29-h200-swap-tma-store), so the
// score is about a lower bound.
std::vector<RuleScore> leave_one_out(const TunedTable& neighbours, const Database& table,
                                     const std::vector<NeighborRule>& rules,
                                     std::optional<Layout> layout = std::nullopt,
                                     bool twins_as_direct = false);

}  // namespace hgemm::tuner
