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
#include <set>
#include <string>

#include "core/env.hpp"
#include "dispatch/table.hpp"

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
  for (const Record& r : current_records(db.records)) {
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
    std::vector<dispatch::TimedConfig> all;
    for (const auto& [name, s] : by_config)
      all.push_back({s.config, dispatch::carried_us(s.us / s.samples)});
    // Ties keep the map's order (by name): the same history gives the same list.
    std::stable_sort(all.begin(), all.end(),
                     [](const auto& a, const auto& b) { return a.us < b.us; });
    // The fastest variant of each pooled key only: eleven raster variants of one tile had pushed
    // the tile that transfer needed out of a shape's 32 (docs/notes/2026-11-24-wide-tiles.md).
    std::vector<dispatch::TimedConfig> timed;
    std::set<std::string> carried;
    for (const dispatch::TimedConfig& t : all)
      if (timed.size() < size_t(dispatch::kCarriedConfigs) &&
          carried.insert(dispatch::pooled_key(t.config)).second)
        timed.push_back(t);
    entries_[key] = TunedEntry{best->config,
                               best->us / best->samples,
                               best->ref_us / best->samples,
                               best->reward / best->samples,
                               best->samples,
                               split_searched[key],
                               std::move(timed)};
  }
  for (const auto& [key, entry] : entries_)
    points_.push_back({key.problem(), entry.config, entry.speedup(), entry.timed});
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

std::vector<Candidate> TunedTable::policy_candidates(const Problem& problem) const {
  std::vector<Candidate> candidates;
  for (const KernelConfig& c : space_->enumerate(problem))
    if (!blocklist_.count(c.name())) candidates.push_back({c, space_->features(problem, c)});
  return candidates;
}

std::optional<KernelConfig> TunedTable::predict_policy(const Problem& problem) const {
  if (!policy_ || !space_) return std::nullopt;
  const std::vector<Candidate> candidates = policy_candidates(problem);
  const auto pick = policy_->predict(problem, candidates);
  if (!pick) return std::nullopt;
  return candidates[*pick].config;
}

std::vector<PolicyRank> TunedTable::policy_ranking(const Problem& problem) const {
  if (!policy_ || !space_) return {};
  const std::vector<Candidate> candidates = policy_candidates(problem);
  const std::vector<double> pi = policy_->probabilities(candidates);
  std::vector<PolicyRank> out;
  out.reserve(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i)
    out.push_back({candidates[i].config, 0, policy_->score(candidates[i].features), pi[i]});
  std::stable_sort(out.begin(), out.end(),
                   [](const PolicyRank& a, const PolicyRank& b) { return a.score > b.score; });
  for (size_t i = 0; i < out.size(); ++i) out[i].rank = int(i) + 1;
  return out;
}

std::optional<KernelConfig> TunedTable::predict_nearest(const Problem& problem,
                                                        NeighborRule rule,
                                                        bool leave_out_self) const {
  if (!space_) return std::nullopt;
  const dispatch::NeighborScope scope{
      &space_->device(),
      [&](const Problem& p, const KernelConfig& c) { return space_->legal(p, c).ok(); },
      [&](const KernelConfig& c) { return blocklist_.count(c.name()) > 0; },
      nullptr, model_.get()};
  const auto pick = dispatch::predict_from_neighbors(problem, points_, rule, scope, leave_out_self);
  if (!pick) return std::nullopt;
  return pick->config;
}

std::optional<KernelConfig> TunedTable::predict(const Problem& problem, NeighborRule rule) const {
  if (exact_) {
    if (auto c = predict_nearest(problem, rule)) return c;
    return predict_policy(problem);
  }
  if (auto c = predict_policy(problem)) return c;
  return predict_nearest(problem, rule);
}

std::optional<KernelConfig> TunedTable::lookup(const Problem& problem) const {
  if (const TunedEntry* e = find(problem)) return e->config;
  return predict(problem);
}

std::string default_db_path(const std::string& gpu_name, Accum accum) {
  if (std::string db = env::db(); !db.empty()) return db;
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

}  // namespace hgemm::tuner
