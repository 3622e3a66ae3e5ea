#include "dispatch/rules.hpp"

#include <climits>
#include <cmath>

#include "core/decode_variant.hpp"
#include "launch/launch.hpp"
#include "launch/workspace.hpp"

namespace hgemm::dispatch {

std::string check_device_smem(const KernelConfig& config, const DeviceInfo& device) {
  const int need = config.smem_bytes();
  const int have = device.max_smem_per_block_optin;
  if (have <= 0 || need <= have) return {};
  return "needs " + std::to_string(need) + " B of shared memory, " + device.name + " allows " +
         std::to_string(have);
}

std::string check_layout_accum(const Problem& problem, const KernelConfig& c) {
  return layout_accum_mismatch(problem, c);
}

std::string check_tma_row_stride(const Problem& problem) {
  for (auto [name, value] : {std::pair{"K", problem.k}, std::pair{"N", problem.n}})
    if (value % 8 != 0)
      return std::string(name) + "=" + std::to_string(value) + " is not a multiple of 8";
  return {};
}

std::string check_decode_shape(const Problem& problem, const KernelConfig& c) {
  if (problem.m > kDecodeMaxM)
    return "decode computes at most 16 rows; M=" + std::to_string(problem.m);
  if (problem.k % 8 != 0)
    return "decode copies rows in 16-byte pieces: K=" + std::to_string(problem.k) +
           " is not a multiple of 8";
  if (c.layout == Layout::kNN && problem.n % 8 != 0)
    return "decode NN copies B's rows in 16-byte pieces: N=" + std::to_string(problem.n) +
           " is not a multiple of 8";
  return {};
}

std::string check_tile_count(const Problem& problem, const KernelConfig& c) {
  const double span_m = double(c.block_m) * c.cluster_m, span_n = double(c.block_n) * c.cluster_n;
  const double tiles = std::ceil(double(problem.m) / span_m) *
                       std::ceil(double(problem.n) / span_n) * c.cluster_m * c.cluster_n;
  return tiles <= double(INT_MAX) ? std::string() : "more than 2^31-1 output tiles";
}

// Mirrors the launcher's plan_split (sm80_launch.cu): a split that the launcher would shrink
// is a duplicate of a smaller one, not a new candidate.
std::string check_split_k(const Problem* problem, const KernelConfig& c, int sm_count) {
  if (c.split_k == 1) return {};
  // The last round's split (sm90): the launcher decides which tiles it cuts, and runs whole tiles
  // where none are left over from full rounds or the workspace would not hold the pieces.
  if (c.split_k == 0) return {};
  const KernelConfig plain;
  if (c.raster != plain.raster || c.group_size != plain.group_size)
    return "a split runs with the default raster and group size (m, 8)";
  if (!problem) return {};
  const Problem& p = *problem;
  const double tiles = std::ceil(double(p.m) / c.block_m) * std::ceil(double(p.n) / c.block_n);
  if (tiles >= sm_count)
    return std::to_string(int64_t(tiles)) + " output tiles already fill the " +
           std::to_string(sm_count) + " SMs";
  if (p.k / c.split_k < kMinKPerSplit)
    return "K=" + std::to_string(p.k) + " split " + std::to_string(c.split_k) +
           " ways leaves under " + std::to_string(kMinKPerSplit) + " per split";
  const double bytes = double(splitk_partial_bytes(p.m, p.n)) * c.split_k;
  if (bytes > double(kMaxWorkspaceBytes))
    return "split-K partial sums need " + std::to_string(int64_t(bytes)) +
           " B, over the workspace limit of " + std::to_string(kMaxWorkspaceBytes);
  return {};
}

bool legal(const Problem& problem, const KernelConfig& config, const DeviceInfo& device,
           bool compiled) {
  if (!compiled || !config.validate().ok() || !problem.validate().ok()) return false;
  if (!check_device_smem(config, device).empty()) return false;
  if (!check_layout_accum(problem, config).empty()) return false;
  if (config.family == Family::kSm90Ws &&
      (!check_tma_row_stride(problem).empty() || !check_tile_count(problem, config).empty()))
    return false;
  if (config.family == Family::kDecode && !check_decode_shape(problem, config).empty())
    return false;
  return check_split_k(&problem, config, device.sm_count).empty();
}

}  // namespace hgemm::dispatch
