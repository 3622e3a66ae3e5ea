// A compile-time check every expanded kernel catalog makes: no variant is listed twice (two
// translation units instantiating one kernel would define it twice, and the registry would hold
// a duplicate).
#pragma once

#include <array>
#include <cstddef>

namespace hgemm {

template <class Variant, std::size_t kSize>
constexpr bool all_distinct(std::array<Variant, kSize> const& catalog) {
  for (std::size_t i = 0; i < kSize; ++i)
    for (std::size_t j = i + 1; j < kSize; ++j)
      if (catalog[i] == catalog[j]) return false;
  return true;
}

}  // namespace hgemm
