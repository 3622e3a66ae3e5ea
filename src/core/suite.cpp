#include "core/suite.hpp"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/env.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"

namespace hgemm {

std::vector<Shape> parse_suite(std::string_view text, std::string_view origin) {
  std::vector<Shape> shapes;
  std::istringstream in{std::string(text)};
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    // Commas are accepted so a CSV "M,N,K" row reads the same as "M N K".
    for (char& ch : line)
      if (ch == ',' || ch == '\t' || ch == '\r') ch = ' ';
    std::istringstream fields(line);
    std::vector<std::string> tokens;
    for (std::string tok; fields >> tok;) tokens.push_back(tok);
    if (tokens.empty()) continue;
    auto where = std::string(origin) + ":" + std::to_string(line_no);
    if (tokens.size() != 3)
      HGEMM_THROW(HGEMM_ERROR_INVALID_SIZE, where + ": expected 'M N K', got '" + line + "'");
    int64_t dims[3];
    for (int i = 0; i < 3; ++i) {
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(tokens[i].c_str(), &end, 10);
      if (errno != 0 || *end != '\0' || end == tokens[i].c_str())
        HGEMM_THROW(HGEMM_ERROR_INVALID_SIZE, where + ": '" + tokens[i] + "' is not an integer");
      if (v <= 0)
        HGEMM_THROW(HGEMM_ERROR_INVALID_SIZE, where + ": dimensions must be positive, got " + tokens[i]);
      dims[i] = v;
    }
    shapes.push_back({dims[0], dims[1], dims[2]});
  }
  return shapes;
}

std::string suite_dir() {
  if (std::string dir = env::suite_dir(); !dir.empty()) return dir;
#ifdef HGEMM_SOURCE_DIR_FOR_SUITES
  return std::string(HGEMM_SOURCE_DIR_FOR_SUITES) + "/bench/suites";
#else
  return "bench/suites";
#endif
}

std::vector<Shape> load_suite(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  fs::path path = name_or_path;
  if (!fs::is_regular_file(path)) {
    fs::path named = fs::path(suite_dir()) / (name_or_path + ".txt");
    if (name_or_path.find('/') == std::string::npos && fs::is_regular_file(named)) {
      path = named;
    } else {
      HGEMM_THROW(HGEMM_ERROR_INVALID_SIZE, "no suite file or named suite '" + name_or_path +
                                                "' (named suites live in " + suite_dir() + ")");
    }
  }
  const std::optional<std::string> text = read_file(path.string());
  if (!text) HGEMM_THROW(HGEMM_ERROR_INVALID_SIZE, "cannot read suite file " + path.string());
  auto shapes = parse_suite(*text, path.string());
  if (shapes.empty()) HGEMM_THROW(HGEMM_ERROR_INVALID_SIZE, "suite " + path.string() + " is empty");
  return shapes;
}

}  // namespace hgemm
