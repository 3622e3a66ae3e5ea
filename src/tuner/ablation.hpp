// The offline ablation of the search policies (`hgemm ablate`, issue 5): exhaustive, random and
// rl search replayed against a table of measurements that an exhaustive tuning run took on the
// GPU (every candidate of every problem verified and timed against cuBLASLt). Each policy runs
// through the real tuning loop (Tuner) with a ReplayMeasurer, so every number in the curves is
// a measured time; only the order in which a policy asks for the measurements is simulated.
//
// Per run (one policy, one seed): for every problem of the table, in table order, Tuner::tune
// with a budget of max_evals, the sequence of speedups it was answered (a failed, not-supported
// or missing pair is an evaluation without a speedup). Learning policies learn across the
// problems as a tuning run does. Then, for n = 1..max_evals:
//   best(p, n)   the best speedup among p's first n evaluations (after p's candidates run out
//                it stays at its final value);
//   ratio(p, n)  best(p, n) / optimum(p), the optimum being the best speedup among the
//                table's timed answers for p (one per pair, as the ReplayMeasurer gives them);
// and over problems the geometric means of best and ratio and the fraction within 2%
// (ratio >= 0.98). A problem with no timed evaluation yet counts in the geometric means as if
// its slowest timed table entry had run (a floor: it never flatters a policy) and is never
// within 2%. Random and rl are averaged over seeds (arithmetic mean of the per-seed values);
// exhaustive is deterministic and runs once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tuner/db/database.hpp"
#include "tuner/measure/measurer.hpp"
#include "tuner/space/space.hpp"

namespace hgemm::tuner {

struct AblationOptions {
  int max_evals = 64;
  int seeds = 32;         // runs averaged for random and rl
  uint64_t seed = 24301;  // run i uses seed + i
  RewardWeights weights;  // what the rl policy learns from, as in `hgemm tune`
  int threads = 0;        // runs in parallel; 0: the hardware's concurrency
};

// "Within 2% of the optimum": the ratio every "reaches" below refers to.
inline constexpr double kAblationTarget = 0.98;

// Size buckets of 2·M·N·K FLOP: <1e9, 1e9-1e10, 1e10-1e11, 1e11-1e12, >=1e12.
inline constexpr int kSizeBuckets = 5;
int size_bucket(const Problem& problem);
std::string size_bucket_label(int bucket);

struct AblationProblem {
  Problem problem;
  double optimum = 0;  // best speedup over its timed table entries
  double floor = 0;    // the slowest timed entry's speedup
  std::string optimum_config;
  int candidates = 0;          // space.enumerate(problem)
  int missing = 0;             // candidates the table lacks: answered not_supported
  int missing_blocked = 0;     // of those, on the table's own blocklist (a tuning run skips them)
  bool optimum_in_space = true;  // false: no policy can reach ratio 1 here
};

struct PolicyCurve {
  std::string policy;  // "exhaustive", "random", "rl cold", "rl warm"
  int runs = 0;
  // Index n - 1 for n = 1..max_evals, averaged over runs.
  std::vector<double> geomean_speedup;
  std::vector<double> geomean_ratio;
  std::vector<double> frac_within;
  std::vector<std::vector<double>> bucket_ratio;  // [bucket][n - 1]; empty bucket: NaN
  // The smallest n whose geomean ratio reaches the target; nullopt: not within max_evals.
  std::optional<int> evals_to_target;
  // Per (problem, run), the first n with ratio >= target, a run that never gets there counted
  // as max_evals + 1 (so the mean is a lower bound when frac_reached < 1).
  double mean_evals_to_target = 0;
  double frac_reached = 0;
  long evaluations = 0;   // measurements asked for, all runs
  long not_in_table = 0;  // of those, pairs the table lacks
};

struct AblationResult {
  AblationOptions options;
  std::vector<AblationProblem> problems;  // table order
  int problems_without_timing = 0;        // table problems with no timed entry: left out
  size_t table_records = 0;
  bool warm = false;                      // whether an "rl warm" curve was run
  size_t history_records = 0;             // warm-start records used
  size_t history_held_out = 0;            // history records on an ablation shape, left out
  size_t history_problems = 0;            // distinct problems among those used
  std::vector<PolicyCurve> curves;        // exhaustive, random, rl cold[, rl warm]

  const PolicyCurve* curve(const std::string& policy) const;
  double optimum_geomean() const;  // geomean over problems of the optimum speedup
};

// `history`: records to warm-start an "rl warm" run from (every record on one of the table's
// shapes, any layout or accumulation, is held out); nullptr: no rl warm curve. Throws
// std::invalid_argument when the table has no timed measurement or an option is out of range.
AblationResult run_ablation(const std::vector<Record>& table, const std::vector<Record>* history,
                            const SearchSpace& space, const AblationOptions& options);

// The acceptance rule of issue 5: rl reaches the target (geomean ratio) with at most a quarter
// of the evaluations random search needs. When random never reaches it within max_evals, it
// needs at least max_evals + 1, which decides the rule only if rl needs few enough.
struct Acceptance {
  enum class Outcome { kPass, kFail, kUndecided };
  Outcome outcome = Outcome::kFail;
  std::string policy;       // the rl curve judged
  std::string explanation;  // the numbers, in words
};
Acceptance judge(const AblationResult& result, const std::string& rl_policy);
std::string_view to_string(Acceptance::Outcome outcome);

struct AblationReportInfo {
  std::string command;  // the command line that made the report
  std::string table_path;
  std::string table_gpu;
  std::string history_path;  // empty: none
  std::string csv;           // the CSV's file name, relative to the report
  std::vector<std::string> notes;  // caveats about the inputs, one paragraph each
};

// policy,n,geomean_speedup,geomean_ratio,frac_within_2pct: one row per policy and n.
std::string ablation_csv(const AblationResult& result);
std::string ablation_markdown(const AblationResult& result, const AblationReportInfo& info);

}  // namespace hgemm::tuner
