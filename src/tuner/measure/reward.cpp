#include <algorithm>
#include <cmath>

#include "bench/results_csv.hpp"
#include "tuner/measure/measurer.hpp"

namespace hgemm::tuner {

std::string_view to_string(Disposition d) {
  switch (d) {
    case Disposition::kPassed: return bench::kPassed;
    case Disposition::kIncorrect: return bench::kIncorrect;
    case Disposition::kLaunchFailed: return bench::kLaunchFailed;
    case Disposition::kNotSupported: return bench::kNotSupported;
  }
  return "?";
}

std::optional<Disposition> parse_disposition(std::string_view text) {
  for (Disposition d : {Disposition::kPassed, Disposition::kIncorrect, Disposition::kLaunchFailed,
                        Disposition::kNotSupported})
    if (text == to_string(d)) return d;
  return std::nullopt;
}

bool Measurement::timed() const {
  return disposition == Disposition::kPassed && std::isfinite(median_us) && median_us > 0 &&
         std::isfinite(reference_us) && reference_us > 0;
}

double reward(const Measurement& m, const KernelConfig& config, int smem_limit_bytes,
              const RewardWeights& weights) {
  if (!m.timed()) return weights.failure;
  const double error = std::isfinite(m.error_ratio) ? std::clamp(m.error_ratio, 0.0, 1.0) : 1.0;
  const double size = smem_limit_bytes > 0
                          ? std::min(1.0, double(config.smem_bytes()) / smem_limit_bytes)
                          : 0.0;
  return paper_reward(m.speedup(), error, size, weights.alpha, weights.beta);
}

double paper_reward(double speedup, double error_term, double size_term, double alpha,
                    double beta) {
  return speedup - alpha * error_term - beta * size_term;
}

double source_reward(double mean_speedup, double error_term, int lines_changed,
                     const SourceRewardWeights& weights) {
  const double error = std::isfinite(error_term) ? std::clamp(error_term, 0.0, 1.0) : 1.0;
  const double size = std::clamp(lines_changed / 1000.0, 0.0, 1.0);
  return paper_reward(mean_speedup, error, size, weights.alpha, weights.beta);
}

}  // namespace hgemm::tuner
