#include "tuner/measure/synthetic_measurer.hpp"

#include <algorithm>
#include <cmath>

namespace hgemm::tuner {
namespace {

constexpr double kSmFlopsPerUs = 7.5e6;  // per SM at full tensor-core rate
constexpr double kBytesPerUs = 3.0e6;    // DRAM
constexpr double kLaunchUs = 4.0;

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

}  // namespace

double SyntheticMeasurer::hash_unit(const Problem& p, uint64_t salt) const {
  uint64_t h = mix(options_.seed, salt);
  for (uint64_t v : {uint64_t(p.m), uint64_t(p.n), uint64_t(p.k), uint64_t(p.layout),
                     uint64_t(p.accum)})
    h = mix(h, v);
  return double(h >> 11) * 0x1.0p-53;
}

double SyntheticMeasurer::time_us(const Problem& p, const KernelConfig& c) const {
  const double m = double(p.m), n = double(p.n), k = double(p.k);
  const double sms = options_.sm_count;
  const double tiles_m = std::ceil(m / c.block_m), tiles_n = std::ceil(n / c.block_n);
  // Partial clusters still occupy whole clusters' SMs.
  const double ctas = std::ceil(tiles_m / c.cluster_m) * c.cluster_m *
                      std::ceil(tiles_n / c.cluster_n) * c.cluster_n;
  const double waves = std::ceil(ctas / sms);
  const double k_padded = std::ceil(k / c.block_k) * c.block_k;

  // Tensor-core efficiency of one tile: operand reuse, warpgroups, the family's peak.
  const double reuse = double(c.block_m) * c.block_n / (c.block_m + c.block_n);
  double efficiency = c.family == Family::kSm90Ws ? 0.95 : 0.4;
  efficiency *= std::pow(std::min(1.0, reuse / 85.3), 0.6);
  // Effects no cost model of tiles and waves sees, for a policy to learn from the shapes.
  if (c.family == Family::kSm90Ws && c.num_consumer_wgs == 1) efficiency *= 0.9;
  if (p.accum == Accum::kF16 && c.num_consumer_wgs == 1) efficiency *= 1.12;  // fewer registers
  if (p.layout == Layout::kNN && c.block_m == 64) efficiency *= 0.88;  // B's transposed loads
  if (p.layout == Layout::kNN && c.block_k == 32) efficiency *= 0.93;
  if (k >= 4096 && c.num_stages >= 5) efficiency *= 1.06;                     // latency hidden
  if (n >= 4096 && c.epilogue == Epilogue::kTmaStore) efficiency *= 1.08;
  // Short K cannot fill a deep pipeline: the ring's fill is paid per tile.
  const double k_blocks = k_padded / c.block_k;
  const double fill = std::max(0.0, double(c.num_stages) - k_blocks) * c.block_k * 0.5 +
                      c.num_stages * c.block_k * 0.15;
  double compute = waves * 2.0 * c.block_m * c.block_n * (k_padded + fill) /
                   (kSmFlopsPerUs * efficiency);

  // L2 locality of the tile order matters once many tiles are in flight.
  if (ctas > sms) {
    const bool along_longer = (tiles_n > tiles_m) == (c.raster == Raster::kAlongN);
    if (c.family == Family::kSm90Ws && !along_longer) compute *= 1.07;
    const double best_group = ctas >= 4 * sms ? 8 : 4;
    if (c.family == Family::kSm90Ws)
      compute *= 1.0 + 0.025 * std::abs(std::log2(c.group_size) - std::log2(best_group));
  }
  // Multicast halves one operand's L2 traffic when the cluster is full; an idle half wastes.
  if (c.cluster_m * c.cluster_n > 1) {
    const bool wasted = (c.cluster_m > 1 && tiles_m < 2) || (c.cluster_n > 1 && tiles_n < 2);
    compute *= wasted ? 1.25 : (m >= 2048 && k >= 1024 ? 0.92 : 0.99);
  }
  if (c.epilogue == Epilogue::kTmaStore && k < 512) compute *= 0.95;  // store-bound tails

  // Memory-bound floor: A, B, C once, plus re-reads that a small tile cannot keep in L2.
  const double bytes = 2.0 * (m * k + k * n + m * n) * (1.0 + 64.0 / reuse * 0.1);
  const double time = std::max(compute, bytes / kBytesPerUs) + kLaunchUs;

  uint64_t salt = 0;
  for (char ch : c.name()) salt = mix(salt, uint64_t(static_cast<unsigned char>(ch)));
  return time * (1.0 + options_.noise * (2.0 * hash_unit(p, salt) - 1.0));
}

double SyntheticMeasurer::reference_us(const Problem& p) const {
  // A library near the best tile for the shape, within +-8%.
  KernelConfig large;
  large.family = Family::kSm90Ws;
  large.block_m = 128;
  large.block_n = 256;
  large.block_k = 64;
  large.num_stages = 4;
  large.num_consumer_wgs = 2;
  large.raster = p.n > p.m ? Raster::kAlongN : Raster::kAlongM;
  large.layout = p.layout;
  large.accum = p.accum;
  KernelConfig small = large;
  small.block_m = 64;
  small.block_n = 128;
  small.num_consumer_wgs = 1;
  SyntheticOptions quiet = options_;
  quiet.noise = 0;
  const SyntheticMeasurer exact(quiet);
  const double best = std::min(exact.time_us(p, large), exact.time_us(p, small));
  return best * (0.92 + 0.16 * hash_unit(p, 0x7265665f75730000ull));
}

Measurement SyntheticMeasurer::measure(const Problem& p, const KernelConfig& c) {
  ++calls_;
  Measurement m;
  m.reference_us = reference_us(p);
  if (options_.fault) {
    if (auto d = options_.fault(p, c)) {
      m.disposition = *d;
      m.detail = "synthetic fault injected for " + c.name() + " on " + p.name();
      return m;
    }
  }
  m.disposition = Disposition::kPassed;
  m.median_us = time_us(p, c);
  m.p20_us = m.median_us * 0.99;
  m.p80_us = m.median_us * 1.01;
  m.error_ratio = 0.05 + 0.25 * hash_unit(p, uint64_t(c.hash()));
  m.detail = "synthetic";
  return m;
}

}  // namespace hgemm::tuner
