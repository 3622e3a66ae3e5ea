#include "tuner/tune.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "bench/environment.hpp"

namespace hgemm::tuner {
namespace {

bool better(const Record& a, const Record& b, const Tuner& t) {
  return t.reward_of(a) > t.reward_of(b);
}

}  // namespace

Tuner::Tuner(const SearchSpace& space, SearchPolicy& policy, Measurer& measurer,
             TuneOptions options)
    : space_(space), policy_(policy), measurer_(measurer), options_(std::move(options)) {
  if (!options_.clock) options_.clock = bench::utc_now;
}

double Tuner::reward_of(const Record& record) const {
  const auto config = KernelConfig::parse(record.config);
  if (!config) return options_.weights.failure;
  return reward(record.measurement, *config, space_.device().max_smem_per_block_optin,
                options_.weights);
}

std::optional<Observation> Tuner::observation(const Record& record) const {
  const auto config = KernelConfig::parse(record.config);
  if (!config) return std::nullopt;
  return Observation{*config, space_.features(record.problem, *config), reward_of(record),
                     record.included};
}

void Tuner::note_winner(const Record& record, double reward) {
  if (!record.measurement.timed()) return;
  auto [it, fresh] = winners_.emplace(record.problem.name(), Winner{record, reward});
  if (!fresh && reward > it->second.reward) it->second = Winner{record, reward};
}

std::vector<std::string> Tuner::neighbor_seeds(const Problem& problem) const {
  if (options_.neighbor_seeds <= 0) return {};
  std::vector<std::pair<double, std::string>> near;
  for (const auto& [name, w] : winners_) {
    const Problem& q = w.record.problem;
    if (q.layout != problem.layout || q.accum != problem.accum || name == problem.name()) continue;
    near.emplace_back(shape_distance(q, problem), w.record.config);
  }
  std::sort(near.begin(), near.end());  // ties by config name: independent of hash order
  std::vector<std::string> out;
  for (const auto& [d, config] : near) {
    if (std::find(out.begin(), out.end(), config) == out.end()) out.push_back(config);
    if (int(out.size()) == options_.neighbor_seeds) break;
  }
  return out;
}

void Tuner::load_history(const std::vector<Record>& records, bool resume) {
  for (const auto& [config, why] : tuner::blocklist(records)) blocklist_.emplace(config, why);
  // Rewards are recomputed with this run's weights: the stored ones are informational.
  std::unordered_map<std::string, size_t> group_of;
  std::vector<ReplayGroup> groups;
  for (const Record& r : records) {
    auto obs = observation(r);
    if (!obs) continue;
    auto [it, fresh] = group_of.emplace(r.problem.name(), groups.size());
    if (fresh) groups.push_back({r.problem, {}});
    note_winner(r, obs->reward);
    groups[it->second].observations.push_back(std::move(*obs));
    if (resume) history_[r.problem.name()].push_back(r);
  }
  policy_.warm_start(groups);
}

void Tuner::load_prior(const std::vector<Record>& records) {
  load_history(records, /*resume=*/false);
  for (const Record& r : records) prior_[r.problem.name()].push_back(r);
}

std::vector<std::string> Tuner::ranked_configs(const std::vector<Record>& records) const {
  std::map<std::string, std::pair<double, int>> sums;  // config: reward sum, samples
  for (const Record& r : current_records(records)) {
    if (!r.measurement.timed() || blocklist_.count(r.config)) continue;
    auto& [sum, samples] = sums[r.config];
    sum += reward_of(r);
    ++samples;
  }
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [name, s] : sums) ranked.emplace_back(-s.first / s.second, name);
  std::sort(ranked.begin(), ranked.end());  // ties by name: independent of the records' order
  std::vector<std::string> out;
  for (auto& [reward, name] : ranked) out.push_back(std::move(name));
  return out;
}

std::vector<std::string> Tuner::prior_top(const Problem& problem) const {
  if (options_.history_top <= 0) return {};
  const auto it = prior_.find(problem.name());
  if (it == prior_.end()) return {};
  std::vector<std::string> out = ranked_configs(it->second);
  if (out.size() > size_t(options_.history_top)) out.resize(size_t(options_.history_top));
  return out;
}

std::set<std::string> Tuner::stale_top(const std::vector<Record>& history) const {
  if (options_.remeasure_top <= 0 || options_.remeasure_before.empty()) return {};
  // A config is stale when every one of its ranked records predates remeasure_before.
  std::set<std::string> fresh;
  for (const Record& r : current_records(history))
    if (r.measurement.timed() && r.timestamp >= options_.remeasure_before) fresh.insert(r.config);
  const std::vector<std::string> ranked = ranked_configs(history);
  std::set<std::string> out;
  for (size_t i = 0; i < ranked.size() && int(i) < options_.remeasure_top; ++i)
    if (!fresh.count(ranked[i])) out.insert(ranked[i]);
  return out;
}

ProblemResult Tuner::tune(const Problem& problem, const RecordSink& sink) {
  ProblemResult result;
  result.problem = problem;
  std::vector<Record>& history = history_[problem.name()];
  std::vector<Observation> measured;
  for (const Record& r : history)
    if (auto obs = observation(r)) measured.push_back(std::move(*obs));

  auto included_name = [&](const std::string& name) {
    return std::any_of(
        options_.include.begin(), options_.include.end(),
        [&](const std::string& part) { return name.find(part) != std::string::npos; });
  };
  const std::set<std::string> top = stale_top(history);
  auto forced_name = [&](const std::string& name) {
    return included_name(name) || top.count(name) > 0;
  };
  auto included = [&](const Candidate& c) { return forced_name(c.config.name()); };
  std::vector<Candidate> open;
  std::set<std::string> remeasured;  // open again because every record of it is stale
  for (const KernelConfig& c : space_.enumerate(problem)) {
    const std::string name = c.name();
    const bool stale_ok = !options_.remeasure_before.empty() && forced_name(name);
    bool seen = false, done = false;
    for (const Record& r : history) {
      if (r.config != name) continue;
      seen = true;
      done = done || !(stale_ok && r.timestamp < options_.remeasure_before);
    }
    if (done || blocklist_.count(name)) continue;
    if (seen) remeasured.insert(name);
    open.push_back({c, space_.features(problem, c)});
  }

  // Included candidates come on top of the budget, also when the history already fills it (a
  // second --include pass over a resumed database measures its new instances too).
  const size_t base =
      options_.budget > 0 ? size_t(options_.budget) : open.size() + history.size();
  const size_t budget = std::max(base, history.size()) +
                        size_t(std::count_if(open.begin(), open.end(), included));
  // Seeds are measured first, inside the budget (after any --include candidates), in order: the
  // prior databases' fastest for this problem, then the nearest tuned problems' winners.
  std::vector<std::string> seeds = prior_top(problem);
  for (const std::string& name : neighbor_seeds(problem))
    if (std::find(seeds.begin(), seeds.end(), name) == seeds.end()) seeds.push_back(name);
  auto next_seed = [&] {
    for (const std::string& name : seeds) {
      auto it = std::find_if(open.begin(), open.end(),
                             [&](const Candidate& c) { return c.config.name() == name; });
      if (it != open.end()) return it;
    }
    return open.end();
  };
  while (!open.empty() && history.size() < budget) {
    const ProposalState state{problem, space_, open, measured};
    auto forced = std::find_if(open.begin(), open.end(), included);
    const bool by_include = forced != open.end();
    if (forced == open.end()) forced = next_seed();
    const size_t pick = forced != open.end() ? size_t(forced - open.begin())
                                             : std::min(policy_.propose(state), open.size() - 1);
    const Candidate chosen = open[pick];

    Record record;
    record.problem = problem;
    record.config = chosen.config.name();
    record.measurement = measurer_.measure(problem, chosen.config);
    record.policy = std::string(policy_.name());
    record.timestamp = options_.clock();
    record.reward = reward_of(record);
    // A proposal from outside the policy; a re-measured top config is forced but none.
    const bool proposal = by_include && included_name(record.config);
    record.included = proposal;
    record.supersedes = remeasured.count(record.config) > 0;
    sink(record);

    // A forced pick is not the policy's action: it learns from it only through the replay.
    if (forced == open.end()) policy_.observe(state, pick, record.reward);
    if (is_failure(record.measurement.disposition)) {
      ++result.failures_now;
      blocklist_.emplace(record.config, std::string(to_string(record.measurement.disposition)) +
                                            " on " + problem.name() + ": " +
                                            record.measurement.detail);
    } else if (record.measurement.disposition == Disposition::kNotSupported) {
      ++result.failures_now;
    }
    measured.push_back({chosen.config, chosen.features, record.reward, proposal});
    note_winner(record, record.reward);
    history.push_back(std::move(record));
    open.erase(open.begin() + std::ptrdiff_t(pick));
    ++result.measured_now;
  }
  if (result.measured_now > 0) policy_.learn(ReplayGroup{problem, measured});

  result.measured_total = int(history.size());
  for (const Record& r : history)
    if (r.measurement.timed() && (!result.best || better(r, *result.best, *this))) result.best = r;
  return result;
}

std::vector<Problem> expand_problems(const std::vector<Shape>& shapes,
                                     const std::vector<Layout>& layouts,
                                     const std::vector<Accum>& accums) {
  std::vector<Problem> out;
  for (const Shape& s : shapes)
    for (Layout l : layouts)
      for (Accum a : accums) out.push_back(Problem{s.m, s.n, s.k, l, a});
  return out;
}

std::optional<Shard> parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  Shard s;
  auto parse = [](std::string_view t, int& out) {
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return !t.empty() && ec == std::errc() && end == t.data() + t.size();
  };
  if (!parse(text.substr(0, slash), s.index) || !parse(text.substr(slash + 1), s.count))
    return std::nullopt;
  if (s.count < 1 || s.index < 0 || s.index >= s.count) return std::nullopt;
  return s;
}

double geomean_speedup(const std::vector<ProblemResult>& results) {
  double log_sum = 0;
  int count = 0;
  for (const ProblemResult& r : results)
    if (r.best && r.best->measurement.timed()) {
      log_sum += std::log(r.best->measurement.speedup());
      ++count;
    }
  return count ? std::exp(log_sum / count) : 0.0;
}

}  // namespace hgemm::tuner
