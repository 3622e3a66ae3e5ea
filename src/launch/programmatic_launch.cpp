#include <atomic>

#include "core/env.hpp"
#include "launch/launch.hpp"

namespace hgemm {
namespace {

std::atomic<bool> g_enabled{env::pdl()};

}  // namespace

bool set_programmatic_launch(bool enabled) { return g_enabled.exchange(enabled); }

bool programmatic_launch(const DeviceInfo& device) {
  return device.cc_major >= 9 && g_enabled.load(std::memory_order_relaxed);
}

}  // namespace hgemm
