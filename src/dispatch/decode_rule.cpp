#include "dispatch/decode_rule.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "core/decode_variant.hpp"

namespace hgemm::dispatch {
namespace {

// The stream model's constants (decode_rule.hpp). The optimum they were fitted at is flat: 0.7 to
// 0.9 of the peak, 1 to 1.5 us, 60 to 80 GB/s and 6 to 8 GB/s each move the pick by under 0.5%.
constexpr double kDramFraction = 0.8;
constexpr double kLatencyS = 1.2e-6;
constexpr double kSmBytesPerS = 70e9;
constexpr double kWarpBytesPerS = 7e9;
// A device that does not report its memory (a described GPU without it): an H100 SXM's peak.
constexpr double kDefaultDramBytesPerS = 3.35e12;
// Shared memory the runtime reserves per CTA, on top of what the kernel asks for; an SM holds the
// per-block opt-in maximum plus one such reservation (228 KB on sm_90, 164 KB on sm_80).
constexpr int kReservedSmemPerCta = 1024;
constexpr int kMaxThreadsPerSm = 2048;

}  // namespace

DecodeEstimate estimate_decode(const Problem& problem, const KernelConfig& config,
                               const DeviceInfo& device) {
  const DecodeGeometry g = decode_geometry(decode_variant(config));
  const int sms = std::max(1, device.sm_count);
  const int smem_per_sm = device.max_smem_per_block_optin + kReservedSmemPerCta;
  DecodeEstimate e;
  e.ctas = (problem.n + config.block_n - 1) / config.block_n;
  e.ctas_per_sm = std::max(1, std::min(smem_per_sm / (g.smem_bytes + kReservedSmemPerCta),
                                       kMaxThreadsPerSm / g.num_threads));
  const int64_t slots = int64_t(e.ctas_per_sm) * sms;
  e.waves = (e.ctas + slots - 1) / slots;

  const double dram = kDramFraction * (device.dram_bytes_per_s > 0 ? device.dram_bytes_per_s
                                                                   : kDefaultDramBytesPerS);
  const double b_bytes = double(config.block_n) * double(problem.k) * 2;
  const double in_flight = double(g.b_stage_bytes) * config.num_stages;
  const double a_rows = problem.m <= 8 ? 8 : kDecodeMaxM;  // rows of A the kernel copies
  const double a_per_b = a_rows / config.block_n;
  // One wave of `active` CTAs: each streams at the least of the four rates.
  auto wave = [&](int64_t active, const char** bound) {
    const int64_t on_sm = (active + sms - 1) / sms;
    const double rates[] = {in_flight / kLatencyS, dram / double(active),
                            kSmBytesPerS / (double(on_sm) * (1 + a_per_b)),
                            g.num_threads / 32 * kWarpBytesPerS};
    const char* names[] = {"the ring's bytes in flight", "DRAM", "the SM's copies",
                           "the warps' loop"};
    const size_t least = size_t(std::min_element(std::begin(rates), std::end(rates)) - rates);
    if (bound) *bound = names[least];
    return kLatencyS + b_bytes / rates[least];
  };
  const int64_t full = e.ctas / slots, tail = e.ctas % slots;
  e.seconds = (full > 0 ? double(full) * wave(slots, &e.bound) : 0) +
              (tail > 0 ? wave(tail, full > 0 ? nullptr : &e.bound) : 0);
  return e;
}

std::optional<DecodeChoice> choose_decode(const Problem& problem,
                                          const std::vector<KernelConfig>& candidates,
                                          const DeviceInfo& device) {
  if (candidates.empty()) return std::nullopt;
  std::vector<DecodeEstimate> est;
  for (const KernelConfig& c : candidates) est.push_back(estimate_decode(problem, c, device));
  // Estimates within a thousandth are equal (rows bound by DRAM alike differ in rounding only),
  // and of equal ones the first in catalog order wins.
  auto faster = [](double a, double b) { return a < b * (1 - 1e-3); };
  size_t pick = 0, second = candidates.size();
  for (size_t i = 1; i < candidates.size(); ++i) {
    if (faster(est[i].seconds, est[pick].seconds)) {
      second = pick;
      pick = i;
    } else if (second == candidates.size() || faster(est[i].seconds, est[second].seconds)) {
      second = i;
    }
  }
  auto us = [](double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
    return std::string(buf);
  };
  const DecodeEstimate& e = est[pick];
  std::string reason = "decode rule: M=" + std::to_string(problem.m) +
                       " <= 16 streams B once; the stream model's least time: " +
                       std::to_string(e.ctas) + " CTAs of " +
                       std::to_string(candidates[pick].block_n) + " columns, " +
                       std::to_string(e.ctas_per_sm) + " per SM on " +
                       std::to_string(device.sm_count) + " SMs, " + std::to_string(e.waves) +
                       (e.waves == 1 ? " wave" : " waves") + ", bound by " + e.bound +
                       ", " + us(e.seconds);
  if (second < candidates.size())
    reason += " (next: " + candidates[second].name() + ", " + us(est[second].seconds) + ")";
  return DecodeChoice{pick, reason};
}

}  // namespace hgemm::dispatch
