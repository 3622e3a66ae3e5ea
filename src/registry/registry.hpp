// The catalog of compiled kernel instances: what this build can run. Dispatch (src/dispatch)
// decides which of them runs a call.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/promoted.hpp"
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

// Why find() has nothing for `config`: the reason validate() refuses it (a promoted source this
// build lacks names it), else that it is not compiled.
std::string not_found(const KernelConfig& config);

// A program's own promoted rewrites, compiled into it by cmake/promoted_catalog.cmake (a test's
// fixture catalog): their names become valid sources (core/promoted.hpp) and their instances
// join the catalog after the build's. Only before the catalog is first used (instances()), which
// is when it is built; later it throws hgemm::Error, as does a name already known.
void add_promoted(std::span<const PromotedSource> rows, std::vector<KernelInstance> instances);

// Whether `config` (compiled or not) can run this call, with the reason when not.
Status can_implement(const Problem& problem, const KernelConfig& config, const GemmArgs& args,
                     const DeviceInfo& device);

}  // namespace hgemm::registry
