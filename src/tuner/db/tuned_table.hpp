// The tools' view of the tuning database: per exact problem, the best passing config (O(1)
// lookup), and a prediction for problems never tuned. Dispatch reads the same winners from the
// dispatch table `hgemm db export --table` writes (tuner/db/table_export.hpp), and predicts with
// the same rule (dispatch/neighbors.hpp). Built once from a database and then immutable, so
// concurrent readers need no lock.
//
//   find(problem)     the tuned winner: the highest mean reward over its passing measurements
//                     (speedup over cuBLASLt, minus the error and size terms); configs on the
//                     blocklist, no longer compiled, or illegal for the problem never win.
//   predict(problem)  for an untuned problem: among the winners of the nearest tuned problems
//                     (log2-space distance over M, N, K, same layout and accumulation) that are
//                     legal here, the one the cost model prefers (dispatch's default
//                     NeighborRule, siblings);
//                     else the saved policy's argmax over the legal, unblocked candidates when
//                     the database holds a policy state; nullopt when neither exists. Measured
//                     neighbours come first because on the LLM shapes (bench/suites/llm.txt) the
//                     policy's picks ran slower: 4.6% where both were timed inside the grid's range,
//                     10% beyond it (bench/results/2026-11-23-h100-435be3b, perf-notes step 12).
// A database from another device (GPU name or SM count differ) serves predict() only, and there
// the policy comes first: exact timings do not transfer, relative preferences mostly do.
// (Dispatch does neither: a table from another device is not used.)
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/device.hpp"
#include "dispatch/locate.hpp"
#include "dispatch/neighbors.hpp"
#include "hgemm/hgemm.hpp"
#include "tuner/db/database.hpp"
#include "tuner/policy/softmax_policy.hpp"
#include "tuner/space/space.hpp"

namespace hgemm::tuner {

struct TunedKey {
  int64_t m = 0, n = 0, k = 0;
  Layout layout = Layout::kTN;
  Accum accum = Accum::kF32;
  bool operator==(const TunedKey&) const = default;
  static TunedKey of(const Problem& p) { return {p.m, p.n, p.k, p.layout, p.accum}; }
  Problem problem() const { return {m, n, k, layout, accum}; }
};

struct TunedKeyHash {
  size_t operator()(const TunedKey& key) const;
};

struct TunedEntry {
  KernelConfig config;
  double median_us = 0;     // mean over its passing measurements
  double reference_us = 0;
  double reward = 0;
  int samples = 0;
  // Whether this problem's search measured any split-K config: a winner chosen without one
  // was never compared with a split.
  bool searched_split_k = false;
  // The problem's measured configs (this one among them), fastest mean time first, at most
  // dispatch::kCarriedConfigs: what the transfer rule and the dispatch table carry.
  std::vector<dispatch::TimedConfig> timed;
  double speedup() const { return reference_us / median_us; }
};

// One candidate as the saved policy sees it (TunedTable::policy_ranking).
struct PolicyRank {
  KernelConfig config;
  int rank = 0;  // 1: predict_policy()'s pick
  double score = 0;
  double probability = 0;  // SoftmaxPolicy::probabilities over the same candidates
};

using dispatch::kDefaultNeighborRule;
using dispatch::kNeighbors;
using dispatch::NeighborRule;
using dispatch::parse_neighbor_rule;
using dispatch::to_string;

class TunedTable {
 public:
  TunedTable() = default;
  // `exact`: serve find(); false for a database measured on another device.
  TunedTable(const Database& db, SearchSpace space, bool exact, RewardWeights weights = {});
  // The neighbour rule's points view the entries' timed lists: moves keep them valid (the map's
  // nodes move along), a copy would not.
  TunedTable(TunedTable&&) = default;
  TunedTable& operator=(TunedTable&&) = default;
  TunedTable(const TunedTable&) = delete;
  TunedTable& operator=(const TunedTable&) = delete;

  // Loads `path` for the running device: fingerprint differences and bad lines become
  // warnings(); a missing file gives an empty table without warnings.
  static TunedTable load(const std::string& path, SearchSpace space);

  const TunedEntry* find(const Problem& problem) const;
  std::optional<KernelConfig> predict(const Problem& problem,
                                      NeighborRule rule = kDefaultNeighborRule) const;
  // find(), else predict().
  std::optional<KernelConfig> lookup(const Problem& problem) const;
  // The two halves of predict(), for comparisons.
  std::optional<KernelConfig> predict_policy(const Problem& problem) const;
  // Every candidate predict_policy() chooses among, best first (equal scores in enumeration
  // order, as predict_policy breaks ties); empty without a readable policy state.
  std::vector<PolicyRank> policy_ranking(const Problem& problem) const;
  bool has_policy() const { return policy_.has_value(); }
  // `leave_out_self`: ignore the problem's own entry, as if it had never been tuned (how
  // `hgemm db loo` scores the rules on measured problems).
  std::optional<KernelConfig> predict_nearest(const Problem& problem,
                                              NeighborRule rule = NeighborRule::kNearest,
                                              bool leave_out_self = false) const;

  // Whether any timed record splits K: a policy trained on a database without split-K cannot
  // have learned when splitting pays. Per problem: TunedEntry::searched_split_k.
  bool measured_split_k() const { return measured_split_k_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty() && !policy_; }
  bool exact() const { return exact_; }
  const std::string& path() const { return path_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::map<std::string, std::string>& blocklist() const { return blocklist_; }
  // The dispatch model the neighbour rules consult, as dispatch consults the one beside its
  // table (dispatch/model.hpp); null: none.
  void set_model(std::shared_ptr<const dispatch::DispatchModel> model) {
    model_ = std::move(model);
  }
  const std::unordered_map<TunedKey, TunedEntry, TunedKeyHash>& entries() const { return entries_; }

 private:
  // The problem's legal configs that are not blocklisted, with their features.
  std::vector<Candidate> policy_candidates(const Problem& problem) const;

  std::vector<dispatch::TunedPoint> points_;  // entries_ as the neighbour rule reads them
  std::optional<SearchSpace> space_;
  bool exact_ = true;
  bool measured_split_k_ = false;
  std::string path_;
  std::unordered_map<TunedKey, TunedEntry, TunedKeyHash> entries_;
  std::map<std::string, std::string> blocklist_;
  std::optional<SoftmaxPolicy> policy_;
  std::shared_ptr<const dispatch::DispatchModel> model_;
  std::vector<std::string> warnings_;
};

using dispatch::gpu_slug;
// $HGEMM_DB when set, else <source dir>/data/tuned/<gpu slug>-<acc>.jsonl, or that name plus
// .gz when only the compressed file (as the repository ships it) exists.
std::string default_db_path(const std::string& gpu_name, Accum accum);

}  // namespace hgemm::tuner
