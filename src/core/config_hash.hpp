// A hasher for KernelConfig keys in unordered containers (KernelConfig::hash, equality by ==).
#pragma once

#include <cstddef>

#include "hgemm/hgemm.hpp"

namespace hgemm {

struct KernelConfigHash {
  size_t operator()(const KernelConfig& config) const { return size_t(config.hash()); }
};

}  // namespace hgemm
