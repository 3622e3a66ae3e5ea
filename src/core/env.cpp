#include "core/env.hpp"

#include <cstdlib>
#include <string_view>

namespace hgemm::env {
namespace {

std::string get(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

bool pdl() { return get("HGEMM_PDL") != "0"; }

bool jit() {
  const std::string v = get("HGEMM_JIT");
  return v == "1" || v == "on";
}

std::string nvcc(const std::string& fallback) {
  std::string v = get("HGEMM_NVCC");
  return v.empty() ? fallback : v;
}

std::string jit_cache() {
  if (std::string v = get("HGEMM_JIT_CACHE"); !v.empty()) return v;
  const std::string home = cache_home();
  return home.empty() ? home : home + "/jit";
}

std::string db() { return get("HGEMM_DB"); }

std::string user_table() { return get("HGEMM_USER_TABLE"); }

std::string cache_home() {
  if (std::string x = get("XDG_CACHE_HOME"); !x.empty()) return x + "/hgemm";
  if (std::string h = get("HOME"); !h.empty()) return h + "/.cache/hgemm";
  return {};
}

std::string suite_dir() { return get("HGEMM_SUITE_DIR"); }

}  // namespace hgemm::env
