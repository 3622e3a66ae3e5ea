// Every environment variable the library and the tools read, read here and nowhere else. Each
// function reads the environment when called; the callers that must not change their mind during
// a process (PDL, the JIT switch, the dispatch tables) latch the answer themselves.
#pragma once

#include <string>

namespace hgemm::env {

// HGEMM_PDL: programmatic dependent launch, on unless "0".
bool pdl();
// HGEMM_JIT: "1" or "on" lets dispatch and run() compile sm90 configs missing from the catalog.
bool jit();
// HGEMM_NVCC, else `fallback` (the nvcc the library was built with).
std::string nvcc(const std::string& fallback);
// HGEMM_JIT_CACHE, else <cache_home()>/jit, else "".
std::string jit_cache();
// HGEMM_DB: the tuning database or dispatch table to use instead of the shipped one; "" if unset.
std::string db();
// HGEMM_USER_TABLE: the user's dispatch table (hgemm tune writes it); "" if unset.
std::string user_table();
// $XDG_CACHE_HOME/hgemm, else $HOME/.cache/hgemm, else "".
std::string cache_home();
// HGEMM_SUITE_DIR: where named shape suites live; "" if unset.
std::string suite_dir();

}  // namespace hgemm::env
