// Legality of a config for a problem on a device, as the tuned-neighbour rule sees it. The tuner's
// SearchSpace names these same checks as its rules (src/tuner/space/space.cpp) and calls them, so
// the tools and the runtime agree on which neighbours' winners can run a shape.
// Each check returns an empty string when it holds, else what exactly is violated.
#pragma once

#include <string>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::dispatch {

// The operand ring, C staging and barriers fit the device's per-block opt-in shared memory.
std::string check_device_smem(const KernelConfig& config, const DeviceInfo& device);
// An instance runs one layout and one accumulation.
std::string check_layout_accum(const Problem& problem, const KernelConfig& config);
// sm90: TMA global strides are multiples of 16 bytes (K % 8 == 0 and N % 8 == 0).
std::string check_tma_row_stride(const Problem& problem);
// decode: at most 16 rows, and 16-byte copies of A's and B's rows (K % 8 == 0; NN: N % 8 == 0).
std::string check_decode_shape(const Problem& problem, const KernelConfig& config);
// sm90: the persistent scheduler numbers output tiles (whole clusters) in int32.
std::string check_tile_count(const Problem& problem, const KernelConfig& config);
// A split only where the unsplit grid leaves SMs idle, each split keeps kMinKPerSplit of K, the
// partials fit the workspace, and the raster is the default. `problem` may be null
// (problem-independent part only).
std::string check_split_k(const Problem* problem, const KernelConfig& config, int sm_count);

// Every check above plus KernelConfig::validate(), Problem::validate() and `compiled`: whether
// the instance `config` runs on exists in this build (the catalog, or the JIT when it is on).
bool legal(const Problem& problem, const KernelConfig& config, const DeviceInfo& device,
           bool compiled);

}  // namespace hgemm::dispatch
