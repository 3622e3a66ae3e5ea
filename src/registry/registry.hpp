// The catalog of compiled kernel instances and the dispatch that picks one for a problem.
#pragma once

#include <vector>

#include "launch/launch.hpp"

namespace hgemm::registry {

// Every compiled instance, built once.
const std::vector<KernelInstance>& instances();

// The instance compiled for `config`. Raster direction and group size are run-time arguments of
// the sm90 launcher, so configs differing only there share an instance. nullptr if not compiled.
const KernelInstance* find(const KernelConfig& config);

// Whether `config` (compiled or not) can run this call, with the reason when not.
Status can_implement(const Problem& problem, const KernelConfig& config, const GemmArgs& args,
                     const DeviceInfo& device);

// The instance dispatch runs for this call. Always succeeds for a valid problem on a supported
// device: the sm80 safety net implements everything. Decisions are cached per shape, layout,
// accumulation, device and pointer-alignment class, so repeated calls neither allocate nor scan.
const KernelInstance& select(const Problem& problem, const GemmArgs& args,
                             const DeviceInfo& device);

// The heuristic's estimate of a config's run time (arbitrary units), exposed for tests and
// `hgemm info`. Lower is better.
double estimate_cost(const Problem& problem, const KernelConfig& config, const DeviceInfo& device);

}  // namespace hgemm::registry
