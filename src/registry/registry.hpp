// The catalog of compiled kernel instances: what this build can run. Dispatch (src/dispatch)
// decides which of them runs a call.
#pragma once

#include <vector>

#include "launch/launch.hpp"

namespace hgemm::registry {

// Every compiled instance, built once.
const std::vector<KernelInstance>& instances();

// The instance compiled for `config`. Raster direction, group size (sm90) and the split-K factor
// (sm80) are run-time arguments of the launchers, so configs differing only there share an
// instance. nullptr if not compiled.
const KernelInstance* find(const KernelConfig& config);

// Whether `config`'s instance is compiled into this build: the catalog alone, never the JIT
// (which find() invokes when it is on).
bool compiled_ahead(const KernelConfig& config);

// Whether `config` (compiled or not) can run this call, with the reason when not.
Status can_implement(const Problem& problem, const KernelConfig& config, const GemmArgs& args,
                     const DeviceInfo& device);

}  // namespace hgemm::registry
