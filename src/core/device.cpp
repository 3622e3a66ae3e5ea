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
  int memory_khz = 0;
  if (cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, ordinal) == cudaSuccess &&
      memory_khz > 0 && prop.memoryBusWidth > 0)
    d.dram_bytes_per_s = 2.0 * memory_khz * 1e3 * prop.memoryBusWidth / 8;
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  return cudaSuccess;
}

// Without a driver the runtime reports cudaErrorInsufficientDriver, whose text ("CUDA driver
// version is insufficient") sends the user to upgrade a driver that is not there. Every missing
// device reads alike, the CUDA error's name kept for diagnosis; only a driver that is present
// but older than the runtime is called that.
Status device_failure(cudaError_t e, const char* call) {
  const std::string cause = std::string(" (") + cudaGetErrorName(e) + " from " + call + ")";
  if (e == cudaErrorInsufficientDriver) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (driver == 0)
      return Status::failure(HGEMM_ERROR_NO_DEVICE,
                             "no CUDA device: no NVIDIA driver is loaded on this machine" + cause);
    return Status::failure(
        HGEMM_ERROR_NO_DEVICE,
        "no CUDA device usable: the NVIDIA driver supports CUDA " + std::to_string(driver / 1000) +
            "." + std::to_string(driver % 1000 / 10) + ", this build's runtime needs CUDA " +
            std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10) + cause);
  }
  if (e == cudaErrorNoDevice)
    return Status::failure(HGEMM_ERROR_NO_DEVICE,
                           "no CUDA device: none is visible (check CUDA_VISIBLE_DEVICES)" + cause);
  return Status::failure(HGEMM_ERROR_NO_DEVICE,
                         std::string("no CUDA device: ") + cudaGetErrorString(e) + cause);
}

}  // namespace

Status query_current_device(const DeviceInfo** out) {
  int ordinal = -1;
  cudaError_t e = cudaGetDevice(&ordinal);
  if (e != cudaSuccess || ordinal < 0) {
    cudaGetLastError();  // keep the runtime's sticky-free error state clean for the caller
    return device_failure(e == cudaSuccess ? cudaErrorNoDevice : e, "cudaGetDevice");
  }
  if (ordinal >= kMaxDevices)
    return Status::failure(HGEMM_ERROR_INTERNAL, "device ordinal above 63");
  Cache& c = cache();
  std::call_once(c.once[ordinal], [&] {
    auto info = std::make_unique<DeviceInfo>();
    c.error[ordinal] = read_device(ordinal, *info);
    if (c.error[ordinal] == cudaSuccess) c.info[ordinal] = std::move(info);
  });
  if (!c.info[ordinal]) {
    cudaGetLastError();
    return device_failure(c.error[ordinal], "cudaGetDeviceProperties");
  }
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
