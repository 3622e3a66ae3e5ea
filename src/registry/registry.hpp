// The catalog of compiled kernel instances and the dispatch that picks one for a problem.
#pragma once

#include <optional>
#include <vector>

#include "launch/launch.hpp"

namespace hgemm::registry {

// Every compiled instance, built once.
const std::vector<KernelInstance>& instances();

// The instance compiled for `config`. Raster direction, group size (sm90) and the split-K factor
// (sm80) are run-time arguments of the launchers, so configs differing only there share an
// instance. nullptr if not compiled.
const KernelInstance* find(const KernelConfig& config);

// Whether `config` (compiled or not) can run this call, with the reason when not.
Status can_implement(const Problem& problem, const KernelConfig& config, const GemmArgs& args,
                     const DeviceInfo& device);

// What dispatch runs: a compiled instance and the config it runs with, which may differ from the
// instance's own in the run-time arguments (split-K factor, raster direction, group size).
struct Choice {
  const KernelInstance* instance = nullptr;
  KernelConfig config;
};

// A source of preferred configs that sits above the registry (the tuning database). It is asked
// once per cached decision; its answer is used when the config is compiled and can_implement
// accepts the call, otherwise the cost heuristic decides. One exception: when the advice comes
// from a search that never tried split-K and the heuristic splits K, the heuristic wins (the
// split was measured to beat the unsplit kernels on those shapes; the advice never saw it).
struct Advice {
  KernelConfig config;
  bool searched_split_k = true;
};
using Advisor = std::optional<Advice> (*)(const Problem& problem, const DeviceInfo& device);
// Installed once, before the first select(); later calls replace it only for decisions not yet
// cached.
void set_advisor(Advisor advisor);

// The instance dispatch runs for this call. Always succeeds for a valid problem on a supported
// device: the sm80 safety net implements everything. Decisions are cached per shape, layout,
// accumulation, device and pointer-alignment class, so repeated calls neither allocate nor scan.
const Choice& select(const Problem& problem, const GemmArgs& args, const DeviceInfo& device);

// The heuristic's estimate of a config's run time (arbitrary units), exposed for tests and
// `hgemm info`. Lower is better. Includes the split-K reduction when config.split_k > 1.
double estimate_cost(const Problem& problem, const KernelConfig& config, const DeviceInfo& device);

}  // namespace hgemm::registry
