// The TMA / wgmma shared-memory swizzles. With an N-byte swizzle (N = 32, 64, 128) the 16-byte
// unit index inside each 128-byte line is XORed with bits of the line index, so that the 8 rows
// of an 8x8 b16 matrix (16 B each) fall in 8 different bank groups. Both the copy engine and the
// tensor cores apply it to absolute shared addresses, so every tile using it starts on a
// 1024-byte boundary (one full repeat of the 128-byte pattern) and offsets here are relative to
// such a boundary.
#pragma once

#include <cstdint>

#include "core/smem_budget.hpp"
#include "kernels/common/host_device.hpp"

namespace hgemm::kernels {

// The byte offset where logical byte `offset` of a swizzled tile lives.
// 128B: unit bits [4,7) ^= line bits [7,10); 64B: [4,6) ^= [7,9); 32B: bit 4 ^= bit 7.
template <int kSwizzleBytes>
HGEMM_HOST_DEVICE constexpr uint32_t swizzle_offset(uint32_t offset) {
  static_assert(kSwizzleBytes == 0 || kSwizzleBytes == 32 || kSwizzleBytes == 64 ||
                    kSwizzleBytes == 128,
                "swizzle span is 0, 32, 64 or 128 bytes");
  if constexpr (kSwizzleBytes == 0) {
    return offset;
  } else {
    constexpr uint32_t kMask = kSwizzleBytes / 16 - 1;
    return offset ^ (((offset >> 7) & kMask) << 4);
  }
}

using hgemm::swizzle_chunk_elems;  // core/smem_budget.hpp: the smem plan needs it too

}  // namespace hgemm::kernels
