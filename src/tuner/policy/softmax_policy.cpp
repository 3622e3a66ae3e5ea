#include "tuner/policy/softmax_policy.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace hgemm::tuner {
namespace {

constexpr int kP = Features::kProblem;
constexpr int kC = Features::kConfig;
constexpr int kJ = Features::kJoint;
constexpr int kCostIndex = kP * kC + (kJ - 1);  // the joint "neg_log_cost" feature
constexpr std::string_view kStateTag = "softmax-policy-v2";  // v2: the ping_pong feature

// Calls fn(index, value) for every entry of the score's input vector x(f).
template <class Fn>
void for_each_input(const Features& f, Fn&& fn) {
  int i = 0;
  for (int p = 0; p < kP; ++p)
    for (int c = 0; c < kC; ++c) fn(i++, f.problem[p] * f.config[c]);
  for (int j = 0; j < kJ; ++j) fn(i++, f.joint[j]);
  for (int p = 0; p < kP; ++p)
    for (int j = 0; j < kJ; ++j) fn(i++, f.problem[p] * f.joint[j]);
}

// Which compiled kernel a config runs on (raster, group and split are launch arguments) and the
// decade of the problem's 2*M*N*K: the unit in which exploration counts measurements.
std::string exploration_key(const Problem& problem, const KernelConfig& config) {
  const double flops = 2.0 * double(problem.m) * double(problem.n) * double(problem.k);
  return config.instance().name() + "/" + std::to_string(int(std::floor(std::log10(flops))));
}

std::vector<const Features*> features_of(const std::vector<Candidate>& cs) {
  std::vector<const Features*> out;
  out.reserve(cs.size());
  for (const Candidate& c : cs) out.push_back(&c.features);
  return out;
}

}  // namespace

SoftmaxPolicy::SoftmaxPolicy(SoftmaxPolicyOptions options)
    : options_(options), w_(kDim, 0.0), u_(kP, 0.0), rng_(options.seed) {
  w_[kCostIndex] = options_.cost_prior;
  prior_ = w_;
  u_[0] = 1.0;  // the bias: before any data, a candidate is expected to match the reference
}

double SoftmaxPolicy::score(const Features& f) const {
  double s = 0;
  for_each_input(f, [&](int i, double x) { s += w_[i] * x; });
  return s;
}

double SoftmaxPolicy::baseline(const Features& f) const {
  double b = 0;
  for (int p = 0; p < kP; ++p) b += u_[p] * f.problem[p];
  return b;
}

std::vector<double> SoftmaxPolicy::softmax(const std::vector<const Features*>& fs,
                                           double temperature,
                                           const std::vector<double>& bonus) const {
  std::vector<double> pi(fs.size());
  double top = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < fs.size(); ++i)
    top = std::max(top, pi[i] = (score(*fs[i]) + (bonus.empty() ? 0.0 : bonus[i])) / temperature);
  double sum = 0;
  for (double& v : pi) sum += v = std::exp(v - top);
  for (double& v : pi) v /= sum;
  return pi;
}

size_t SoftmaxPolicy::sample(const std::vector<const Features*>& fs,
                             const std::vector<double>& bonus) {
  const std::vector<double> pi = softmax(fs, options_.temperature, bonus);
  double u = rng_.uniform();
  for (size_t i = 0; i < pi.size(); ++i) {
    if (u < pi[i]) return i;
    u -= pi[i];
  }
  return pi.size() - 1;
}

size_t SoftmaxPolicy::propose(const ProposalState& state) {
  const auto& cs = state.candidates;
  offered_.clear();
  greedy_ = state.measured.empty();
  if (greedy_) return predict(state.problem, cs).value_or(0);
  // Occasionally refine around the best so far: its raster/group variants and other one-axis
  // neighbours are the likeliest near-misses.
  if (rng_.uniform() < options_.local_fraction) {
    const Observation* best = &state.measured.front();
    for (const Observation& o : state.measured)
      if (o.reward > best->reward) best = &o;
    const std::vector<KernelConfig> near = state.space.neighbors(best->config);
    std::vector<size_t> open;
    for (size_t i = 0; i < cs.size(); ++i)
      if (std::find(near.begin(), near.end(), cs[i].config) != near.end()) open.push_back(i);
    if (!open.empty()) {
      std::vector<const Features*> fs;
      for (size_t i : open) fs.push_back(&cs[i].features);
      offered_ = open;
      return open[sample(fs)];
    }
  }
  offered_.clear();
  return sample(features_of(cs), exploration_bonus(state.problem, cs));
}

std::vector<double> SoftmaxPolicy::exploration_bonus(
    const Problem& problem, const std::vector<Candidate>& candidates) const {
  if (options_.explore_bonus == 0) return {};
  std::vector<double> bonus;
  bonus.reserve(candidates.size());
  for (const Candidate& c : candidates) {
    const auto it = measured_count_.find(exploration_key(problem, c.config));
    const int n = it == measured_count_.end() ? 0 : it->second;
    bonus.push_back(options_.explore_bonus / std::sqrt(1.0 + n));
  }
  return bonus;
}

void SoftmaxPolicy::count_measured(const ReplayGroup& group) {
  for (const Observation& o : group.observations)
    ++measured_count_[exploration_key(group.problem, o.config)];
}

void SoftmaxPolicy::observe(const ProposalState& state, size_t chosen, double reward) {
  const Features& f = state.candidates[chosen].features;
  const double advantage = reward - baseline(f);
  for (int p = 0; p < kP; ++p) u_[p] += options_.baseline_rate * advantage * f.problem[p];
  // The argmax was not drawn from the policy: it teaches the baseline now and the scores through
  // replay, not through a likelihood-ratio step.
  if (greedy_) return;
  // The gradient is taken over the distribution the proposal was drawn from: the neighbours of
  // a local proposal, else every open candidate.
  std::vector<const Features*> fs;
  std::vector<double> bonus;
  if (std::find(offered_.begin(), offered_.end(), chosen) != offered_.end()) {
    for (size_t i : offered_) fs.push_back(&state.candidates[i].features);
  } else {
    fs = features_of(state.candidates);
    bonus = exploration_bonus(state.problem, state.candidates);
  }
  const std::vector<double> pi = softmax(fs, options_.temperature, bonus);
  // grad log pi(chosen) = x_chosen - sum_b pi_b x_b
  std::vector<double> grad(kDim, 0.0);
  for_each_input(f, [&](int i, double x) { grad[i] += x; });
  for (size_t b = 0; b < fs.size(); ++b)
    for_each_input(*fs[b], [&](int i, double x) { grad[i] -= pi[b] * x; });
  const double step = options_.learning_rate * advantage / options_.temperature;
  for (int i = 0; i < kDim; ++i)
    w_[i] += step * grad[i] - options_.weight_decay * (w_[i] - prior_[i]);
}

void SoftmaxPolicy::replay_step(const ReplayGroup& group) {
  const auto& obs = group.observations;
  if (obs.size() < 2) return;  // one candidate carries no preference
  std::vector<const Features*> fs;
  for (const Observation& o : obs) fs.push_back(&o.features);
  const std::vector<double> pi = softmax(fs, 1.0);
  double mean = 0, lo = obs.front().reward;
  size_t best = 0;  // the first of the best rewards
  for (size_t a = 0; a < obs.size(); ++a) {
    mean += pi[a] * obs[a].reward;
    lo = std::min(lo, obs[a].reward);
    if (obs[a].reward > obs[best].reward) best = a;
  }
  const double hi = obs[best].reward;
  const double spread = std::max(hi - lo, options_.min_spread);
  // The expected-reward gradient weights a candidate by pi_a, so a winner the policy ranks low
  // barely moves it. For its own picks that is right (it sampled them: the online step already
  // took them at full weight), but an included candidate was never its choice: a proposal that
  // won is evidence the policy lacked. Toward those, the gradient of log pi(winners) over the
  // measured candidates, target q uniform over the included near-winners: (q_a - pi_a) x_a,
  // large while the policy ranks them low, vanishing once it would pick them.
  // A proposal also counts as confirmed when the best measured candidate is its own kernel with
  // another raster or group: local refinement found the kernel's better launch, and the pull
  // goes to that launch.
  std::vector<size_t> winners;
  if (options_.included_pull > 0 && hi > lo) {
    for (size_t a = 0; a < obs.size(); ++a)
      if (obs[a].included && obs[a].reward >= hi - options_.near_win) winners.push_back(a);
    auto same_kernel = [&](const Observation& o) {
      return o.included && o.config.instance() == obs[best].config.instance() &&
             o.config.split_k == obs[best].config.split_k;
    };
    if (!obs[best].included && std::any_of(obs.begin(), obs.end(), same_kernel))
      winners.push_back(best);
  }
  std::vector<double> grad(kDim, 0.0);
  for (size_t a = 0; a < obs.size(); ++a) {
    double weight = pi[a] * (obs[a].reward - mean) / spread;
    if (!winners.empty()) {
      const bool target = std::find(winners.begin(), winners.end(), a) != winners.end();
      weight += options_.included_pull * ((target ? 1.0 / double(winners.size()) : 0.0) - pi[a]);
    }
    for_each_input(*fs[a], [&](int i, double x) { grad[i] += weight * x; });
  }
  for (int i = 0; i < kDim; ++i)
    w_[i] += options_.replay_rate * grad[i] - options_.weight_decay * (w_[i] - prior_[i]);
}

void SoftmaxPolicy::learn(const ReplayGroup& group) {
  replay_step(group);
  const size_t earlier = memory_.size();
  for (int r = 0; r < options_.replay_groups && earlier > 0; ++r)
    replay_step(memory_[rng_.below(earlier)]);
  memory_.push_back(group);
  count_measured(group);
}

void SoftmaxPolicy::warm_start(const std::vector<ReplayGroup>& groups) {
  if (groups.empty()) return;
  std::vector<size_t> order(groups.size());
  for (int epoch = 0; epoch < options_.warm_start_epochs; ++epoch) {
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng_.below(i)]);
    for (size_t i : order) replay_step(groups[i]);
  }
  memory_.insert(memory_.end(), groups.begin(), groups.end());
  for (const ReplayGroup& g : groups) count_measured(g);
}

std::vector<double> SoftmaxPolicy::probabilities(const std::vector<Candidate>& candidates) const {
  return softmax(features_of(candidates), 1.0);
}

std::optional<size_t> SoftmaxPolicy::predict(const Problem&,
                                             const std::vector<Candidate>& candidates) const {
  if (candidates.empty()) return std::nullopt;
  size_t best = 0;
  double best_score = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const double s = score(candidates[i].features);
    if (s > best_score) {
      best_score = s;
      best = i;
    }
  }
  return best;
}

std::string SoftmaxPolicy::save() const {
  std::string out(kStateTag);
  // Appended piece by piece: `" " + std::string&&` trips gcc 12's -Wrestrict (a false positive).
  out += ' ';
  out += std::to_string(kDim);
  out += ' ';
  out += std::to_string(kP);
  char buf[32];
  for (const auto* v : {&w_, &u_})
    for (double x : *v) {
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
      out += ' ';
      out.append(buf, end);
    }
  return out;
}

std::optional<SoftmaxPolicy> SoftmaxPolicy::load(std::string_view text) {
  std::vector<std::string_view> tokens;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    if (end > pos) tokens.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  if (tokens.size() != size_t(3 + kDim + kP) || tokens[0] != kStateTag ||
      tokens[1] != std::to_string(kDim) || tokens[2] != std::to_string(kP))
    return std::nullopt;
  SoftmaxPolicy policy;
  for (size_t i = 0; i < size_t(kDim + kP); ++i) {
    double x = 0;
    const std::string_view t = tokens[3 + i];
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
    if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(x)) return std::nullopt;
    (i < size_t(kDim) ? policy.w_[i] : policy.u_[i - kDim]) = x;
  }
  return policy;
}

std::unique_ptr<SearchPolicy> make_policy(std::string_view name, uint64_t seed) {
  if (name == "rl") {
    SoftmaxPolicyOptions options;
    options.seed = seed;
    return std::make_unique<SoftmaxPolicy>(options);
  }
  if (name == "random") return std::make_unique<RandomSearch>(seed);
  if (name == "exhaustive") return std::make_unique<ExhaustiveSearch>();
  return nullptr;
}

}  // namespace hgemm::tuner
