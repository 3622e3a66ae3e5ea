// Shape suites: text files with one "M N K" per line ('#' starts a comment). Named suites
// (grid, smoke, edge, ...) live in bench/suites/<name>.txt.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hgemm {

struct Shape {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool operator==(const Shape&) const = default;
};

// Parses suite text. Throws hgemm::Error(HGEMM_ERROR_INVALID_SIZE) naming the line on a malformed
// or non-positive entry.
std::vector<Shape> parse_suite(std::string_view text, std::string_view origin = "<text>");

// `name_or_path` is a file path, or a suite name resolved in $HGEMM_SUITE_DIR and then in the
// source tree's bench/suites. Throws hgemm::Error when it is neither.
std::vector<Shape> load_suite(const std::string& name_or_path);

// Where named suites are looked up (for messages).
std::string suite_dir();

}  // namespace hgemm
