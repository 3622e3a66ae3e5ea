#include <cstdio>

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include "args.hpp"
#include "commands.hpp"
#include "core/device.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::cli {

int cmd_info(const Args& raw) {
  ParsedArgs args(raw, {}, {"help"});
  if (args.flag("help")) {
    std::puts("usage: hgemm info\n  prints the device, the build, the kernel catalog and the "
              "tuning database in use");
    return 0;
  }
  std::printf("build: hgemm %s, CUDA %d.%d (compiled), cuBLAS %d\n", HGEMM_GIT_HASH,
              CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10, CUBLAS_VERSION);
  const DeviceInfo* device = nullptr;
  if (Status s = query_current_device(&device); s.ok()) {
    std::printf("device %d: %s, sm_%d%d, %d SMs, L2 %d MB, smem/block %d B, driver %d, runtime %d\n",
                device->ordinal, device->name.c_str(), device->cc_major, device->cc_minor,
                device->sm_count, device->l2_bytes >> 20, device->max_smem_per_block_optin,
                device->driver_version, device->runtime_version);
  } else {
    std::printf("device: none (%s)\n", s.message.c_str());
  }
  auto configs = catalog();
  std::printf("catalog: %zu instances\n", configs.size());
  for (const auto& c : configs)
    std::printf("  %-56s threads %3d  smem %6d B\n", c.name().c_str(), c.num_threads(),
                c.smem_bytes());
  std::puts("database: none; dispatch uses the built-in cost heuristic (src/registry/registry.cpp)");
  return 0;
}

}  // namespace hgemm::cli
