#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "kernels/common/compact_rows.cuh"
#include "launch/launch.hpp"

namespace hgemm {

void launch_compact_c_rows(const void* src, void* dst, int64_t ld_dst, int64_t rows, int64_t n,
                           cudaStream_t stream, bool programmatic) {
  if (rows <= 0 || n <= 0) return;
  // Enough blocks of 16-byte pieces to cover a row (one more piece than n / 8 where C's row starts
  // off a 16-byte boundary), and rows for about 2048 blocks in all, twice what an H100's 132 SMs
  // hold at once; each block strides over the rows beyond its own.
  constexpr int64_t kResidentBlocks = 2048;
  constexpr int64_t kMaxGridY = 65535;
  const int64_t piece_blocks = (n / 8 + 2 + kernels::kCompactThreads - 1) / kernels::kCompactThreads;
  const int64_t row_blocks =
      std::min({rows, kMaxGridY, std::max<int64_t>(1, kResidentBlocks / piece_blocks)});
  cudaLaunchConfig_t launch{};
  launch.gridDim = dim3(unsigned(piece_blocks), unsigned(row_blocks));
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
