// Internal interface of the sm90 launcher, shared by sm90_launch.cu (catalog, can_implement) and
// the sm90_catalog_*.cu translation units that instantiate the kernels.
#pragma once

#include <vector>

#include "hgemm/hgemm.hpp"
#include "kernels/common/swizzle.hpp"
#include "launch/launch.hpp"

namespace hgemm {

// Dynamic shared memory an sm90 instantiation launches with: the SharedStorage (operand ring,
// C staging, barriers, padded to the 1 KiB swizzle period) plus 1 KiB to align the dynamic base.
// The TMA-store staging is two column chunks (of up to 64 columns) per warpgroup, not the whole
// tile, so this is at most config.smem_bytes() + 1024. Each instantiation static_asserts the
// match with its real SharedStorage.
constexpr int sm90_dynamic_smem_bytes(KernelConfig const& c) {
  const int operands = c.num_stages * (c.block_m + c.block_n) * c.block_k * 2;
  const int chunk = kernels::swizzle_chunk_elems(c.block_n);
  const int buffers = c.block_n / chunk >= 2 ? 2 : 1;
  const int staging = c.epilogue == Epilogue::kTmaStore ? buffers * c.block_m * chunk * 2 : 0;
  return operands + staging + 1024 + 1024;
}

// The per-call checks the kernel cannot survive without (sizes, TMA alignment); shared by
// can_implement and the launch itself.
Status sm90_check_args(KernelConfig const& config, GemmArgs const& args);

// Upper bound on the persistent grid in CTAs (0: the device's SM count). A run-time knob for
// experiments such as 128 vs 132 CTAs; the effective grid is also capped by the cluster occupancy
// and the number of tiles, and is a multiple of the cluster size.
void sm90_set_max_ctas(int max_ctas);
int sm90_max_ctas();

// The catalog, one function per translation unit.
void sm90_add_catalog_128x256(std::vector<KernelInstance>& out);
void sm90_add_catalog_128x128(std::vector<KernelInstance>& out);
void sm90_add_catalog_256x128(std::vector<KernelInstance>& out);
void sm90_add_catalog_64xn(std::vector<KernelInstance>& out);
void sm90_add_catalog_256x256(std::vector<KernelInstance>& out);

}  // namespace hgemm
