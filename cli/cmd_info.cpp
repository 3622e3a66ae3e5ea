#include <cstdio>
#include <cstring>

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include "args.hpp"
#include "bench/environment.hpp"
#include "commands.hpp"
#include "core/device.hpp"
#include "dispatch/dispatch.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::cli {

int cmd_info(const Args& raw) {
  ParsedArgs args(raw, {}, {"help"});
  if (args.flag("help")) {
    std::puts("usage: hgemm info\n  prints the device, the build, the kernel catalog and the "
              "dispatch tables in use");
    return 0;
  }
  std::printf("build: hgemm %s, CUDA %d.%d (compiled), cuBLAS %d\n", bench::git_hash(),
              CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10, CUBLAS_VERSION);
  const DeviceInfo* device = nullptr;
  if (Status s = query_current_device(&device); s.ok()) {
    char dram[48] = "DRAM bandwidth not reported";
    if (device->dram_bytes_per_s > 0)
      std::snprintf(dram, sizeof dram, "DRAM %.2f TB/s nominal", device->dram_bytes_per_s / 1e12);
    std::printf("device %d: %s, sm_%d%d, %d SMs, L2 %d MB, smem/block %d B, %s, driver %d, "
                "runtime %d\n",
                device->ordinal, device->name.c_str(), device->cc_major, device->cc_minor,
                device->sm_count, device->l2_bytes >> 20, device->max_smem_per_block_optin, dram,
                device->driver_version, device->runtime_version);
  } else {
    std::printf("device: none (%s)\n", s.message.c_str());
  }
  auto configs = catalog();
  std::printf("catalog: %zu instances\n", configs.size());
  for (const auto& c : configs)
    std::printf("  %-56s threads %3d  smem %6d B\n", c.name().c_str(), c.num_threads(),
                c.smem_bytes());
  if (!device) {
    std::puts("dispatch tables: no device to load them for (hgemm explain --gpu h100 or h200 works "
              "without one)");
    return 0;
  }
  for (Accum acc : {Accum::kF32, Accum::kF16}) {
    const hgemmDispatchInfo_t info = dispatch::describe(*device, acc);
    const std::string a(to_string(acc));
    if (info.table_path[0])
      std::printf("dispatch table %s: %s\n  tuned on %s (%d SMs), %d entries, %s\n", a.c_str(),
                  info.table_path, info.tuned_gpu[0] ? info.tuned_gpu : "?",
                  info.tuned_sm_count, info.entries,
                  !info.matches_device ? "does not match this device: not used"
                  : std::strcmp(info.tuned_gpu, info.device_gpu) == 0
                      ? "matches this device: used"
                      : "another GPU of this architecture and SM count: used");
    else
      std::printf("dispatch table %s: none\n", a.c_str());
    if (!info.matches_device) std::printf("  %s; dispatch uses the cost heuristic\n", info.status);
    if (info.user_entries > 0)
      std::printf("  user table %s: %d entries, consulted first\n", info.user_table_path,
                  info.user_entries);
    else if (info.user_status[0])
      std::printf("  user table %s: not used: %s\n", info.user_table_path, info.user_status);
    else if (info.user_table_path[0])
      std::printf("  user table %s: absent\n", info.user_table_path);
  }
  return 0;
}

}  // namespace hgemm::cli
