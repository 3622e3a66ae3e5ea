// libFuzzer target: the other files users hand the command, suites ("M N K" lines) and results
// CSVs (`hgemm report`, `bench --resume`), parsed from arbitrary text: an error must be an
// std::runtime_error naming the line, never a crash or undefined behaviour. Built and run by
// scripts/fuzz (clang, ASan, UBSan); not part of the CMake build.
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "bench/results_csv.hpp"
#include "core/suite.hpp"
#include "hgemm/hgemm.hpp"

// Both parsers report bad input as std::runtime_error (hgemm::Error is one); any other exception
// escapes and libFuzzer reports it.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)hgemm::parse_suite(text, "fuzz");
  } catch (const std::runtime_error&) {
  }
  try {
    const auto results = hgemm::bench::parse_results(text, "fuzz");
    for (const auto& row : results.rows) (void)hgemm::bench::format_row(row);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
