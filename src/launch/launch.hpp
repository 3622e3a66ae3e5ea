// The interface between the registry and each kernel family's host launcher.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm {

// One GEMM call: C(m x n) = A(m x k) * B, row-major, B as the problem's layout says.
struct GemmArgs {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  cudaStream_t stream = nullptr;
};

// Launches one compiled instantiation. Throws hgemm::Error on a rejected launch. Never syncs.
using LaunchFn = void (*)(const KernelConfig& config, const GemmArgs& args);

struct KernelInstance {
  KernelConfig config;
  LaunchFn launch = nullptr;
};

// Each family exposes its compiled instances and a can_implement that names its reason.
std::vector<KernelInstance> sm80_instances();
Status sm80_can_implement(const Problem& problem, const KernelConfig& config, const GemmArgs& args,
                          const DeviceInfo& device);

std::vector<KernelInstance> sm90_instances();
Status sm90_can_implement(const Problem& problem, const KernelConfig& config, const GemmArgs& args,
                          const DeviceInfo& device);

}  // namespace hgemm
