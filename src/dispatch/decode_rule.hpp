// The decode rule: the kernel dispatch runs for a TN call of at most 16 tokens that no table lists
// where the narrow swap-AB tile that otherwise runs it (dispatch.cpp, small_m_swap_tile; always in
// NN) would not: up to 15 tokens where that tile's grid is too small to stream B at the DRAM rate,
// below 12 tokens where it splits K, and where no swap-AB tile can run the call. Such a call
// streams B once (N x K halves), so its time is how fast the grid's CTAs can pull B's bytes; the
// rule takes the decode kernel whose stream model predicts the least time.
//
// The stream model. A CTA owns block_n columns, so it reads block_n x K halves of B. The grid
// runs in waves of the CTAs resident at once (shared memory and threads decide how many fit on
// an SM); each CTA of a wave pays one loaded DRAM latency before its first bytes arrive, then
// streams at the least of four rates:
//   - its ring: the bytes of B it keeps in flight over the latency;
//   - DRAM: the device's share per active CTA (a fraction of the nominal peak);
//   - its SM's copies: what one SM moves, shared by the CTAs on it, A's rows counted (every CTA
//     re-reads A through L2: M / block_n of B's bytes, 8 rows when M <= 8, else 16);
//   - its warps: what one warp's loop of copies, shared-memory reads and mma consumes.
// The constants were fitted on an H200 (187 shapes, every TN decode row timed against the
// others; bench/results/2026-11-28-h200-decode-rule, whose fit.py replays the fit) and held on
// the H100's tuned decode records, which they were not fitted to: the pick is 0.984 (H200) and
// 0.988 (H100) of the fastest row's speed, where the earlier width rule (2 CTAs per SM, widened
// for A) was 0.916 and 0.938. What it gets wrong is mostly one wave against two of nearly equal
// work.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::dispatch {

struct DecodeChoice {
  size_t index = 0;    // into the candidates
  std::string reason;  // the model's arithmetic for this shape, one line
};

// What the stream model predicts for one decode config on `device`, and why.
struct DecodeEstimate {
  double seconds = 0;
  int64_t ctas = 0;
  int ctas_per_sm = 0;     // resident at once
  int64_t waves = 0;
  const char* bound = "";  // the rate that binds in the first wave (decode_rule.cpp names them)
};

DecodeEstimate estimate_decode(const Problem& problem, const KernelConfig& config,
                               const DeviceInfo& device);

// `candidates`: decode configs that can run `problem` (can_implement accepted them), in catalog
// order; of estimates within 0.1% of each other the first wins. nullopt when there are none.
std::optional<DecodeChoice> choose_decode(const Problem& problem,
                                          const std::vector<KernelConfig>& candidates,
                                          const DeviceInfo& device);

}  // namespace hgemm::dispatch
