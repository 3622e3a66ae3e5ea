// One sm90 warp-specialized instantiation as a catalog entry: the kernel of a variant (with its
// general flavour where launch/sm90_catalog.hpp asks for one), the geometry it launches with
// (sm90_geometry, the function the kernel's Traits read) and sm90_launch. Included by the catalog
// shards (launch/sm90_catalog_shard.cuh), by the translation units of promoted source rewrites
// (cmake/promoted_catalog.cmake) and by tests that instantiate variants outside the catalog.
#pragma once

// A promoted rewrite's translation unit defines HGEMM_SM90_KERNEL_HEADER as the rewrite's file:
// the whole replacement of the family header (same Params, Traits and kernel template), so it is
// included instead of it, never beside it.
#ifdef HGEMM_SM90_KERNEL_HEADER
#include HGEMM_SM90_KERNEL_HEADER
#else
#include "kernels/sm90/sm90_ws.cuh"
#endif
#include "launch/launch.hpp"
#include "launch/sm90_catalog.hpp"
#include "launch/sm90_launch.hpp"

namespace hgemm::sm90 {

template <Sm90Variant kVariant>
struct Instance {
  // The plain flavour, or with `general` the one that also runs batches and beta * C, and with
  // `a_mn_major` too its twin that reads a column-major A; a swap-AB row's plain flavour with
  // `a_mn_major` reads a column-major A as its B (CatalogRow::with_column_major_a); or with
  // `tail_split` the plain one that splits its last round.
  template <bool kGeneral, bool kAMNMajor = false, bool kTailSplit = false>
  static Sm90Kernel const& kernel() {
    constexpr Sm90Variant kFlavour = [] {
      Sm90Variant v = kVariant;
      v.general = kGeneral;
      v.a_mn_major = kAMNMajor;
      v.tail_split = kTailSplit;
      return v;
    }();
    using KernelTraits = Traits<kFlavour>;
    static const Sm90Kernel k{reinterpret_cast<const void*>(&sm90_ws_gemm_kernel<KernelTraits>),
                              KernelTraits::kGeometry, kGeneral, kAMNMajor};
    return k;
  }

  static void launch(KernelConfig const& config, GemmArgs const& args) {
    if constexpr (has_general_flavour(kVariant)) {
      if (args.a_col_major) return sm90_launch(config, kernel<true, true>(), args);
      if (sm90_needs_general(args)) return sm90_launch(config, kernel<true>(), args);
    }
    if constexpr (kVariant.swap_ab && has_column_major_flavour(kVariant))
      if (args.a_col_major) return sm90_launch(config, kernel<false, true>(), args);
    if constexpr (has_tail_split_flavour(kVariant))
      if (config.split_k == 0 && !sm90_needs_flavour(args))
        return sm90_launch(config, kernel<false, false, true>(), args);
    sm90_launch(config, kernel<false>(), args);
  }

  static KernelInstance instance() { return {to_config(kVariant), &launch}; }
};

}  // namespace hgemm::sm90
