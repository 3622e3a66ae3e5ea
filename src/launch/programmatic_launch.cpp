#include <atomic>
#include <cstdlib>
#include <string_view>

#include "launch/launch.hpp"

namespace hgemm {
namespace {

bool enabled_by_environment() {
  char const* env = std::getenv("HGEMM_PDL");
  return !(env && std::string_view(env) == "0");
}

std::atomic<bool> g_enabled{enabled_by_environment()};

}  // namespace

void set_programmatic_launch(bool enabled) { g_enabled.store(enabled); }

bool programmatic_launch(const DeviceInfo& device) {
  return device.cc_major >= 9 && g_enabled.load(std::memory_order_relaxed);
}

}  // namespace hgemm
