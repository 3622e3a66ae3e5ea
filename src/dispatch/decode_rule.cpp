#include "dispatch/decode_rule.hpp"

#include <algorithm>
#include <cstdint>

namespace hgemm::dispatch {

std::optional<DecodeChoice> choose_decode(const Problem& problem,
                                          const std::vector<KernelConfig>& candidates,
                                          int sm_count) {
  // The first candidate of each width, widths ascending.
  std::vector<size_t> by_width;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const bool seen = std::any_of(by_width.begin(), by_width.end(), [&](size_t j) {
      return candidates[j].block_n == candidates[i].block_n;
    });
    if (!seen) by_width.push_back(i);
  }
  if (by_width.empty()) return std::nullopt;
  std::sort(by_width.begin(), by_width.end(),
            [&](size_t a, size_t b) { return candidates[a].block_n < candidates[b].block_n; });
  const int64_t sms = std::max(1, sm_count);
  auto ctas = [&](size_t i) {
    return (problem.n + candidates[i].block_n - 1) / candidates[i].block_n;
  };

  size_t pick = 0;  // position in by_width
  bool filled = false;
  for (size_t w = by_width.size(); w-- > 0;)
    if (ctas(by_width[w]) >= 2 * sms) {
      pick = w;
      filled = true;
      break;
    }
  std::string reason =
      filled ? "the widest width with at least 2 CTAs per SM"
             : "no width gives 2 CTAs per SM, so the narrowest";
  const size_t filled_pick = pick;
  while (4 * problem.m > candidates[by_width[pick]].block_n && pick + 1 < by_width.size() &&
         ctas(by_width[pick + 1]) >= sms)
    ++pick;
  if (pick != filled_pick)
    reason += ", widened from " + std::to_string(candidates[by_width[filled_pick]].block_n) +
              " columns: there re-reading A cost over a quarter of B's bytes, and the wider grid "
              "still gives every SM a CTA";

  const KernelConfig& c = candidates[by_width[pick]];
  const int64_t reread_tenths = (1000 * problem.m + c.block_n / 2) / c.block_n;  // percent x 10
  return DecodeChoice{
      by_width[pick],
      "decode rule: M=" + std::to_string(problem.m) + " <= 16 streams B once; " +
          std::to_string(ctas(by_width[pick])) + " CTAs of " + std::to_string(c.block_n) +
          " columns on " + std::to_string(sms) + " SMs (" + reason +
          "); each CTA re-reads A, " + std::to_string(reread_tenths / 10) + "." +
          std::to_string(reread_tenths % 10) + "% of B's bytes"};
}

}  // namespace hgemm::dispatch
