// The catalog: every compiled instance, lookup by config, and can_implement over the families.
#include "registry/registry.hpp"

#include <mutex>

#include "core/error.hpp"
#include "core/promoted.hpp"
#include "launch/sm90_jit.hpp"

namespace hgemm::registry {
namespace {

struct Added {
  std::mutex mu;
  std::vector<KernelInstance> instances;
  bool built = false;  // instances() has run: what it returned can no longer grow
};

Added& added() {
  static Added* a = new Added;  // never destroyed, like the catalog it feeds
  return *a;
}

// A promoted instance is the kernel of its row's config with the row's source: the generated
// translation unit spells the config out field by field (cmake/promoted_catalog.cmake), and this
// is where a reading that drifted from KernelConfig::parse would show.
void check_promoted(const std::vector<KernelInstance>& instances) {
  for (const KernelInstance& inst : instances) {
    const auto row = find_promoted_source(inst.config.source.view());
    auto expected = row ? KernelConfig::parse(row->config) : std::nullopt;
    if (expected) expected->source = inst.config.source;
    if (!expected || expected->instance() != inst.config)
      HGEMM_THROW(HGEMM_ERROR_INTERNAL,
                  "the promoted instance " + inst.config.name() + " is not its row's config " +
                      (row ? std::string(row->config) : std::string("(no row)")) +
                      " (cmake/promoted_catalog.cmake read it differently)");
  }
}

}  // namespace

const std::vector<KernelInstance>& instances() {
  static const std::vector<KernelInstance> all = [] {
    std::vector<KernelInstance> v = sm90_instances();
    auto sm80 = sm80_instances();
    v.insert(v.end(), sm80.begin(), sm80.end());
    auto decode = decode_instances();
    v.insert(v.end(), decode.begin(), decode.end());
    // Promoted rewrites last: a rule that scans the catalog for the strictly cheapest kernel
    // keeps the family header's kernel where a rewrite of the same tile ties with it, so only a
    // table (a measurement) selects a rewrite.
    std::vector<KernelInstance> promoted = sm90_promoted_instances();
    std::lock_guard lock(added().mu);
    promoted.insert(promoted.end(), added().instances.begin(), added().instances.end());
    check_promoted(promoted);
    v.insert(v.end(), promoted.begin(), promoted.end());
    added().built = true;
    return v;
  }();
  return all;
}

void add_promoted(std::span<const PromotedSource> rows, std::vector<KernelInstance> kernels) {
  std::lock_guard lock(added().mu);
  if (added().built)
    HGEMM_THROW(HGEMM_ERROR_INTERNAL,
                "registry::add_promoted after the catalog was built: add promoted rows before "
                "the first call that looks a kernel up");
  add_promoted_sources(rows);
  added().instances.insert(added().instances.end(), kernels.begin(), kernels.end());
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

std::string not_found(const KernelConfig& config) {
  if (Status s = config.validate(); !s.ok()) return s.message;
  return config.name() + " is not compiled";
}

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
