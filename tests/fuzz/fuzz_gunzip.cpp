// libFuzzer target: the gzip reader on arbitrary bytes must return (data, error), never crash,
// hang or read out of bounds; a stream it calls whole is at least a minimal member. Built and run
// by scripts/fuzz (clang, ASan, UBSan); not part of the CMake build.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/gzip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto r = hgemm::gunzip(std::string_view(reinterpret_cast<const char*>(data), size),
                               size_t(1) << 24);
  // 10-byte header, an empty fixed block (2 bytes), 8-byte trailer.
  if (r.error.empty() && size < 20) std::abort();
  return 0;
}
