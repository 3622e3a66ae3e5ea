// The library's catalog as a search space. Apart from space.cpp so that tests can build spaces
// from their own config lists without linking the kernels.
#include "tuner/space/space.hpp"

#include <algorithm>

namespace hgemm::tuner {

SearchSpace SearchSpace::from_catalog(const DeviceInfo& device) {
  return SearchSpace(catalog(), device);
}

SearchSpace SearchSpace::with_declared(const DeviceInfo& device,
                                       const std::vector<std::string>& filters,
                                       std::vector<KernelConfig>* added) {
  std::vector<KernelConfig> compiled = catalog();
  const SearchSpace base(compiled, device);
  std::vector<KernelConfig> extra;
  for (const KernelConfig& c : base.declared_instances(filters)) {
    const auto broken = base.check(c);  // e.g. over this device's shared memory
    if (std::all_of(broken.begin(), broken.end(),
                    [](const Violation& v) { return v.rule == "compiled"; }))
      extra.push_back(c);
  }
  compiled.insert(compiled.end(), extra.begin(), extra.end());
  if (added) *added = std::move(extra);
  return SearchSpace(compiled, device);
}

}  // namespace hgemm::tuner
