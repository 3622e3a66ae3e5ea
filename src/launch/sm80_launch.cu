// Host side of the sm80 mma.sync family: the compiled catalog (launch/sm80_catalog.hpp),
// can_implement, and the launch that picks the aligned (16-byte cp.async) or the generic
// (element-wise) kernel for each call.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/error.hpp"
#include "kernels/sm80/sm80_mma.cuh"
#include "launch/launch.hpp"
#include "launch/sm80_catalog.hpp"
#include "launch/splitk.hpp"

namespace hgemm {
namespace {

// Dynamic shared memory up to this size needs no opt-in.
constexpr int kDefaultSmemLimit = 48 * 1024;
constexpr int64_t kMaxGridX = INT_MAX;
constexpr int64_t kMaxGridY = 65535;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool is_aligned(void const* p, uintptr_t bytes) {
  return (reinterpret_cast<uintptr_t>(p) & (bytes - 1)) == 0;
}

// The 16-byte cp.async path: every chunk of 8 elements starts on a 16-byte boundary, which needs
// aligned bases and row strides that are multiples of 8 elements. A's stride is K and C's is N, so
// B's (N for NN, K for TN) is covered by the same two conditions.
bool use_aligned_path(GemmArgs const& args) {
  return is_aligned(args.a, 16) && is_aligned(args.b, 16) && is_aligned(args.c, 16) &&
         args.k % 8 == 0 && args.n % 8 == 0;
}

// Everything the kernel itself cannot survive, checked on every path into it.
Status check_args(GemmArgs const& args, int block_n) {
  if (args.m < 1 || args.n < 1 || args.k < 1)
    return Status::failure(HGEMM_ERROR_INVALID_SIZE,
                           "sm80: M, N and K must be positive, got M=" + std::to_string(args.m) +
                               " N=" + std::to_string(args.n) + " K=" + std::to_string(args.k));
  if (args.m > INT_MAX || args.n > INT_MAX || args.k > INT_MAX)
    return Status::failure(HGEMM_ERROR_SIZE_OVERFLOW,
                           "sm80: the kernel indexes rows and columns with 32-bit integers");
  for (auto [p, what] : {std::pair{args.a, "A"}, std::pair{args.b, "B"},
                         std::pair<void const*, char const*>{args.c, "C"}})
    if (!is_aligned(p, 2))
      return Status::failure(HGEMM_ERROR_INVALID_POINTER,
                             std::string("sm80: ") + what +
                                 " is not 2-byte aligned (fp16 elements)");
  // M-blocks beyond gridDim.y fold into a loop inside the kernel; N-blocks have no such loop.
  if (ceil_div(args.n, block_n) > kMaxGridX)
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED, "sm80: N-blocks exceed the grid's x limit");
  return Status::success();
}

template <Sm80Variant kVariant>
struct Sm80Instance {
  static constexpr Sm80Geometry kGeometry = sm80_geometry(kVariant);
  static constexpr int kThreads = kGeometry.num_threads;
  static constexpr int kSmemBytes = kGeometry.smem_bytes;

  template <bool kAligned>
  static void launch_kernel(sm80::Params const& params, dim3 grid, cudaStream_t stream) {
    auto kernel = sm80::sm80_mma_gemm_kernel<sm80::Traits<kVariant>, kAligned>;
    if constexpr (kSmemBytes > kDefaultSmemLimit) {
      // The opt-in is per function and device. Setting it twice is harmless, so racing threads
      // need no lock, only a record of the devices already done.
      static std::atomic<uint64_t> configured_devices{0};
      int device = 0;
      HGEMM_CUDA_CHECK(cudaGetDevice(&device));
      const uint64_t bit = device < 64 ? uint64_t(1) << device : 0;
      if (bit == 0 || !(configured_devices.load(std::memory_order_acquire) & bit)) {
        HGEMM_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
        configured_devices.fetch_or(bit, std::memory_order_release);
      }
    }
    kernel<<<grid, kThreads, kSmemBytes, stream>>>(params);
    HGEMM_LAUNCH_CHECK();
  }

  static void launch(KernelConfig const& config, GemmArgs const& args) {
    if (Status s = check_args(args, kVariant.block_n); !s.ok()) HGEMM_THROW(s.code, s.message);
    const int64_t num_m_blocks = ceil_div(args.m, kVariant.block_m);
    const int64_t num_n_blocks = ceil_div(args.n, kVariant.block_n);
    sm80::Params params{static_cast<__half const*>(args.a),
                        static_cast<__half const*>(args.b),
                        static_cast<__half*>(args.c),
                        int(args.m),
                        int(args.n),
                        int(args.k),
                        int(num_m_blocks),
                        int(num_n_blocks),
                        0,
                        nullptr,
                        0};
    const SplitPlan plan = plan_split(config.split_k, args, kVariant.block_k);
    const SplitScratch scratch(plan, args);
    params.k_blocks_per_split =
        scratch.splits() > 1 ? plan.k_blocks_per_split : plan.total_k_blocks;
    params.partial = scratch.partial();
    params.partial_ld = plan.partial_ld;
    const unsigned splits = unsigned(scratch.splits());
    const dim3 grid(unsigned(num_n_blocks), unsigned(std::min(num_m_blocks, kMaxGridY)), splits);
    if (use_aligned_path(args))
      launch_kernel<true>(params, grid, args.stream);
    else
      launch_kernel<false>(params, grid, args.stream);
    if (splits > 1)
      launch_splitk_reduce(params.partial, params.partial_ld, int(splits), params.c, params.n,
                           params.m, params.n, DType::kF16, EpilogueArgs{}, args.stream);
  }

  static KernelInstance instance() { return {to_config(kVariant), &launch}; }
};

}  // namespace

std::vector<KernelInstance> sm80_instances() {
  return [&]<std::size_t... kIndex>(std::index_sequence<kIndex...>) {
    return std::vector<KernelInstance>{Sm80Instance<sm80::kCatalog[kIndex]>::instance()...};
  }(std::make_index_sequence<sm80::kCatalog.size()>{});
}

Status sm80_can_implement(Problem const& problem, KernelConfig const& config,
                          GemmArgs const& args, DeviceInfo const& device) {
  if (config.family != Family::kSm80Mma)
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED, config.name() + " is not an sm80 config");
  if (std::string why = layout_accum_mismatch(problem, config); !why.empty())
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED, why);
  if (device.cc() < 80)
    return Status::failure(HGEMM_ERROR_ARCH_UNSUPPORTED,
                           config.name() + " needs compute capability 8.0, " + device.name +
                               " has " + std::to_string(device.cc_major) + "." +
                               std::to_string(device.cc_minor));
  if (Status s = check_args(args, config.block_n); !s.ok()) return s;
  if (!args.packed(problem.layout))
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                           config.name() + " takes packed matrices only (no leading dimensions)");
  if (!args.epilogue.plain())
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                           config.name() + " applies no epilogue (alpha, beta, bias, " +
                               "activation): the sm90 and decode families fuse it, the safety " +
                               "net applies it");
  if (args.a_col_major)
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                           config.name() + " reads A row-major; a column-major A runs on the " +
                               "sm90 family");
  if (args.batch_count != 1)
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                           config.name() + " runs one matrix; " +
                               std::to_string(args.batch_count) +
                               " batches run on the sm90 family");
  if (config.smem_bytes() > device.max_smem_per_block_optin)
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                           config.name() + " needs " + std::to_string(config.smem_bytes()) +
                               " B of shared memory, " + device.name + " allows " +
                               std::to_string(device.max_smem_per_block_optin));
  return Status::success();
}

}  // namespace hgemm
