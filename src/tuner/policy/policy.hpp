// Search policies: what to measure next for one problem. A policy sees the problem, the legal
// candidates not yet measured (with their features from the search space), what this problem's
// measurements returned so far, and the space itself (for neighbors()). Learning policies also
// get every reward and, problem by problem, the finished measurements (their replay data).
//
//   rl          SoftmaxPolicy (softmax_policy.hpp): contextual softmax over the candidates,
//               trained by policy gradient across all problems
//   random      uniform without replacement: the ablation baseline
//   exhaustive  every candidate in the space's order: ground truth and the fallback
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hgemm/hgemm.hpp"
#include "tuner/space/space.hpp"

namespace hgemm::tuner {

struct Candidate {
  KernelConfig config;
  Features features;
};

struct Observation {
  KernelConfig config;
  Features features;
  double reward = 0;
  bool included = false;  // Record::included
};

// One problem's measurements: the unit of replay.
struct ReplayGroup {
  Problem problem;
  std::vector<Observation> observations;
};

struct ProposalState {
  const Problem& problem;
  const SearchSpace& space;
  const std::vector<Candidate>& candidates;   // legal, unmeasured, not blocked; never empty
  const std::vector<Observation>& measured;   // this problem's measurements so far
};

class SearchPolicy {
 public:
  virtual ~SearchPolicy() = default;
  virtual std::string_view name() const = 0;
  // Index into state.candidates of the next config to measure.
  virtual size_t propose(const ProposalState& state) = 0;
  // The reward of state.candidates[chosen], measured after propose() returned `chosen`.
  virtual void observe(const ProposalState& /*state*/, size_t /*chosen*/, double /*reward*/) {}
  // A finished problem (during a run), or a past one (warm start from the database).
  virtual void learn(const ReplayGroup& /*group*/) {}
  // Several past problems at once, before a run.
  virtual void warm_start(const std::vector<ReplayGroup>& groups) {
    for (const ReplayGroup& g : groups) learn(g);
  }
  // The candidate the policy would run without measuring anything; nullopt: no opinion.
  virtual std::optional<size_t> predict(const Problem& /*problem*/,
                                        const std::vector<Candidate>& /*candidates*/) const {
    return std::nullopt;
  }
  // The learned state as one line of text ("" when there is nothing to keep).
  virtual std::string save() const { return {}; }
};

// "rl", "random" or "exhaustive"; nullptr for another name. Deterministic given the seed.
std::unique_ptr<SearchPolicy> make_policy(std::string_view name, uint64_t seed);

// A small deterministic generator (splitmix64), identical on every platform, unlike the
// standard distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  size_t below(size_t n) { return n ? size_t(next() % n) : 0; }

 private:
  uint64_t state_;
};

class RandomSearch : public SearchPolicy {
 public:
  explicit RandomSearch(uint64_t seed) : rng_(seed) {}
  std::string_view name() const override { return "random"; }
  size_t propose(const ProposalState& state) override {
    return rng_.below(state.candidates.size());
  }

 private:
  Rng rng_;
};

class ExhaustiveSearch : public SearchPolicy {
 public:
  std::string_view name() const override { return "exhaustive"; }
  size_t propose(const ProposalState&) override { return 0; }
};

}  // namespace hgemm::tuner
