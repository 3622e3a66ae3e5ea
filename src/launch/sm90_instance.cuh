// One sm90 warp-specialized instantiation as a catalog entry: the kernel of a variant, the
// geometry it launches with (sm90_geometry, the function the kernel's Traits read) and
// sm90_launch. Included by the catalog shards (launch/sm90_catalog_shard.cuh) and by tests that
// instantiate variants outside the catalog.
#pragma once

#include "kernels/sm90/sm90_ws.cuh"
#include "launch/launch.hpp"
#include "launch/sm90_launch.hpp"

namespace hgemm::sm90 {

template <Sm90Variant kVariant>
struct Instance {
  static Sm90Kernel const& kernel() {
    using KernelTraits = Traits<kVariant>;
    static const Sm90Kernel k{reinterpret_cast<const void*>(&sm90_ws_gemm_kernel<KernelTraits>),
                              KernelTraits::kGeometry};
    return k;
  }

  static void launch(KernelConfig const& config, GemmArgs const& args) {
    sm90_launch(config, kernel(), args);
  }

  static KernelInstance instance() { return {to_config(kVariant), &launch}; }
};

}  // namespace hgemm::sm90
