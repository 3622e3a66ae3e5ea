// Host side of the general kernel (kernels/sm80/sm80_general.cuh): hgemmGemm's safety net.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm {

// The kernel a descriptor runs on, e.g. "sm80_general_64x64x32_bf16_f32".
std::string general_kernel_name(GemmDesc const& desc);

// Runs the call of a validated descriptor in one launch. Throws hgemm::Error on a rejected
// launch; never syncs, never allocates.
void launch_general(GemmDesc const& desc, void const* a, void const* b, void* c,
                    DeviceInfo const& device, cudaStream_t stream);

}  // namespace hgemm
