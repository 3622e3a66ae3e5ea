#include "launch/sm80_general.hpp"

#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "kernels/sm80/sm80_general.cuh"

namespace hgemm {
namespace {

namespace general = sm80::general;

// CTAs per SM the grid-stride loop is given: the kernel uses 10 KiB of shared memory and 128
// threads, so several fit on an SM; beyond a few waves more CTAs only add launch work.
constexpr int64_t kCtasPerSm = 16;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// (row stride, column stride) of a matrix stored in `order` with leading dimension `ld`.
struct Strides {
  int64_t row, col;
};
Strides strides_of(Order order, int64_t ld) {
  return order == Order::kRow ? Strides{ld, 1} : Strides{1, ld};
}

template <DType kDType, Accum kAccum>
void launch_kernel(general::Params const& params, unsigned blocks, cudaStream_t stream) {
  general::sm80_general_gemm_kernel<kDType, kAccum><<<blocks, general::kThreads, 0, stream>>>(params);
  HGEMM_LAUNCH_CHECK();
}

}  // namespace

std::string general_kernel_name(GemmDesc const& desc) {
  return "sm80_general_" + std::to_string(general::kBlockM) + "x" +
         std::to_string(general::kBlockN) + "x" + std::to_string(general::kBlockK) + "_" +
         std::string(to_string(desc.dtype)) + "_" + std::string(to_string(desc.accum));
}

void launch_general(GemmDesc const& desc, void const* a, void const* b, void* c,
                    DeviceInfo const& device, cudaStream_t stream) {
  const Strides sa = strides_of(desc.order_a, desc.lda_or_packed());
  const Strides sb = strides_of(desc.order_b, desc.ldb_or_packed());
  const Strides sc = strides_of(desc.order_c, desc.ldc_or_packed());
  const bool batched = desc.batch_count > 1;
  general::Params params{};
  params.a = static_cast<uint16_t const*>(a);
  params.b = static_cast<uint16_t const*>(b);
  params.c = static_cast<uint16_t*>(c);
  params.bias = static_cast<uint16_t const*>(desc.bias);
  params.m = desc.m;
  params.n = desc.n;
  params.k = desc.k;
  params.a_stride_m = sa.row;
  params.a_stride_k = sa.col;
  params.b_stride_k = sb.row;
  params.b_stride_n = sb.col;
  params.c_stride_m = sc.row;
  params.c_stride_n = sc.col;
  // One batch ignores the strides, whatever the caller left in them.
  params.a_batch_stride = batched ? desc.stride_a : 0;
  params.b_batch_stride = batched ? desc.stride_b : 0;
  params.c_batch_stride = batched ? desc.stride_c : 0;
  params.batch_count = desc.batch_count;
  params.num_m_blocks = ceil_div(desc.m, general::kBlockM);
  params.num_n_blocks = ceil_div(desc.n, general::kBlockN);
  params.alpha = desc.alpha;
  params.beta = desc.beta;
  params.activation = desc.activation;
  const int64_t num_tiles = params.num_m_blocks * params.num_n_blocks * desc.batch_count;
  const unsigned blocks =
      unsigned(std::min(num_tiles, std::max<int64_t>(device.sm_count, 1) * kCtasPerSm));
  if (desc.dtype == DType::kBF16)
    launch_kernel<DType::kBF16, Accum::kF32>(params, blocks, stream);
  else if (desc.accum == Accum::kF16)
    launch_kernel<DType::kF16, Accum::kF16>(params, blocks, stream);
  else
    launch_kernel<DType::kF16, Accum::kF32>(params, blocks, stream);
}

}  // namespace hgemm
