#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "kernels/common/compact_rows.cuh"
#include "launch/launch.hpp"

namespace hgemm {

void launch_compact_c_rows(const void* src, void* dst, int64_t ld_dst, int64_t rows, int64_t n,
                           cudaStream_t stream, bool programmatic) {
  if (rows <= 0 || n <= 0) return;
  constexpr int64_t kMaxGridY = 65535;
  cudaLaunchConfig_t launch{};
  launch.gridDim = dim3(unsigned((n + kernels::kCompactThreads - 1) / kernels::kCompactThreads),
                        unsigned(std::min(rows, kMaxGridY)));
  launch.blockDim = dim3(unsigned(kernels::kCompactThreads));
  launch.stream = stream;
  cudaLaunchAttribute attrs[1]{};
  launch.attrs = attrs;
  if (programmatic) attrs[launch.numAttrs++] = programmatic_launch_attribute();
  HGEMM_CUDA_CHECK(cudaLaunchKernelEx(&launch, kernels::compact_rows_kernel,
                                      static_cast<uint16_t const*>(src), padded_c_ld(n),
                                      static_cast<uint16_t*>(dst), ld_dst, rows, n));
  HGEMM_LAUNCH_CHECK();
}

}  // namespace hgemm
