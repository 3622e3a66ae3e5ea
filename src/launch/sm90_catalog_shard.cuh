// The kernels of one catalog shard. CMake generates HGEMM_SM90_CATALOG_SHARDS translation units,
// each of which includes this file and explicitly instantiates sm90_add_catalog_shard for its
// shard s: the kernels of catalog entries s, s + shards, s + 2 * shards, ... Striding rather
// than cutting the list into runs spreads the costly wide tiles over the shards, which then
// compile in similar times.
#pragma once

#include <cstddef>
#include <span>
#include <utility>

#include "launch/sm90_catalog.hpp"
#include "launch/sm90_instance.cuh"
#include "launch/sm90_launch.hpp"

#ifndef HGEMM_SM90_CATALOG_SHARDS
#error "HGEMM_SM90_CATALOG_SHARDS (CMakeLists.txt) names the number of catalog shards"
#endif

namespace hgemm {
namespace sm90 {

// if constexpr keeps the other shards' kernels from being instantiated here.
template <int kShard, std::size_t kIndex>
void add_if_in_shard(std::span<KernelInstance> slots) {
  if constexpr (kIndex % HGEMM_SM90_CATALOG_SHARDS == kShard)
    slots[kIndex] = Instance<kCatalog[kIndex]>::instance();
}

}  // namespace sm90

template <int kShard>
void sm90_add_catalog_shard(std::span<KernelInstance> slots) {
  [&]<std::size_t... kIndex>(std::index_sequence<kIndex...>) {
    (sm90::add_if_in_shard<kShard, kIndex>(slots), ...);
  }(std::make_index_sequence<sm90::kCatalog.size()>{});
}

}  // namespace hgemm
