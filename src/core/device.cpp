#include "core/device.hpp"

#include <array>
#include <memory>
#include <mutex>

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace hgemm {
namespace {

constexpr int kMaxDevices = 64;

struct Cache {
  std::array<std::once_flag, kMaxDevices> once;
  std::array<std::unique_ptr<DeviceInfo>, kMaxDevices> info;
  std::array<cudaError_t, kMaxDevices> error{};
};

Cache& cache() {
  static Cache c;
  return c;
}

cudaError_t read_device(int ordinal, DeviceInfo& d) {
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, ordinal); e != cudaSuccess) return e;
  d.ordinal = ordinal;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.l2_bytes = prop.l2CacheSize;
  d.max_smem_per_block_optin = int(prop.sharedMemPerBlockOptin);
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  return cudaSuccess;
}

}  // namespace

Status query_current_device(const DeviceInfo** out) {
  int ordinal = -1;
  cudaError_t e = cudaGetDevice(&ordinal);
  if (e != cudaSuccess || ordinal < 0) {
    cudaGetLastError();  // keep the runtime's sticky-free error state clean for the caller
    return Status::failure(HGEMM_ERROR_NO_DEVICE,
                           std::string("no CUDA device: ") + cudaGetErrorString(e));
  }
  if (ordinal >= kMaxDevices)
    return Status::failure(HGEMM_ERROR_INTERNAL, "device ordinal above 63");
  Cache& c = cache();
  std::call_once(c.once[ordinal], [&] {
    auto info = std::make_unique<DeviceInfo>();
    c.error[ordinal] = read_device(ordinal, *info);
    if (c.error[ordinal] == cudaSuccess) c.info[ordinal] = std::move(info);
  });
  if (!c.info[ordinal])
    return Status::failure(HGEMM_ERROR_NO_DEVICE, std::string("cannot query device: ") +
                                                      cudaGetErrorString(c.error[ordinal]));
  *out = c.info[ordinal].get();
  return Status::success();
}

const DeviceInfo& current_device() {
  const DeviceInfo* d = nullptr;
  Status s = query_current_device(&d);
  if (!s.ok()) HGEMM_THROW(s.code, s.message);
  return *d;
}

}  // namespace hgemm
