// Search policies against the deterministic synthetic landscape (no GPU): the learned policy
// beats random search, learns from replay alone, is deterministic given its seed, and failures
// are recorded and penalised without ending a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "tuner/measure/synthetic_measurer.hpp"
#include "tuner/policy/softmax_policy.hpp"
#include "tuner/tune.hpp"

namespace hgemm::tuner {
namespace {

KernelConfig sm90(int bm, int bn, int bk, int stages, int wgs, int cm, int cn, Epilogue e) {
  KernelConfig c;
  c.family = Family::kSm90Ws;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.num_stages = stages;
  c.num_consumer_wgs = wgs;
  c.cluster_m = cm;
  c.cluster_n = cn;
  c.epilogue = e;
  return c;
}

// A catalog twice today's size, as a JIT-backed space would be: 10 sm90 instances (x 10 run-time
// variants) and 2 sm80 per layout and accumulation.
std::vector<KernelConfig> wide_catalog() {
  std::vector<KernelConfig> base = {
      sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore),
      sm90(128, 256, 64, 4, 2, 1, 1, Epilogue::kDirect),
      sm90(128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore),
      sm90(128, 128, 64, 4, 2, 1, 1, Epilogue::kDirect),
      sm90(256, 128, 64, 4, 2, 2, 1, Epilogue::kDirect),
      sm90(64, 256, 64, 4, 1, 1, 1, Epilogue::kTmaStore),
      sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect),
      sm90(64, 128, 64, 6, 1, 1, 1, Epilogue::kDirect),
      sm90(128, 64, 64, 6, 2, 1, 1, Epilogue::kDirect),
      sm90(64, 64, 64, 8, 1, 1, 1, Epilogue::kDirect),
  };
  KernelConfig net;
  net.block_m = net.block_n = 128;
  base.push_back(net);
  net.block_m = net.block_n = 64;
  base.push_back(net);
  std::vector<KernelConfig> out;
  for (KernelConfig c : base)
    for (Layout l : {Layout::kNN, Layout::kTN})
      for (Accum a : {Accum::kF32, Accum::kF16}) {
        c.layout = l;
        c.accum = a;
        out.push_back(c);
      }
  return out;
}

// Shapes log-uniform over 64..16384 per dimension, some 1.5x off the powers of two.
std::vector<Problem> synthetic_shapes(uint64_t seed, int count) {
  Rng rng(seed);
  auto dim = [&] {
    int64_t v = int64_t(1) << (6 + rng.below(9));
    return rng.uniform() < 0.3 ? v * 3 / 2 : v;
  };
  std::vector<Problem> out;
  for (int i = 0; i < count; ++i) {
    Problem p{dim(), dim(), dim(), Layout::kTN, Accum::kF32};
    p.layout = rng.uniform() < 0.5 ? Layout::kNN : Layout::kTN;
    p.accum = rng.uniform() < 0.7 ? Accum::kF32 : Accum::kF16;
    out.push_back(p);
  }
  return out;
}

TuneOptions quiet_options(int budget) {
  TuneOptions o;
  o.budget = budget;
  o.clock = [] { return std::string("2026-01-01T00:00:00Z"); };
  return o;
}

// The best time a policy found per shape relative to the best in the whole space (1 = found
// the optimum), averaged over shapes. Shapes are tuned one after another, as `hgemm tune` does.
double mean_best_found(SearchPolicy& policy, const SearchSpace& space,
                       const std::vector<Problem>& shapes, int budget) {
  SyntheticMeasurer measurer;
  TuneOptions options = quiet_options(budget);
  options.neighbor_seeds = 0;  // the policy's own picks: seeding would lift random search too
  Tuner tuner(space, policy, measurer, options);
  double sum = 0;
  for (const Problem& p : shapes) {
    const ProblemResult r = tuner.tune(p, [](const Record&) {});
    EXPECT_EQ(r.measured_now, budget);
    double oracle = INFINITY;
    for (const KernelConfig& c : space.enumerate(p))
      oracle = std::min(oracle, measurer.time_us(p, c));
    EXPECT_TRUE(r.best.has_value());
    sum += oracle / r.best->measurement.median_us;
  }
  return sum / double(shapes.size());
}

TEST(TunerPolicy, LearnedPolicyBeatsRandomSearch) {
  const SearchSpace space(wide_catalog(), nominal_device());
  const auto shapes = synthetic_shapes(123, 30);
  constexpr int kBudget = 16;
  double random = 0, learned = 0, from_scratch = 0;
  constexpr int kSeeds = 3;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    RandomSearch rs(seed);
    random += mean_best_found(rs, space, shapes, kBudget) / kSeeds;
    SoftmaxPolicyOptions o;
    o.seed = seed;
    SoftmaxPolicy rl(o);
    learned += mean_best_found(rl, space, shapes, kBudget) / kSeeds;
    // Without the cost-model prior everything it knows it learned on the earlier shapes.
    o.cost_prior = 0;
    SoftmaxPolicy scratch(o);
    from_scratch += mean_best_found(scratch, space, shapes, kBudget) / kSeeds;
  }
  std::printf("mean best-found / optimum after %d evaluations over %zu shapes: random %.4f, "
              "rl %.4f, rl without prior %.4f\n",
              kBudget, shapes.size(), random, learned, from_scratch);
  EXPECT_GT(learned, random + 0.015);
  EXPECT_GT(from_scratch, random);
  EXPECT_GT(learned, 0.98);
}

TEST(TunerPolicy, ReplayAloneTeachesUnseenShapes) {
  // Full measurements of 60 shapes, replayed into a policy that starts uniform; its argmax on
  // 40 other shapes must approach the optimum: what it learned transfers across shapes.
  const SearchSpace space(wide_catalog(), nominal_device());
  SyntheticMeasurer measurer;
  std::vector<ReplayGroup> groups;
  for (const Problem& p : synthetic_shapes(1, 60)) {
    ReplayGroup g{p, {}};
    for (const KernelConfig& c : space.enumerate(p))
      g.observations.push_back({c, space.features(p, c),
                                reward(measurer.measure(p, c), c, 232448)});
    groups.push_back(std::move(g));
  }
  const auto unseen = synthetic_shapes(99, 40);
  auto argmax_quality = [&](const SoftmaxPolicy& policy) {
    double sum = 0;
    for (const Problem& p : unseen) {
      std::vector<Candidate> cs;
      double oracle = INFINITY;
      for (const KernelConfig& c : space.enumerate(p)) {
        cs.push_back({c, space.features(p, c)});
        oracle = std::min(oracle, measurer.time_us(p, c));
      }
      sum += oracle / measurer.time_us(p, cs[*policy.predict(p, cs)].config);
    }
    return sum / double(unseen.size());
  };
  SoftmaxPolicyOptions o;
  o.cost_prior = 0;
  o.warm_start_epochs = 8;
  SoftmaxPolicy policy(o);
  const double before = argmax_quality(policy);
  policy.warm_start(groups);
  const double after = argmax_quality(policy);
  std::printf("argmax on unseen shapes: %.4f untrained, %.4f after replay\n", before, after);
  EXPECT_GT(after, before + 0.1);
  EXPECT_GT(after, 0.9);
}

// The candidates of 4096^3 (TN, fp32) with the untrained policy's probabilities, and their
// indices from its favourite to its least favourite.
struct RankedCandidates {
  Problem problem{4096, 4096, 4096, Layout::kTN, Accum::kF32};
  std::vector<Candidate> candidates;
  std::vector<double> prior;
  std::vector<size_t> order;
};

RankedCandidates ranked_candidates() {
  RankedCandidates r;
  const SearchSpace space(wide_catalog(), nominal_device());
  for (const KernelConfig& c : space.enumerate(r.problem))
    r.candidates.push_back({c, space.features(r.problem, c)});
  r.prior = SoftmaxPolicy().probabilities(r.candidates);
  r.order.resize(r.candidates.size());
  for (size_t i = 0; i < r.order.size(); ++i) r.order[i] = i;
  std::stable_sort(r.order.begin(), r.order.end(),
                   [&](size_t a, size_t b) { return r.prior[a] > r.prior[b]; });
  return r;
}

// Candidate i measured at `reward`.
Observation measured(const std::vector<Candidate>& candidates, size_t i, double reward,
                     bool included = false) {
  return {candidates[i].config, candidates[i].features, reward, included};
}

// Replay's expected-reward gradient weights a candidate by the policy's own probability of it,
// so a winner it ranks last barely moves it. An included candidate (a proposal from outside the
// policy) that wins or nearly wins its problem is pulled toward at full weight; one that loses
// is not, and without the flag, or with the pull off, replay is what it was.
TEST(TunerPolicy, ReplayPullsTowardAnIncludedWinner) {
  const auto& [p, candidates, prior, order] = ranked_candidates();
  const size_t last = order.back();  // the untrained policy's least favourite
  auto probability_after = [&](double last_reward, bool included, double pull,
                               double top_reward = 1.0) {
    ReplayGroup group{p, {}};
    const double rewards[] = {top_reward, 0.98, 0.95, 0.9, 0.85};
    for (size_t r = 0; r < 5; ++r)
      group.observations.push_back(measured(candidates, order[r], rewards[r]));
    group.observations.push_back(measured(candidates, last, last_reward, included));
    SoftmaxPolicyOptions o;
    o.included_pull = pull;
    SoftmaxPolicy policy(o);
    policy.warm_start({group});
    return policy.probabilities(candidates)[last];
  };
  const double pull = SoftmaxPolicyOptions{}.included_pull;
  ASSERT_GT(pull, 0);
  const double plain = probability_after(1.3, false, pull);
  const double proposed = probability_after(1.3, true, pull);
  std::printf("p(last) %.3g untrained, %.3g after replay, %.3g as an included winner\n",
              prior[last], plain, proposed);
  EXPECT_GT(plain, prior[last]);     // the expected reward moves toward it ...
  EXPECT_GT(proposed, 3 * plain);    // ... the pull much further
  EXPECT_EQ(probability_after(1.3, true, 0.0), plain);
  EXPECT_GT(probability_after(1.29, true, pull, 1.3), 3 * probability_after(1.29, false, pull, 1.3))
      << "a near-winner (within near_win of the best) is pulled toward too";
  EXPECT_EQ(probability_after(0.5, true, pull), probability_after(0.5, false, pull))
      << "a beaten proposal gets no pull";
}

// A proposal beaten only by its own kernel at another raster or group confirms the kernel: the
// pull goes to the launch that won.
TEST(TunerPolicy, ReplayPullsTowardTheWinningLaunchOfAProposedKernel) {
  const auto& [p, candidates, prior, order] = ranked_candidates();
  // The least favourite config that has a sibling launch (same kernel and split, another raster
  // or group) among the candidates.
  size_t proposal = candidates.size(), sibling = candidates.size();
  for (auto it = order.rbegin(); it != order.rend() && proposal == candidates.size(); ++it)
    for (size_t s = 0; s < candidates.size(); ++s) {
      const KernelConfig &a = candidates[*it].config, &b = candidates[s].config;
      if (s != *it && a.instance() == b.instance() && a.split_k == b.split_k) {
        proposal = *it;
        sibling = s;
        break;
      }
    }
  ASSERT_LT(proposal, candidates.size());
  auto sibling_after = [&](bool included, double sibling_reward) {
    ReplayGroup group{p, {}};
    const double rewards[] = {1.0, 0.98, 0.95, 0.9, 0.85};
    for (size_t r = 0; r < 5; ++r)
      if (order[r] != proposal && order[r] != sibling)
        group.observations.push_back(measured(candidates, order[r], rewards[r]));
    group.observations.push_back(measured(candidates, proposal, 0.5, included));
    group.observations.push_back(measured(candidates, sibling, sibling_reward));
    SoftmaxPolicy policy;
    policy.warm_start({group});
    return policy.probabilities(candidates)[sibling];
  };
  const double plain = sibling_after(false, 1.3), confirmed = sibling_after(true, 1.3);
  std::printf("p(sibling) %.3g untrained, %.3g after replay, %.3g when its kernel was proposed\n",
              prior[sibling], plain, confirmed);
  EXPECT_GT(confirmed, 2 * plain);
  EXPECT_EQ(sibling_after(true, 0.9), sibling_after(false, 0.9))
      << "a sibling that did not win the group gets no pull";
}

// The landscape with one instance made much faster than anything else: a kernel added to the
// catalog after the history was measured, that turns out to be the best everywhere.
class NewInstanceMeasurer : public Measurer {
 public:
  explicit NewInstanceMeasurer(KernelConfig instance) : instance_(std::move(instance)) {}
  Measurement measure(const Problem& p, const KernelConfig& c) override {
    Measurement m = synthetic_.measure(p, c);
    if (is_new(c)) m.median_us *= 0.6;
    return m;
  }
  // In any layout and accumulation.
  bool is_new(const KernelConfig& c) const {
    KernelConfig x = c.instance();
    x.layout = instance_.layout;
    x.accum = instance_.accum;
    return x == instance_.instance();
  }

 private:
  KernelConfig instance_;
  SyntheticMeasurer synthetic_;
};

// Warm-started from a history that never measured the new instance, the policy's scores know
// nothing good about it; the exploration bonus is what gets it sampled early, on most problems,
// instead of after the history's favourites.
TEST(TunerPolicy, ExplorationBonusTriesANewInstance) {
  const KernelConfig added = sm90(128, 64, 64, 6, 2, 1, 1, Epilogue::kDirect);
  std::vector<KernelConfig> old_catalog;
  for (const KernelConfig& c : wide_catalog()) {
    KernelConfig x = c;
    x.layout = added.layout;
    x.accum = added.accum;
    if (!(x == added)) old_catalog.push_back(c);
  }
  const SearchSpace old_space(old_catalog, nominal_device());
  const SearchSpace space(wide_catalog(), nominal_device());
  NewInstanceMeasurer measurer(added);
  std::vector<ReplayGroup> history;
  for (const Problem& p : synthetic_shapes(5, 60)) {
    ReplayGroup g{p, {}};
    for (const KernelConfig& c : old_space.enumerate(p))
      g.observations.push_back(
          {c, old_space.features(p, c), reward(measurer.measure(p, c), c, 232448)});
    history.push_back(std::move(g));
  }
  const auto shapes = synthetic_shapes(77, 30);
  auto share_trying_it = [&](double bonus) {
    double share = 0;
    constexpr int kSeeds = 3;
    for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
      SoftmaxPolicyOptions o;
      o.seed = seed;
      o.explore_bonus = bonus;
      SoftmaxPolicy policy(o);
      policy.warm_start(history);
      Tuner tuner(space, policy, measurer, quiet_options(6));
      int tried = 0, legal = 0;
      for (const Problem& p : shapes) {
        bool any_legal = false;
        for (const KernelConfig& c : space.enumerate(p)) any_legal |= measurer.is_new(c);
        if (!any_legal) continue;
        ++legal;
        bool measured = false;
        tuner.tune(p, [&](const Record& r) {
          measured |= measurer.is_new(*KernelConfig::parse(r.config));
        });
        tried += measured;
      }
      share += double(tried) / std::max(legal, 1) / kSeeds;
    }
    return share;
  };
  const double without = share_trying_it(0.0);
  const double with = share_trying_it(SoftmaxPolicyOptions{}.explore_bonus);
  std::printf("share of problems that measured the new instance within 6: %.3f without the "
              "bonus, %.3f with the default one\n", without, with);
  EXPECT_GT(with, without + 0.2);
  EXPECT_GT(with, 0.8);
}

TEST(TunerPolicy, DeterministicGivenTheSeed) {
  const SearchSpace space(wide_catalog(), nominal_device());
  const auto shapes = synthetic_shapes(5, 6);
  auto run = [&](uint64_t seed) {
    std::vector<std::string> names;
    SoftmaxPolicyOptions o;
    o.seed = seed;
    SoftmaxPolicy policy(o);
    SyntheticMeasurer measurer;
    Tuner tuner(space, policy, measurer, quiet_options(8));
    for (const Problem& p : shapes)
      tuner.tune(p, [&](const Record& r) { names.push_back(r.config); });
    return std::make_pair(names, policy.save());
  };
  const auto a = run(11), b = run(11), c = run(12);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.first, c.first);
}

TEST(TunerPolicy, ExhaustiveAndRandomCoverTheSpace) {
  const SearchSpace space(wide_catalog(), nominal_device());
  const Problem p{1024, 2048, 512, Layout::kTN, Accum::kF32};
  const auto all = space.enumerate(p);
  SyntheticMeasurer measurer;

  ExhaustiveSearch exhaustive;
  Tuner t1(space, exhaustive, measurer, quiet_options(0));
  std::vector<std::string> order;
  const ProblemResult r = t1.tune(p, [&](const Record& rec) { order.push_back(rec.config); });
  ASSERT_EQ(order.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(order[i], all[i].name());
  double best = INFINITY;
  for (const KernelConfig& c : all) best = std::min(best, measurer.time_us(p, c));
  EXPECT_DOUBLE_EQ(r.best->measurement.median_us, best);

  RandomSearch random(3);
  Tuner t2(space, random, measurer, quiet_options(10));
  std::set<std::string> seen;
  t2.tune(p, [&](const Record& rec) { EXPECT_TRUE(seen.insert(rec.config).second); });
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_NE(make_policy("rl", 1), nullptr);
  EXPECT_NE(make_policy("random", 1), nullptr);
  EXPECT_NE(make_policy("exhaustive", 1), nullptr);
  EXPECT_EQ(make_policy("annealing", 1), nullptr);
}

TEST(TunerPolicy, FailuresAreRecordedPenalisedAndBlocklisted) {
  const SearchSpace space(wide_catalog(), nominal_device());
  SyntheticOptions so;
  // One config computes wrong results everywhere; another cannot run shapes with K < 256.
  so.fault = [](const Problem& p, const KernelConfig& c) -> std::optional<Disposition> {
    if (c.block_m == 64 && c.block_n == 128 && c.block_k == 32) return Disposition::kIncorrect;
    if (c.family == Family::kSm80Mma && p.k < 256) return Disposition::kNotSupported;
    return std::nullopt;
  };
  SyntheticMeasurer measurer(so);
  ExhaustiveSearch policy;
  Tuner tuner(space, policy, measurer, quiet_options(0));

  std::vector<Record> records;
  const Problem first{512, 512, 128, Layout::kTN, Accum::kF32};
  const ProblemResult r = tuner.tune(first, [&](const Record& rec) { records.push_back(rec); });
  EXPECT_EQ(size_t(r.measured_now), space.enumerate(first).size());  // the run went on
  int incorrect = 0, not_supported = 0;
  for (const Record& rec : records) {
    if (rec.measurement.disposition == Disposition::kIncorrect) {
      ++incorrect;
      EXPECT_FALSE(rec.measurement.detail.empty());
    }
    if (rec.measurement.disposition == Disposition::kNotSupported) ++not_supported;
    if (rec.measurement.disposition != Disposition::kPassed)
      EXPECT_EQ(rec.reward, RewardWeights{}.failure);
    else
      EXPECT_GT(rec.reward, 0.0);
  }
  EXPECT_EQ(incorrect, 10);  // the instance's 2 rasters x 5 groups
  EXPECT_EQ(not_supported, 2);
  EXPECT_EQ(r.failures_now, 12);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->measurement.disposition, Disposition::kPassed);

  // Incorrect configs are blocked from then on; not-supported ones are shape-specific.
  EXPECT_EQ(tuner.blocklist().size(), 10u);
  records.clear();
  const Problem second{2048, 2048, 2048, Layout::kTN, Accum::kF32};
  tuner.tune(second, [&](const Record& rec) { records.push_back(rec); });
  EXPECT_EQ(records.size(), space.enumerate(second).size() - 10);
  for (const Record& rec : records) EXPECT_EQ(rec.measurement.disposition, Disposition::kPassed);
}

TEST(TunerPolicy, RewardHasThePapersForm) {
  KernelConfig c = sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore);
  Measurement m;
  m.median_us = 80;
  m.reference_us = 100;
  m.error_ratio = 0.2;
  const RewardWeights w;
  const double size = double(c.smem_bytes()) / 232448;
  EXPECT_NEAR(reward(m, c, 232448, w), 1.25 - w.alpha * 0.2 - w.beta * size, 1e-12);
  // Equal speed: the more accurate kernel wins; the leaner one too.
  Measurement worse = m;
  worse.error_ratio = 0.9;
  EXPECT_GT(reward(m, c, 232448, w), reward(worse, c, 232448, w));
  KernelConfig lean = sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect);
  EXPECT_GT(reward(m, lean, 232448, w), reward(m, c, 232448, w));
  // A failure is below every passing candidate, however slow.
  Measurement failed = m;
  failed.disposition = Disposition::kIncorrect;
  EXPECT_EQ(reward(failed, c, 232448, w), w.failure);
  Measurement slow = m;
  slow.median_us = 1e9;
  slow.error_ratio = 1;
  EXPECT_GT(reward(slow, c, 232448, w), w.failure);
  // Untimed or missing reference: no speedup to claim.
  Measurement no_ref = m;
  no_ref.reference_us = kNaN;
  EXPECT_EQ(reward(no_ref, c, 232448, w), w.failure);
}

TEST(TunerPolicy, SavedStateRoundTrips) {
  const SearchSpace space(wide_catalog(), nominal_device());
  SoftmaxPolicy policy;
  SyntheticMeasurer measurer;
  Tuner tuner(space, policy, measurer, quiet_options(8));
  for (const Problem& p : synthetic_shapes(8, 5)) tuner.tune(p, [](const Record&) {});
  const std::string text = policy.save();
  const auto restored = SoftmaxPolicy::load(text);
  ASSERT_TRUE(restored);
  EXPECT_EQ(restored->save(), text);
  for (const Problem& p : synthetic_shapes(9, 10)) {
    std::vector<Candidate> cs;
    for (const KernelConfig& c : space.enumerate(p)) cs.push_back({c, space.features(p, c)});
    EXPECT_EQ(policy.predict(p, cs), restored->predict(p, cs));
  }
  EXPECT_FALSE(SoftmaxPolicy::load(""));
  EXPECT_FALSE(SoftmaxPolicy::load("softmax-policy-v1 3 9 1 2 3"));
  EXPECT_FALSE(SoftmaxPolicy::load(text.substr(0, text.size() / 2)));
}

}  // namespace
}  // namespace hgemm::tuner
