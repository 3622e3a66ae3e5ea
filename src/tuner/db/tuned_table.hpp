// What dispatch reads from the tuning database: per exact problem, the best passing config
// (O(1) lookup), and a prediction for problems never tuned. Built once from a database and then
// immutable, so concurrent readers need no lock.
//
//   find(problem)     the tuned winner: the highest mean reward over its passing measurements
//                     (speedup over cuBLASLt, minus the error and size terms); configs on the
//                     blocklist, no longer compiled, or illegal for the problem never win.
//   predict(problem)  for an untuned problem: among the winners of the nearest tuned problems
//                     (log2-space distance over M, N, K, same layout and accumulation) that are
//                     legal here, the one the cost model prefers (NeighborRule below);
//                     else the saved policy's argmax over the legal, unblocked candidates when
//                     the database holds a policy state; nullopt when neither exists. Measured
//                     neighbours come first because on the LLM shapes (bench/suites/llm.txt) the
//                     policy's picks ran slower: 4.6% where both were timed inside the grid's range,
//                     10% beyond it (bench/results/2026-11-23-h100-435be3b, perf-notes step 12).
// A database from another device (GPU name or SM count differ) serves predict() only, and there
// the policy comes first: exact timings do not transfer, relative preferences mostly do.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/device.hpp"
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
  double speedup() const { return reference_us / median_us; }
};

// How an untuned problem uses its tuned neighbours (HGEMM_PREDICT picks one; an experiment knob;
// `hgemm db loo` scores them offline on tuned problems):
//   cost     among the winners of the kNeighbors nearest, the one the cost model
//            (registry::estimate_cost) finds cheapest for this shape (the default: on the LLM
//            suite it ran 0.963 of cuBLASLt in graph mode against nearest's 0.959, 0.986 against
//            0.975 offline; bench/results/2026-11-23-h100-86bd4cd)
//   nearest  the winner of the nearest tuned problem, which carries that shape's wave
//            quantization along (64x64 fills one wave at 128x4096 and two at 128x5120)
//   scaled   among the same winners, the highest neighbour speedup times the cost model's ratio
//            of efficiencies, this shape over the neighbour's (its waves, tile fill, split)
//   siblings the cost rule's pick or one of its block_n siblings (the pick with another legal
//            block_n of its family's axis), whichever the cost model prefers: the grid's
//            power-of-two shapes rarely let a tile such as 128x224 win, yet at N = 3584 it
//            fills the last wave that 128x256 leaves 61% empty
enum class NeighborRule { kNearest, kCost, kScaled, kSiblings };
inline constexpr int kNeighbors = 8;
NeighborRule neighbor_rule();
// "nearest", "cost", "scaled", "siblings"; parse_neighbor_rule: nullopt for another name.
std::string_view to_string(NeighborRule rule);
std::optional<NeighborRule> parse_neighbor_rule(std::string_view name);

class TunedTable {
 public:
  TunedTable() = default;
  // `exact`: serve find(); false for a database measured on another device.
  TunedTable(const Database& db, SearchSpace space, bool exact, RewardWeights weights = {});

  // Loads `path` for the running device: fingerprint differences and bad lines become
  // warnings(); a missing file gives an empty table without warnings.
  static TunedTable load(const std::string& path, SearchSpace space);

  const TunedEntry* find(const Problem& problem) const;
  std::optional<KernelConfig> predict(const Problem& problem) const;
  // find(), else predict().
  std::optional<KernelConfig> lookup(const Problem& problem) const;
  // The two halves of predict(), for comparisons.
  std::optional<KernelConfig> predict_policy(const Problem& problem) const;
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
  const std::unordered_map<TunedKey, TunedEntry, TunedKeyHash>& entries() const { return entries_; }

 private:
  // `winner` first, then each legal, unblocked config that differs from it only in block_n.
  std::vector<KernelConfig> with_block_n_siblings(const Problem& problem,
                                                  const KernelConfig& winner) const;
  std::optional<SearchSpace> space_;
  bool exact_ = true;
  bool measured_split_k_ = false;
  std::string path_;
  std::unordered_map<TunedKey, TunedEntry, TunedKeyHash> entries_;
  std::map<std::string, std::string> blocklist_;
  std::optional<SoftmaxPolicy> policy_;
  std::vector<std::string> warnings_;
};

// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"
std::string gpu_slug(std::string_view gpu_name);
// $HGEMM_DB when set, else <source dir>/data/tuned/<gpu slug>-<acc>.jsonl, or that name plus
// .gz when only the compressed file (as the repository ships it) exists.
std::string default_db_path(const std::string& gpu_name, Accum accum);

// The table dispatch uses on `device` for `accum`: loaded from default_db_path() on first use,
// then shared for the life of the process. Never throws: an unreadable database is an empty
// table, and its warnings go to stderr once.
const TunedTable& tuned_table(const DeviceInfo& device, Accum accum);

}  // namespace hgemm::tuner
