// A deterministic stand-in for the GPU: a made-up but structured run-time landscape over
// (problem, config), for tuner tests and for dry runs of `hgemm tune --measurer synthetic` on a
// machine without a GPU. Its structure resembles the real thing (wave quantization, tile
// padding, operand reuse, a memory-bound floor, clusters that help or waste, raster and group
// preferences that depend on the grid's aspect, pipeline fill) plus a fixed pseudo-random factor
// per (problem, config), so a policy has something real to learn and something it cannot.
// The numbers mean nothing about any GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "tuner/measure/measurer.hpp"

namespace hgemm::tuner {

struct SyntheticOptions {
  uint64_t seed = 7;
  int sm_count = 132;
  double noise = 0.03;  // +-: the per-(problem, config) factor no feature explains
  // Injected failures: returns a disposition (and the measurer a matching reason) for pairs that
  // should fail. Empty: nothing fails.
  std::function<std::optional<Disposition>(const Problem&, const KernelConfig&)> fault;
};

class SyntheticMeasurer : public Measurer {
 public:
  explicit SyntheticMeasurer(SyntheticOptions options = {}) : options_(std::move(options)) {}
  Measurement measure(const Problem& problem, const KernelConfig& config) override;

  // The landscape itself, noise included (it is fixed per pair): what measure() reports.
  double time_us(const Problem& problem, const KernelConfig& config) const;
  double reference_us(const Problem& problem) const;
  long calls() const { return calls_; }

 private:
  double hash_unit(const Problem& problem, uint64_t salt) const;  // [0, 1), fixed per input

  SyntheticOptions options_;
  long calls_ = 0;
};

}  // namespace hgemm::tuner
