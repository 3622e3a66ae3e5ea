// The tuning loop. For each problem, until its budget of measurements is spent (earlier runs'
// records count toward it) or no candidate is left:
//   candidates = space.enumerate(problem) - measured for this problem - blocklist
//   config     = policy.propose(...)
//   measurement= measurer.measure(problem, config)   (verify, then time against the reference)
//   reward     = reward(measurement)                  -> policy.observe(...)
//   record     -> sink (the database, fsynced) before the next candidate starts
// then policy.learn(the problem's measurements). A failing candidate is recorded with its
// reason and the failure reward, joins the blocklist, and the loop goes on; only the measurer's
// infrastructure errors (a lost CUDA context) propagate, with every finished record saved.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/suite.hpp"
#include "hgemm/hgemm.hpp"
#include "tuner/db/database.hpp"
#include "tuner/measure/measurer.hpp"
#include "tuner/policy/policy.hpp"
#include "tuner/space/space.hpp"

namespace hgemm::tuner {

struct TuneOptions {
  // Measurements per problem; <= 0: every candidate. 64: warm-started from the shipped history,
  // rl reached 2% of the exhaustive optimum on 17 of 19 held-out shapes at about 4 s a shape
  // (bench/results/2026-11-24-h100-tune-in-seconds); 16 left about a third of them short.
  int budget = 64;
  // Candidates whose name contains one of these are measured first, on top of the budget (once:
  // a measured one is history). For a kernel new to the catalog, which a policy that never saw
  // it would rarely propose within a small budget.
  std::vector<std::string> include;
  // After a change to a kernel: an included candidate whose records are all older than this
  // (ISO 8601 UTC, as records stamp it) is measured again, and its new record supersedes the old
  // ones (Record::supersedes). A fixed instant keeps a resumed pass from measuring twice.
  std::string remeasure_before;
  // With remeasure_before: also each problem's this many fastest configs (by their current
  // records' mean reward) are measured again where their records all predate it. Ranks are taken
  // on the current records, so a resumed pass measures a config that a re-measurement moved into
  // the top, and none twice.
  int remeasure_top = 0;
  // A problem's first measurements (inside its budget) are the winners of the nearest problems
  // already tuned (log2 distance over M, N, K; same layout and accumulation), up to this many
  // distinct configs: what untuned dispatch would run is always among the candidates, so tuning
  // a shape never ends below its untuned dispatch by the policy's misses.
  int neighbor_seeds = 4;
  // A problem's first measurements (inside its budget, before the neighbour seeds) are the this
  // many fastest configs the prior databases (load_prior: --history, e.g. another GPU's) hold for
  // the same problem, by their records' mean reward: a device with no database of its own starts
  // from what won on the other GPU, not from what won at the nearest shapes.
  int history_top = 0;
  RewardWeights weights;
  // Timestamps for records; the default is the UTC wall clock.
  std::function<std::string()> clock;
};

struct ProblemResult {
  Problem problem;
  int measured_now = 0;    // in this call
  int measured_total = 0;  // including earlier records
  int failures_now = 0;
  std::optional<Record> best;  // the passing record with the highest reward, old or new
};

using RecordSink = std::function<void(const Record&)>;

class Tuner {
 public:
  Tuner(const SearchSpace& space, SearchPolicy& policy, Measurer& measurer,
        TuneOptions options = {});

  // Earlier measurements (a database). Their failures join the blocklist and the policy replays
  // them (one warm start). With `resume`, they also count toward each problem's budget and are
  // not measured again.
  void load_history(const std::vector<Record>& records, bool resume);
  // Records of another database that only inform this run (--history): load_history without
  // resume, and the source of each problem's history_top seeds.
  void load_prior(const std::vector<Record>& records);
  ProblemResult tune(const Problem& problem, const RecordSink& sink);

  const std::map<std::string, std::string>& blocklist() const { return blocklist_; }
  double reward_of(const Record& record) const;

 private:
  std::optional<Observation> observation(const Record& record) const;
  void note_winner(const Record& record, double reward);
  std::vector<std::string> neighbor_seeds(const Problem& problem) const;
  // The configs of one problem's records by mean reward of their current, timed records, best
  // first (ties by name); blocklisted ones left out.
  std::vector<std::string> ranked_configs(const std::vector<Record>& records) const;
  // The history_top fastest configs of the prior databases' records of `problem`.
  std::vector<std::string> prior_top(const Problem& problem) const;
  // The remeasure_top fastest configs of a problem's history whose records are all stale.
  std::set<std::string> stale_top(const std::vector<Record>& history) const;

  const SearchSpace& space_;
  SearchPolicy& policy_;
  Measurer& measurer_;
  TuneOptions options_;
  std::map<std::string, std::string> blocklist_;
  std::unordered_map<std::string, std::vector<Record>> history_;  // by Problem::name()
  std::unordered_map<std::string, std::vector<Record>> prior_;    // load_prior's, likewise
  struct Winner {
    Record record;
    double reward = 0;  // reward_of(record), computed once
  };
  std::unordered_map<std::string, Winner> winners_;  // best passing record by Problem::name()
};

// Every shape in every layout and accumulation, shape-major (a shape's variants stay together,
// so a worker prepares its buffers once per shape).
std::vector<Problem> expand_problems(const std::vector<Shape>& shapes,
                                     const std::vector<Layout>& layouts,
                                     const std::vector<Accum>& accums);

// Shard `index` of `count`: the items whose position p has p % count == index.
struct Shard {
  int index = 0;
  int count = 1;
};
std::optional<Shard> parse_shard(std::string_view text);  // "i/n", 0 <= i < n
template <class T>
std::vector<T> take_shard(const std::vector<T>& items, Shard shard) {
  std::vector<T> out;
  for (size_t p = size_t(shard.index); p < items.size(); p += size_t(shard.count))
    out.push_back(items[p]);
  return out;
}

// The geometric mean of best-found speedups over problems that have one (0 when none).
double geomean_speedup(const std::vector<ProblemResult>& results);

}  // namespace hgemm::tuner
