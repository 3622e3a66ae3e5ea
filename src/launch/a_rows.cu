#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "kernels/common/transpose_rows.cuh"
#include "launch/launch.hpp"

namespace hgemm {

void launch_a_to_rows(GemmArgs const& call, void* out, bool programmatic) {
  static_assert(kernels::kTransposeTile == kARowsTile, "the route sizes the copy's grid by it");
  const int64_t k_blocks = (call.k + kARowsTile - 1) / kARowsTile;
  const int64_t m_blocks = (call.m + kARowsTile - 1) / kARowsTile;
  // The routes that copy keep the grid in range (a_rows_grid_fits); a call past it is a bug there.
  if (!a_rows_grid_fits(call.m, call.k))
    HGEMM_THROW(HGEMM_ERROR_INTERNAL, "a copy of A into rows of " + std::to_string(call.m) +
                                          " x " + std::to_string(call.k) +
                                          " exceeds the copy kernel's grid");
  cudaLaunchConfig_t launch{};
  launch.gridDim = dim3(unsigned(k_blocks), unsigned(m_blocks));
  launch.blockDim = dim3(unsigned(kernels::kTransposeThreads));
  launch.stream = call.stream;
  cudaLaunchAttribute attrs[1]{};
  launch.attrs = attrs;
  if (programmatic) attrs[launch.numAttrs++] = programmatic_launch_attribute();
  HGEMM_CUDA_CHECK(cudaLaunchKernelEx(&launch, kernels::transpose_rows_kernel,
                                      static_cast<uint16_t const*>(call.a), call.row_stride_a(),
                                      static_cast<uint16_t*>(out), a_rows_ld(call.k), int(call.m),
                                      int(call.k)));
  HGEMM_LAUNCH_CHECK();
}

}  // namespace hgemm
