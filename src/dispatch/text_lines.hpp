// The line reader of the dispatch files (table.hpp, model.hpp): plain text, '\n'-terminated
// lines, everything after a '#' a comment, errors that name the file and the line.
#pragma once

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace hgemm::dispatch::text {

// Splits `text` into lines without their comments and surrounding blanks, keeping line numbers.
class Lines {
 public:
  Lines(std::string_view text, const std::string& where) : text_(text), where_(where) {}

  // The next non-empty line; throws at the end of the text, naming what was expected there.
  std::string_view next(std::string_view expected) {
    if (std::optional<std::string_view> line = advance()) return *line;
    fail("ends where " + std::string(expected) + " was expected");
  }

  // Whether only blank and comment lines are left (the position stays where it was).
  bool at_end() {
    const size_t saved_pos = pos_;
    const int saved_number = number_;
    const bool end = !advance();
    pos_ = saved_pos;
    number_ = saved_number;
    return end;
  }

  [[noreturn]] void fail(const std::string& what) const {
    HGEMM_THROW(HGEMM_ERROR_INTERNAL,
                where_ + ":" + std::to_string(number_) + ": " + what);
  }

 private:
  // Past the next line that is not blank once its comment is cut, returning it; nullopt at the
  // end of the text.
  std::optional<std::string_view> advance() {
    while (pos_ < text_.size()) {
      size_t end = text_.find('\n', pos_);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view line = text_.substr(pos_, end - pos_);
      pos_ = end + 1;
      ++number_;
      if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t'))
        line.remove_suffix(1);
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      if (!line.empty()) return line;
    }
    return std::nullopt;
  }

  std::string_view text_;
  const std::string& where_;
  size_t pos_ = 0;
  int number_ = 0;
};

// Into `out` (cleared), so that one vector serves every line.
inline void split(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
}

inline std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> out;
  split(line, out);
  return out;
}

// A whole token as a number of type T; nullopt where it is not one, or only begins with one.
template <typename T>
std::optional<T> parse_number(std::string_view token) {
  T value{};
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

// "key value..." where the value is the rest of the line.
inline std::string_view keyed(Lines& lines, std::string_view key) {
  std::string_view line = lines.next(key);
  if (line.substr(0, key.size()) != key || (line.size() > key.size() && line[key.size()] != ' '))
    lines.fail("expected '" + std::string(key) + " ...', found '" + std::string(line) + "'");
  std::string_view value = line.substr(std::min(line.size(), key.size() + 1));
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  return value;
}

}  // namespace hgemm::dispatch::text
