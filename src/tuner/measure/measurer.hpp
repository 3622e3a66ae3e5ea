// What one candidate's evaluation yields, the interface that produces it, and the reward the
// policy learns from. The pipeline per candidate is verify -> time -> reward; a failure at any step
// is a disposition with its reason, never an exception that ends the run (only infrastructure
// failures throw: a lost CUDA context, a reference that cannot run).
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "hgemm/hgemm.hpp"

namespace hgemm::tuner {

enum class Disposition { kPassed, kIncorrect, kLaunchFailed, kNotSupported };
// The benchmark CSV's strings: "passed", "incorrect", "launch_failed", "not_supported".
std::string_view to_string(Disposition d);
std::optional<Disposition> parse_disposition(std::string_view text);
// Incorrect and launch failures put a config on the blocklist; not_supported is shape-specific.
inline bool is_failure(Disposition d) {
  return d == Disposition::kIncorrect || d == Disposition::kLaunchFailed;
}

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Measurement {
  Disposition disposition = Disposition::kPassed;
  double median_us = kNaN;  // per call; NaN unless passed and timed
  double p20_us = kNaN;
  double p80_us = kNaN;
  double reference_us = kNaN;  // cublaslt-best, same buffers and timing mode
  double error_ratio = kNaN;   // verifier's random-normal rel. Frobenius error / its tolerance
  int sm_clock_mhz = -1;       // -1: not available
  std::string detail;          // why it failed, or what the reference ran

  bool timed() const;  // passed with finite positive times for candidate and reference
  double speedup() const { return reference_us / median_us; }
};

// Evaluates one (problem, config). Implementations: GpuMeasurer (verifier + timer + cuBLASLt on
// the current device) and SyntheticMeasurer (a deterministic landscape for tests and dry runs).
class Measurer {
 public:
  virtual ~Measurer() = default;
  virtual Measurement measure(const Problem& problem, const KernelConfig& config) = 0;
};

// The reward, in the paper's form: speedup over the reference, minus alpha times the error term,
// minus beta times the size term. Why these values: docs/tuner.md ("Reward").
struct RewardWeights {
  // error term = error_ratio in [0, 1] for a passing kernel: among equally fast kernels, prefer
  // the more accurate; small, because every passing kernel is within tolerance.
  double alpha = 0.05;
  // size term = shared memory / the device's per-block limit: a tie-breaker for the leaner
  // kernel (more room for concurrent kernels), worth at most 2% of speed.
  double beta = 0.02;
  // Every failure (incorrect, launch failure, not supported) scores this: below any passing
  // candidate (whose reward is above -alpha - beta), and bounded so one failure does not swamp
  // the policy's gradient.
  double failure = -1.0;
};

// `smem_limit_bytes`: the device's per-block opt-in limit.
double reward(const Measurement& m, const KernelConfig& config, int smem_limit_bytes,
              const RewardWeights& weights = {});

// The same form for a source rewrite of a kernel family (`hgemm variants try`), over the shapes it
// was measured on: mean speedup over cublaslt-best, minus alpha times the error term (the mean of
// the shapes' error ratios, each clamped to [0, 1], as above), minus beta times the code-size term
// (lines changed against the family's file / 1000, at most 1). README, "Kernel source rewrites".
struct SourceRewardWeights {
  // As the tuner's: among equally fast rewrites, prefer the more accurate.
  double alpha = 0.05;
  // 100 changed lines cost 1% of speedup: a rewrite has to pay for the code a reviewer reads
  // and the catalog carries, while one that changes the whole file (1000+ lines, 10%) can still
  // win by being clearly faster.
  double beta = 0.1;
};
double source_reward(double mean_speedup, double error_term, int lines_changed,
                     const SourceRewardWeights& weights = {});
// The penalised reward, one definition for both: speedup - alpha * error - beta * size.
double paper_reward(double speedup, double error_term, double size_term, double alpha,
                    double beta);

}  // namespace hgemm::tuner
