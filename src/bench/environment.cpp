#include "bench/environment.hpp"

#include <ctime>
#include <string>

#include <cublasLt.h>
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "core/device.hpp"
#include "baselines/cublas_error.hpp"
#include "core/error.hpp"
#include "launch/launch.hpp"
#include "hgemm_git_hash.h"  // generated at build time: cmake/git_hash.cmake

namespace hgemm::bench {
namespace {

// The few NVML entry points used, declared here so the build needs no NVML headers.
using NvmlReturn = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using NvmlDevice = void*;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM
using NvmlInitFn = NvmlReturn (*)();
using NvmlShutdownFn = NvmlReturn (*)();
using NvmlHandleByBusIdFn = NvmlReturn (*)(const char*, NvmlDevice*);
using NvmlClockInfoFn = NvmlReturn (*)(NvmlDevice, int, unsigned int*);
using NvmlDriverVersionFn = NvmlReturn (*)(char*, unsigned int);

std::string version_string(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string nvml_driver_version() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return "";
  std::string out;
  auto init = reinterpret_cast<NvmlInitFn>(dlsym(lib, "nvmlInit_v2"));
  auto shutdown = reinterpret_cast<NvmlShutdownFn>(dlsym(lib, "nvmlShutdown"));
  auto version = reinterpret_cast<NvmlDriverVersionFn>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  if (init && shutdown && version && init() == 0) {
    char buf[96] = {};
    if (version(buf, sizeof buf) == 0) out = buf;
    shutdown();
  }
  dlclose(lib);
  return out;
}

}  // namespace

const char* git_hash() { return HGEMM_GIT_HASH; }

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Environment collect_environment() {
  const DeviceInfo& d = current_device();
  int clock_khz = 0;
  HGEMM_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d.ordinal));
  int major = 0, minor = 0, patch = 0;
  HGEMM_CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &major));
  HGEMM_CUBLAS_CHECK(cublasGetProperty(MINOR_VERSION, &minor));
  HGEMM_CUBLAS_CHECK(cublasGetProperty(PATCH_LEVEL, &patch));
  std::string driver = version_string(d.driver_version);
  if (std::string v = nvml_driver_version(); !v.empty()) driver = v + " (CUDA " + driver + ")";
  ClockReader clocks;
  return {
      {"gpu", d.name},
      {"sm_count", std::to_string(d.sm_count)},
      {"cc", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
      {"l2_bytes", std::to_string(d.l2_bytes)},
      {"max_sm_clock_mhz", std::to_string(clock_khz / 1000)},
      {"nvml", clocks.available() ? "yes" : "no (clock columns are -1)"},
      {"driver", driver},
      {"cuda", version_string(d.runtime_version)},
      {"cublas", std::to_string(major) + "." + std::to_string(minor) + "." +
                     std::to_string(patch)},
      {"cublaslt", std::to_string(cublasLtGetVersion())},
      {"git", git_hash()},
      {"date", utc_now()},
      // Whether hgemm's kernels overlap the previous kernel's tail (offline and graph timings
      // depend on it; HGEMM_PDL=0 turns it off).
      {"pdl", programmatic_launch(d) ? "on" : "off"},
  };
}

ClockReader::ClockReader() {
  char bus_id[32] = {};
  int ordinal = 0;
  if (cudaGetDevice(&ordinal) != cudaSuccess ||
      cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) return;
  auto init = reinterpret_cast<NvmlInitFn>(dlsym(library_, "nvmlInit_v2"));
  auto by_bus = reinterpret_cast<NvmlHandleByBusIdFn>(
      dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
  get_clock_ = dlsym(library_, "nvmlDeviceGetClockInfo");
  NvmlDevice device = nullptr;
  if (!init || !by_bus || !get_clock_ || init() != 0) {
    dlclose(library_);
    library_ = nullptr;
    return;
  }
  if (by_bus(bus_id, &device) == 0) device_ = device;
}

ClockReader::~ClockReader() {
  if (!library_) return;
  if (auto shutdown = reinterpret_cast<NvmlShutdownFn>(dlsym(library_, "nvmlShutdown")))
    shutdown();
  dlclose(library_);
}

int ClockReader::sm_clock_mhz() const {
  if (!device_) return -1;
  unsigned int mhz = 0;
  auto get = reinterpret_cast<NvmlClockInfoFn>(get_clock_);
  return get(device_, kNvmlClockSm, &mhz) == 0 ? int(mhz) : -1;
}

}  // namespace hgemm::bench
