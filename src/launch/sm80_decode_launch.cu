// Host side of the decode family (M <= 16, kernels/sm80/sm80_decode.cuh): the compiled catalog
// (launch/sm80_decode_catalog.hpp), can_implement with its reasons, and the launch: one CTA per
// block_n columns, launched with programmatic dependent launch on sm_90 like the sm90 family.
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "core/decode_variant.hpp"
#include "core/error.hpp"
#include "kernels/sm80/sm80_decode.cuh"
#include "launch/launch.hpp"
#include "launch/sm80_decode_catalog.hpp"
#include "launch/epilogue_params.cuh"

namespace hgemm {
namespace {

// Dynamic shared memory up to this size needs no opt-in.
constexpr int kDefaultSmemLimit = 48 * 1024;

bool aligned16(void const* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

Status refuse(KernelConfig const& config, hgemmStatus_t code, std::string const& why) {
  return Status::failure(code, config.name() + ": " + why);
}

// Everything the kernel itself cannot survive, checked on every path into it.
Status decode_check_args(KernelConfig const& config, GemmArgs const& args) {
  if (args.m < 1 || args.n < 1 || args.k < 1)
    return refuse(config, HGEMM_ERROR_INVALID_SIZE,
                  "M, N and K must be positive, got M=" + std::to_string(args.m) +
                      " N=" + std::to_string(args.n) + " K=" + std::to_string(args.k));
  if (args.m > kDecodeMaxM)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "decode computes at most 16 rows (one m16n8k16 tile), M=" +
                      std::to_string(args.m));
  if (args.n > INT_MAX || args.k > INT_MAX)
    return refuse(config, HGEMM_ERROR_SIZE_OVERFLOW,
                  "the kernel indexes columns and K with 32-bit integers");
  // Every copy moves 16 bytes: A's rows (K halves apart) and B's rows (K apart in TN, N in NN)
  // must start on 16-byte boundaries.
  if (args.k % 8 != 0)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "16-byte copies of A and B rows need K % 8 == 0; K=" + std::to_string(args.k));
  if (config.layout == Layout::kNN && args.n % 8 != 0)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "16-byte copies of NN's B rows need N % 8 == 0; N=" + std::to_string(args.n));
  if (args.batch_count != 1)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "runs one matrix; " + std::to_string(args.batch_count) +
                      " batches run on the sm90 family");
  // A column-major A is copied a column at a time, 16 bytes per 8 of its rows.
  if (args.row_stride_a() % 8 != 0 || args.ldb % 8 != 0)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  std::string("16-byte copies of A's ") + (args.a_col_major ? "columns" : "rows") +
                      " and B's rows need lda and ldb multiples of 8; lda=" +
                      std::to_string(args.row_stride_a()) + " ldb=" + std::to_string(args.ldb));
  if (!aligned16(args.a) || !aligned16(args.b))
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  std::string("16-byte copies need 16-byte aligned A and B; not aligned:") +
                      (aligned16(args.a) ? "" : " A") + (aligned16(args.b) ? "" : " B"));
  if ((reinterpret_cast<uintptr_t>(args.c) & 1) != 0)
    return refuse(config, HGEMM_ERROR_INVALID_POINTER, "C is not 2-byte aligned (fp16 elements)");
  return Status::success();
}

template <DecodeVariant kVariant>
struct DecodeInstance {
  static constexpr DecodeGeometry kGeometry = decode_geometry(kVariant);

  static void launch(KernelConfig const& config, GemmArgs const& args) {
    if (Status s = decode_check_args(config, args); !s.ok()) HGEMM_THROW(s.code, s.message);
    auto kernel = sm80::sm80_decode_kernel<sm80::DecodeTraits<kVariant>>;
    DeviceInfo const& device = current_device();
    if constexpr (kGeometry.smem_bytes > kDefaultSmemLimit) {
      // The opt-in is per function and device. Setting it twice is harmless, so racing threads
      // need no lock, only a record of the devices already done.
      static std::atomic<uint64_t> configured_devices{0};
      const uint64_t bit = device.ordinal >= 0 && device.ordinal < 64
                               ? uint64_t(1) << device.ordinal
                               : 0;
      if (bit == 0 || !(configured_devices.load(std::memory_order_acquire) & bit)) {
        HGEMM_CUDA_CHECK(cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kGeometry.smem_bytes));
        configured_devices.fetch_or(bit, std::memory_order_release);
      }
    }
    const sm80::DecodeParams params{static_cast<uint16_t const*>(args.a),
                                    static_cast<uint16_t const*>(args.b),
                                    static_cast<uint16_t*>(args.c),
                                    int(args.m),
                                    int(args.n),
                                    int(args.k),
                                    epilogue_params(args.epilogue),
                                    args.row_stride_a(),
                                    args.row_stride_b(kVariant.layout),
                                    args.row_stride_c(),
                                    args.a_col_major};
    cudaLaunchConfig_t launch{};
    launch.gridDim = dim3(unsigned((args.n + kVariant.block_n - 1) / kVariant.block_n));
    launch.blockDim = dim3(unsigned(kGeometry.num_threads));
    launch.dynamicSmemBytes = size_t(kGeometry.smem_bytes);
    launch.stream = args.stream;
    cudaLaunchAttribute attrs[1]{};
    launch.attrs = attrs;
    if (programmatic_launch(device)) attrs[launch.numAttrs++] = programmatic_launch_attribute();
    HGEMM_CUDA_CHECK(cudaLaunchKernelEx(&launch, kernel, params));
    HGEMM_LAUNCH_CHECK();
  }

  static KernelInstance instance() { return {to_config(kVariant), &launch}; }
};

}  // namespace

std::vector<KernelInstance> decode_instances() {
  return [&]<std::size_t... kIndex>(std::index_sequence<kIndex...>) {
    return std::vector<KernelInstance>{DecodeInstance<decode::kCatalog[kIndex]>::instance()...};
  }(std::make_index_sequence<decode::kCatalog.size()>{});
}

Status decode_can_implement(Problem const& problem, KernelConfig const& config,
                            GemmArgs const& args, DeviceInfo const& device) {
  if (config.family != Family::kDecode)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED, "not a decode config");
  if (std::string why = layout_accum_mismatch(problem, config); !why.empty())
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED, why);
  if (device.cc() < 80)
    return refuse(config, HGEMM_ERROR_ARCH_UNSUPPORTED,
                  "needs compute capability 8.0, " + device.name + " has " +
                      std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor));
  if (Status s = config.validate(); !s.ok()) return s;
  if (Status s = decode_check_args(config, args); !s.ok()) return s;
  if (config.smem_bytes() > device.max_smem_per_block_optin)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "needs " + std::to_string(config.smem_bytes()) + " B of shared memory, " +
                      device.name + " allows " + std::to_string(device.max_smem_per_block_optin));
  return Status::success();
}

}  // namespace hgemm
