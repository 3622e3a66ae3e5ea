// The decode rule: the kernel dispatch runs for a TN call with M <= 16 that no table lists (in NN
// the narrowest swap-AB tile runs instead: dispatch.cpp, narrowest_swap_tile). Such a call
// streams B once (N x K halves) and its time is B's bytes over DRAM bandwidth, so the choice is
// only how many columns each CTA takes:
//
//   1. grid fill: the widest width whose grid has at least 2 CTAs per SM (every SM has work,
//      and CTAs sharing an SM even out the tail); the narrowest when no width reaches it;
//   2. A's re-reads: every CTA reads all of A (M rows) through L2, M / block_n of B's bytes;
//      while that is over a quarter, take the next wider width if its grid still gives every SM
//      a CTA.
//
// Per width, the first candidate in catalog order (launch/sm80_decode_catalog.hpp) runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hgemm/hgemm.hpp"

namespace hgemm::dispatch {

struct DecodeChoice {
  size_t index = 0;    // into the candidates
  std::string reason;  // the rule's arithmetic for this shape, one line
};

// `candidates`: decode configs that can run `problem` (can_implement accepted them), in catalog
// order. nullopt when there are none.
std::optional<DecodeChoice> choose_decode(const Problem& problem,
                                          const std::vector<KernelConfig>& candidates,
                                          int sm_count);

}  // namespace hgemm::dispatch
