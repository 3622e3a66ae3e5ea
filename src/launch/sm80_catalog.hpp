// The sm80 catalog: every sm80 kernel compiled into the library, in one list, in the order
// catalog() lists them. Kept small on purpose: each entry compiles two kernels (the aligned and
// the generic path) for two architectures. docs/design.md says how to add one.
#pragma once

#include <array>
#include <cstddef>

#include "core/kernel_variant.hpp"

namespace hgemm::sm80 {

inline constexpr std::array kCatalog = {
    Sm80Variant{.block_m = 128, .block_n = 128, .block_k = 32, .num_stages = 3, .warps_m = 2,
                .warps_n = 2, .layout = Layout::kNN, .accum = Accum::kF32},
    Sm80Variant{.block_m = 128, .block_n = 128, .block_k = 32, .num_stages = 3, .warps_m = 2,
                .warps_n = 2, .layout = Layout::kNN, .accum = Accum::kF16},
    Sm80Variant{.block_m = 128, .block_n = 128, .block_k = 32, .num_stages = 3, .warps_m = 2,
                .warps_n = 2, .layout = Layout::kTN, .accum = Accum::kF32},
    Sm80Variant{.block_m = 128, .block_n = 128, .block_k = 32, .num_stages = 3, .warps_m = 2,
                .warps_n = 2, .layout = Layout::kTN, .accum = Accum::kF16},
    Sm80Variant{.block_m = 64, .block_n = 64, .block_k = 32, .num_stages = 3, .warps_m = 2,
                .warps_n = 2, .layout = Layout::kNN, .accum = Accum::kF32},
    Sm80Variant{.block_m = 64, .block_n = 64, .block_k = 32, .num_stages = 3, .warps_m = 2,
                .warps_n = 2, .layout = Layout::kNN, .accum = Accum::kF16},
    Sm80Variant{.block_m = 64, .block_n = 64, .block_k = 32, .num_stages = 3, .warps_m = 2,
                .warps_n = 2, .layout = Layout::kTN, .accum = Accum::kF32},
    Sm80Variant{.block_m = 64, .block_n = 64, .block_k = 32, .num_stages = 3, .warps_m = 2,
                .warps_n = 2, .layout = Layout::kTN, .accum = Accum::kF16},
};

}  // namespace hgemm::sm80
