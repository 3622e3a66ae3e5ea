#include "tuner/db/tuned_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>

#include "launch/sm90_jit.hpp"
#include "registry/registry.hpp"

namespace hgemm::tuner {

size_t TunedKeyHash::operator()(const TunedKey& key) const {
  uint64_t h = 1469598103934665603ull;
  for (uint64_t v : {uint64_t(key.m), uint64_t(key.n), uint64_t(key.k), uint64_t(key.layout),
                     uint64_t(key.accum)}) {
    h ^= v;
    h *= 1099511628211ull;
  }
  return size_t(h);
}

TunedTable::TunedTable(const Database& db, SearchSpace space, bool exact, RewardWeights weights)
    : space_(std::move(space)), exact_(exact), blocklist_(tuner::blocklist(db.records)) {
  const int smem_limit = space_->device().max_smem_per_block_optin;
  struct Sum {
    KernelConfig config;
    double us = 0, ref_us = 0, reward = 0;
    int samples = 0;
  };
  std::unordered_map<TunedKey, std::map<std::string, Sum>, TunedKeyHash> sums;
  std::unordered_map<TunedKey, bool, TunedKeyHash> split_searched;
  for (const Record& r : db.records) {
    const auto config = KernelConfig::parse(r.config);
    if (config && config->split_k > 1) split_searched[TunedKey::of(r.problem)] = true;
    if (!r.measurement.timed() || blocklist_.count(r.config)) continue;
    if (!config || !space_->legal(r.problem, *config).ok()) continue;
    if (config->split_k > 1) measured_split_k_ = true;
    Sum& s = sums[TunedKey::of(r.problem)][r.config];
    s.config = *config;
    s.us += r.measurement.median_us;
    s.ref_us += r.measurement.reference_us;
    s.reward += reward(r.measurement, *config, smem_limit, weights);
    ++s.samples;
  }
  for (const auto& [key, by_config] : sums) {
    const Sum* best = nullptr;
    for (const auto& [name, s] : by_config)
      if (!best || s.reward / s.samples > best->reward / best->samples) best = &s;
    entries_[key] = TunedEntry{best->config, best->us / best->samples,
                               best->ref_us / best->samples, best->reward / best->samples,
                               best->samples, split_searched[key]};
  }
  if (db.policy && db.policy->policy == "rl") {
    policy_ = SoftmaxPolicy::load(db.policy->state);
    if (!policy_) warnings_.push_back("the saved policy state is not readable by this version");
  }
}

TunedTable TunedTable::load(const std::string& path, SearchSpace space) {
  const Database db = load_database(path);
  const Fingerprint running{{"gpu", space.device().name},
                            {"sm_count", std::to_string(space.device().sm_count)}};
  const FingerprintCheck check = compare_fingerprints(db.header, running);
  TunedTable table(db, std::move(space), check.same_device);
  table.path_ = path;
  std::vector<std::string> warnings = db.errors;
  if (!check.same_device) {
    std::string what = path + " was tuned on another device";
    for (const std::string& d : check.differences) what += "; " + d;
    warnings.push_back(what + ": its exact entries are ignored, dispatch uses its predictions");
  }
  warnings.insert(warnings.end(), table.warnings_.begin(), table.warnings_.end());
  table.warnings_ = std::move(warnings);
  return table;
}

const TunedEntry* TunedTable::find(const Problem& problem) const {
  if (!exact_) return nullptr;
  auto it = entries_.find(TunedKey::of(problem));
  return it == entries_.end() ? nullptr : &it->second;
}

std::optional<KernelConfig> TunedTable::predict_policy(const Problem& problem) const {
  if (!policy_ || !space_) return std::nullopt;
  std::vector<Candidate> candidates;
  for (const KernelConfig& c : space_->enumerate(problem))
    if (!blocklist_.count(c.name())) candidates.push_back({c, space_->features(problem, c)});
  const auto pick = policy_->predict(problem, candidates);
  if (!pick) return std::nullopt;
  return candidates[*pick].config;
}

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

NeighborRule neighbor_rule() {
  static const NeighborRule rule = [] {
    const char* v = std::getenv("HGEMM_PREDICT");
    return parse_neighbor_rule(v ? v : "").value_or(NeighborRule::kSiblings);
  }();
  return rule;
}

std::optional<KernelConfig> TunedTable::predict_nearest(const Problem& problem,
                                                        NeighborRule rule,
                                                        bool leave_out_self) const {
  if (!space_) return std::nullopt;
  if (rule == NeighborRule::kSiblings) {
    // Only the cost rule's pick is varied: over all the neighbours' winners and their siblings
    // the model's stage term preferred shallow rings, which lost up to 44% on decode shapes.
    const auto pick = predict_nearest(problem, NeighborRule::kCost, leave_out_self);
    if (!pick) return pick;
    std::optional<KernelConfig> best;
    double best_cost = 0;
    for (const KernelConfig& c : with_block_n_siblings(problem, *pick)) {
      const double cost = registry::estimate_cost(problem, c, space_->device());
      if (!best || cost < best_cost) {  // ties keep the pick, then axis order
        best_cost = cost;
        best = c;
      }
    }
    return best;
  }
  const TunedKey self = TunedKey::of(problem);
  // The tuned problems of this layout and accumulation, nearest first (ties by config name, so
  // the answer does not depend on hash order).
  std::vector<std::pair<double, const std::pair<const TunedKey, TunedEntry>*>> near;
  for (const auto& item : entries_) {
    const TunedKey& key = item.first;
    if (key.layout != problem.layout || key.accum != problem.accum) continue;
    if (leave_out_self && key == self) continue;
    near.push_back({shape_distance(key.problem(), problem), &item});
  }
  std::sort(near.begin(), near.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first
                              : x.second->second.config.name() < y.second->second.config.name();
  });
  const int k = rule == NeighborRule::kNearest ? 1 : kNeighbors;
  std::optional<KernelConfig> best;
  double best_score = -std::numeric_limits<double>::infinity();
  int considered = 0;
  for (const auto& [distance, item] : near) {
    if (considered == k) break;
    const TunedEntry& entry = item->second;
    if (!space_->legal(problem, entry.config).ok()) continue;
    ++considered;
    const DeviceInfo& device = space_->device();
    double score = 0;
    if (rule == NeighborRule::kCost) {
      score = -registry::estimate_cost(problem, entry.config, device);
    } else if (rule == NeighborRule::kScaled) {
      // The neighbour's measured speedup, carried over by the cost model's change in
      // efficiency (ideal work over estimated cost) from the neighbour's shape to this one.
      const Problem at = item->first.problem();
      const double work_here = double(problem.m) * problem.n * problem.k;
      const double work_there = double(at.m) * at.n * at.k;
      const double eff_here = work_here / registry::estimate_cost(problem, entry.config, device);
      const double eff_there = work_there / registry::estimate_cost(at, entry.config, device);
      score = entry.speedup() * eff_here / eff_there;
    }
    if (!best || score > best_score) {
      best_score = score;
      best = entry.config;
    }
  }
  return best;
}

std::vector<KernelConfig> TunedTable::with_block_n_siblings(const Problem& problem,
                                                            const KernelConfig& winner) const {
  std::vector<KernelConfig> out{winner};
  for (const Axis& axis : family_space(winner.family).axes) {
    if (axis.name != "block_n") continue;
    for (int block_n : axis.values) {
      if (block_n == winner.block_n) continue;
      KernelConfig sibling = winner;
      sibling.block_n = block_n;
      if (space_->legal(problem, sibling).ok() && !blocklist_.count(sibling.name()))
        out.push_back(sibling);
    }
  }
  return out;
}

std::optional<KernelConfig> TunedTable::predict(const Problem& problem) const {
  if (exact_) {
    if (auto c = predict_nearest(problem, neighbor_rule())) return c;
    return predict_policy(problem);
  }
  if (auto c = predict_policy(problem)) return c;
  return predict_nearest(problem, neighbor_rule());
}

std::optional<KernelConfig> TunedTable::lookup(const Problem& problem) const {
  if (const TunedEntry* e = find(problem)) return e->config;
  return predict(problem);
}

std::string gpu_slug(std::string_view gpu_name) {
  std::string out;
  for (char ch : gpu_name) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) out += char(std::tolower(c));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown-gpu" : out;
}

std::string default_db_path(const std::string& gpu_name, Accum accum) {
  if (const char* env = std::getenv("HGEMM_DB"); env && *env) return env;
#ifdef HGEMM_SOURCE_DIR_FOR_SUITES
  const std::string root = std::string(HGEMM_SOURCE_DIR_FOR_SUITES) + "/";
#else
  const std::string root;
#endif
  const std::string plain =
      root + "data/tuned/" + gpu_slug(gpu_name) + "-" + std::string(to_string(accum)) + ".jsonl";
  // The repository ships the compressed file; a plain one beside it (being tuned) wins.
  std::error_code ec;
  if (!std::filesystem::exists(plain, ec) && std::filesystem::exists(plain + ".gz", ec))
    return plain + ".gz";
  return plain;
}

const TunedTable& tuned_table(const DeviceInfo& device, Accum accum) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::unique_ptr<TunedTable>> tables;
  std::lock_guard lock(mutex);
  auto& slot = tables[{device.ordinal, int(accum)}];
  if (!slot) {
    try {
      // With the JIT on, winners outside the catalog count too (they compile on first use).
      slot = std::make_unique<TunedTable>(TunedTable::load(
          default_db_path(device.name, accum),
          jit::enabled() ? SearchSpace::with_declared(device, {"all"})
                         : SearchSpace::from_catalog(device)));
    } catch (const std::exception& e) {
      slot = std::make_unique<TunedTable>();
      std::fprintf(stderr, "hgemm: warning: tuning database not used: %s\n", e.what());
    }
    for (const std::string& w : slot->warnings())
      std::fprintf(stderr, "hgemm: warning: %s\n", w.c_str());
  }
  return *slot;
}

}  // namespace hgemm::tuner
