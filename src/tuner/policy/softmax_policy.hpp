// The learned policy ("rl"): a softmax over the candidate set whose score is linear in
//   x = [ problem (x) config, joint, problem (x) joint ]
// built from SearchSpace::features(), so what matters about a config can depend on the shape
// (small M favours 64-row tiles, N > M favours rastering along N, ...). One weight vector serves
// every problem: what it learns on one shape informs its neighbours ("contextual memory").
//
// Training, all deterministic given the seed:
//   online   after each sampled measurement, REINFORCE with a learned baseline:
//            w += lr * (r - b(problem)) * (x_chosen - E_pi[x]),  b = u . problem features,
//            the expectation over the distribution the candidate was drawn from. The greedy
//            first pick was not drawn: it trains the baseline only (and the scores via replay).
//   replay   after each problem, and over the whole database at warm start, the exact policy
//            gradient of E_pi[r] restricted to a problem's measured candidates,
//            w += lr * sum_a pi_a * A_a * x_a,  A_a = (r_a - E_pi[r]) / spread,
//            on that problem and on `replay_groups` earlier ones drawn from memory. The
//            advantage is normalised by the spread of the group's rewards (at least
//            `min_spread`), so that a shape whose candidates all run close to each other still
//            teaches its ranking, but its noise is not blown up. Where included candidates
//            (--include: proposals from outside the policy) win or nearly win the group, or
//            the group's best is an included candidate's kernel at another raster or group,
//            plus included_pull * sum_a (q_a - pi_a) x_a, q uniform over those: the gradient of
//            log pi(them), which a low pi does not scale down.
// Proposals: the first for a problem is the argmax (the policy's prediction, what dispatch would
// run); later ones are sampled from the softmax over the open candidates, or, with probability
// `local_fraction`, from those that are neighbors() of the best measured so far.
// Exploration: a kernel instance added to the catalog has no measurements, so nothing has taught
// the scores what it is good for, and a policy warm-started on a large database would rarely
// sample it. A sampled (not local) proposal therefore adds
//   explore_bonus / sqrt(1 + n)
// to each candidate's score, n being how often its instance (the config without raster, group
// and split) has been measured on problems of the same size (decade of 2*M*N*K), counted over
// the warm start and every finished problem. The online gradient is taken over that same
// sampling distribution; replay, the argmax and predict() ignore the bonus.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tuner/policy/policy.hpp"

namespace hgemm::tuner {

struct SoftmaxPolicyOptions {
  double learning_rate = 0.02;  // online REINFORCE step
  double replay_rate = 0.2;     // replay step
  double baseline_rate = 0.2;
  double temperature = 1.0;     // sampling temperature (the argmax ignores it)
  // Initial weight on the analytic cost model's feature: before any measurement the policy
  // ranks candidates as the dispatch heuristic does; 0 starts from uniform.
  double cost_prior = 4.0;
  double local_fraction = 0.5;
  int replay_groups = 8;      // earlier problems replayed after each one
  int warm_start_epochs = 4;  // passes over the database before a run
  double weight_decay = 1e-4;  // toward the initial weights, so noise cannot erase the prior
  double min_spread = 0.1;     // floor of the replay's advantage normalisation
  // Replay's pull toward included candidates (Observation::included) that win or nearly win
  // their problem (their reward within `near_win` of the best), and toward the best where it is
  // an included candidate's kernel at another raster or group. 1 weighs log pi(those) over the
  // measured candidates as much as the expected reward's normalised gradient; 0: no pull.
  double included_pull = 1.0;
  double near_win = 0.02;  // "nearly wins": within this of the best reward (about 2% of speed)
  // Score added to a never-measured instance (0: no bonus). 4 lets a new instance be sampled on
  // most problems within a budget of 6 in the synthetic test, and leaves the ablation replay
  // (bench/results/ablation-h100-f32.md) where it was; 2 reached 60% of the problems.
  double explore_bonus = 4.0;
  uint64_t seed = 1;
};

class SoftmaxPolicy : public SearchPolicy {
 public:
  static constexpr int kDim = Features::kProblem * Features::kConfig + Features::kJoint +
                              Features::kProblem * Features::kJoint;

  explicit SoftmaxPolicy(SoftmaxPolicyOptions options = {});

  std::string_view name() const override { return "rl"; }
  size_t propose(const ProposalState& state) override;
  void observe(const ProposalState& state, size_t chosen, double reward) override;
  void learn(const ReplayGroup& group) override;
  void warm_start(const std::vector<ReplayGroup>& groups) override;
  std::optional<size_t> predict(const Problem& problem,
                                const std::vector<Candidate>& candidates) const override;
  std::string save() const override;
  // Restores save()'s text; nullopt if it is not a state of this version and size.
  static std::optional<SoftmaxPolicy> load(std::string_view text);

  double score(const Features& f) const;
  double baseline(const Features& f) const;
  // The policy's preferences over `candidates`: the softmax of their scores at temperature 1,
  // the distribution replay trains (sampling adds its temperature and the exploration bonus).
  std::vector<double> probabilities(const std::vector<Candidate>& candidates) const;
  const SoftmaxPolicyOptions& options() const { return options_; }

 private:
  void replay_step(const ReplayGroup& group);
  // `bonus` (empty, or one per entry of fs) is added to the scores.
  std::vector<double> softmax(const std::vector<const Features*>& fs, double temperature,
                              const std::vector<double>& bonus = {}) const;
  size_t sample(const std::vector<const Features*>& fs, const std::vector<double>& bonus = {});
  std::vector<double> exploration_bonus(const Problem& problem,
                                        const std::vector<Candidate>& candidates) const;
  void count_measured(const ReplayGroup& group);

  SoftmaxPolicyOptions options_;
  std::vector<double> w_;  // kDim score weights
  std::vector<double> u_;  // Features::kProblem baseline weights
  std::vector<double> prior_;  // the initial w_, which weight decay pulls back to
  std::vector<ReplayGroup> memory_;
  std::unordered_map<std::string, int> measured_count_;  // instance and size class -> records
  std::vector<size_t> offered_;  // the last local proposal's candidates (empty: all of them)
  bool greedy_ = false;          // the last proposal was the argmax
  Rng rng_;
};

}  // namespace hgemm::tuner
