// Just enough JSON for the tuning database: one flat object per line whose values are strings,
// numbers, booleans or null. Non-finite numbers are written as null and read back as NaN.
// Nested objects and arrays are rejected with a reason, never half-parsed.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hgemm::tuner::json {

using Value = std::variant<std::nullptr_t, bool, double, std::string>;

class Object {
 public:
  // Replaces the value of an existing key, else appends: fields keep their first position.
  Object& set(std::string_view key, Value value);
  const Value* find(std::string_view key) const;
  // The value as that type; nullopt when absent or of another type. number() reads null as NaN.
  std::optional<std::string> string(std::string_view key) const;
  std::optional<double> number(std::string_view key) const;
  const std::vector<std::pair<std::string, Value>>& fields() const { return fields_; }

 private:
  std::vector<std::pair<std::string, Value>> fields_;
};

class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One line, no newline; keys in insertion order.
std::string write(const Object& object);
// Throws ParseError naming the column and what was expected.
Object parse(std::string_view text);
// The scalar fields of one object that may span lines and hold nested objects and arrays, which
// are skipped (absent from the result, still checked for balance and well-formed strings): the
// summary of a larger document, such as a variant's record.json (`hgemm variants list`).
Object parse_top_level(std::string_view text);

std::string quote(std::string_view text);
// A finite number as its shortest text that reads back exactly ("1980", "0.5", "2e+15").
std::string number_text(double value);

}  // namespace hgemm::tuner::json
