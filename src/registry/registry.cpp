// The catalog: every compiled instance, lookup by config, and can_implement over the families.
#include "registry/registry.hpp"

#include "core/error.hpp"
#include "launch/sm90_jit.hpp"

namespace hgemm::registry {
const std::vector<KernelInstance>& instances() {
  static const std::vector<KernelInstance> all = [] {
    std::vector<KernelInstance> v = sm90_instances();
    auto sm80 = sm80_instances();
    v.insert(v.end(), sm80.begin(), sm80.end());
    auto decode = decode_instances();
    v.insert(v.end(), decode.begin(), decode.end());
    return v;
  }();
  return all;
}

namespace {

// The catalog's instance for `config`, nullptr where it has none.
const KernelInstance* find_compiled(const KernelConfig& config) {
  const KernelConfig wanted = config.instance();
  for (const auto& inst : instances())
    if (inst.config.instance() == wanted) return &inst;
  return nullptr;
}

}  // namespace

const KernelInstance* find(const KernelConfig& config) {
  if (const KernelInstance* inst = find_compiled(config)) return inst;
  if (config.family == Family::kSm90Ws && jit::enabled()) return jit::instance(config);
  return nullptr;
}

bool compiled_ahead(const KernelConfig& config) { return find_compiled(config) != nullptr; }

Status can_implement(const Problem& problem, const KernelConfig& config, const GemmArgs& args,
                     const DeviceInfo& device) {
  if (Status s = problem.validate(); !s.ok()) return s;
  if (Status s = config.validate(); !s.ok()) return s;
  // Each family's can_implement checks the layout and accumulation first.
  if (config.family == Family::kSm90Ws) return sm90_can_implement(problem, config, args, device);
  if (config.family == Family::kDecode) return decode_can_implement(problem, config, args, device);
  return sm80_can_implement(problem, config, args, device);
}

}  // namespace hgemm::registry
