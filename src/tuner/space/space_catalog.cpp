// The library's catalog as a search space. Apart from space.cpp so that tests can build spaces
// from their own config lists without linking the kernels.
#include "tuner/space/space.hpp"

namespace hgemm::tuner {

SearchSpace SearchSpace::from_catalog(const DeviceInfo& device) {
  return SearchSpace(catalog(), device);
}

}  // namespace hgemm::tuner
