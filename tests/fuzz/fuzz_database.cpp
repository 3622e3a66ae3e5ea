// libFuzzer target: the tuning database's parser on arbitrary text must keep every intact line,
// name every bad one, and never crash or hit undefined behaviour; what it keeps must format
// again. Built and run by scripts/fuzz (clang, ASan, UBSan); not part of the CMake build.
#include <cstdint>
#include <string_view>

#include "tuner/db/database.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto db = hgemm::tuner::parse_database(
      std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  for (const auto& r : db.records) (void)hgemm::tuner::format_record(r);
  if (!db.header.empty()) (void)hgemm::tuner::format_header(db.header);
  return 0;
}
