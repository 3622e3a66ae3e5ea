// The tests' fixture catalog of promoted rewrites (tests/data/promoted/promoted.list, compiled by
// cmake/promoted_catalog.cmake into the object library hgemm_promoted_fixture): its one row is
// the family header under another name, so its kernel computes what the catalog's does.
#pragma once

#include <algorithm>
#include <span>
#include <tuple>
#include <vector>

#include "core/device.hpp"
#include "core/promoted.hpp"
#include "dispatch/table.hpp"
#include "launch/launch.hpp"
#include "registry/registry.hpp"

namespace hgemm {

std::span<const PromotedSource> fixture_promoted_sources();
std::vector<KernelInstance> fixture_promoted_instances();

namespace fixture {

inline constexpr const char* kSource = "fixture_family_copy";
// The row's config (in the family header's catalog too) and one of the same source that the
// catalog lacks (five stages without a cluster), which only the JIT builds.
inline constexpr const char* kConfig = "sm90_ws_128x128x64_s6_c1x1_w2_m8_st_sk1_f32_tn";
inline constexpr const char* kPromoted =
    "sm90_ws_128x128x64_s6_c1x1_w2_m8_st_sk1_f32_tn_src-fixture_family_copy";
inline constexpr const char* kOutsideCatalog =
    "sm90_ws_128x128x64_s5_c1x1_w2_m8_st_sk1_f32_tn_src-fixture_family_copy";

// Before anything looks a kernel up (registry::add_promoted).
inline void register_catalog() {
  registry::add_promoted(fixture_promoted_sources(), fixture_promoted_instances());
}

// A dispatch table for `device` naming `config` at each of `problems` (of its accumulation).
inline dispatch::Table table_naming(const KernelConfig& config,
                                    const std::vector<Problem>& problems,
                                    const DeviceInfo& device) {
  dispatch::Table t;
  t.gpu = device.name;
  t.sm_count = device.sm_count;
  t.accum = config.accum;
  t.source = "promoted-fixture";
  t.measured_split_k = true;
  for (const Problem& p : problems) {
    dispatch::TableEntry e;
    e.m = p.m;
    e.n = p.n;
    e.k = p.k;
    e.layout = p.layout;
    e.config = config;
    e.searched_split_k = true;
    t.entries.push_back(e);
  }
  auto key = [](const dispatch::TableEntry& e) { return std::tie(e.m, e.n, e.k, e.layout); };
  std::sort(t.entries.begin(), t.entries.end(),
            [&](const auto& a, const auto& b) { return key(a) < key(b); });
  // One entry per shape, as a table holds them; suites may repeat a shape.
  t.entries.erase(std::unique(t.entries.begin(), t.entries.end(),
                              [&](const auto& a, const auto& b) { return key(a) == key(b); }),
                  t.entries.end());
  return t;
}

}  // namespace fixture
}  // namespace hgemm
