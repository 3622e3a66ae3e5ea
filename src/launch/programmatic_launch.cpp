#include <atomic>
#include <cstdlib>
#include <string_view>

#include "launch/launch.hpp"

namespace hgemm {

bool env_switch_on(const char* name) {
  char const* env = std::getenv(name);
  return !(env && std::string_view(env) == "0");
}

namespace {

std::atomic<bool> g_enabled{env_switch_on("HGEMM_PDL")};

}  // namespace

bool set_programmatic_launch(bool enabled) { return g_enabled.exchange(enabled); }

bool programmatic_launch(const DeviceInfo& device) {
  return device.cc_major >= 9 && g_enabled.load(std::memory_order_relaxed);
}

}  // namespace hgemm
