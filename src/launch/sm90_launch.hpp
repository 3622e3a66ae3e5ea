// Internal interface of the sm90 launcher, shared by sm90_launch.cu (catalog, can_implement) and
// the sm90_catalog_*.cu translation units that instantiate the kernels.
#pragma once

#include <vector>

#include "hgemm/hgemm.hpp"
#include "core/smem_budget.hpp"
#include "launch/launch.hpp"

namespace hgemm {

// Dynamic shared memory an sm90 instantiation launches with (core/smem_budget.hpp); equal to
// config.smem_bytes(), but usable in the instantiations' static_asserts.
constexpr int sm90_dynamic_smem_bytes(KernelConfig const& c) {
  return sm90_smem_plan(c.block_m, c.block_n, c.block_k, c.num_stages,
                        c.epilogue == Epilogue::kTmaStore, c.schedule == Schedule::kPingPong)
      .dynamic_bytes;
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
void sm90_add_catalog_pingpong(std::vector<KernelInstance>& out);

}  // namespace hgemm
