#include "tuner/db/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace hgemm::tuner::json {
namespace {

class Parser {
 public:
  Parser(std::string_view text, bool top_level) : text_(text), top_level_(top_level) {}

  Object object() {
    Object out;
    skip_space();
    expect('{');
    skip_space();
    if (peek() == '}') {
      ++pos_;
    } else {
      while (true) {
        skip_space();
        std::string key = string_literal();
        if (out.find(key)) fail("duplicate key \"" + key + "\"");
        skip_space();
        expect(':');
        skip_space();
        if (top_level_ && (peek() == '{' || peek() == '['))
          skip_nested();
        else
          out.set(key, value());
        skip_space();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect('}');
        break;
      }
    }
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the object");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ParseError(what + " at column " + std::to_string(pos_ + 1));
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\r' || (top_level_ && text_[pos_] == '\n')))
      ++pos_;
  }
  void skip_nested() {
    std::string closers;
    do {
      const char c = peek();
      if (c == '\0') fail("unterminated nested value");
      if (c == '"') {
        string_literal();
        continue;
      }
      if (c == '{') closers += '}';
      if (c == '[') closers += ']';
      if (c == '}' || c == ']') {
        if (closers.empty() || closers.back() != c) fail(std::string("unexpected '") + c + "'");
        closers.pop_back();
      }
      ++pos_;
    } while (!closers.empty());
  }
  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Value value() {
    const char c = peek();
    if (c == '"') return string_literal();
    if (c == '{' || c == '[') fail("nested objects and arrays are not supported");
    if (literal("null")) return nullptr;
    if (literal("true")) return true;
    if (literal("false")) return false;
    return number();
  }

  double number() {
    const size_t start = pos_;
    while (pos_ < text_.size() && std::string_view("+-0123456789.eE").find(text_[pos_]) !=
                                      std::string_view::npos)
      ++pos_;
    if (pos_ == start) fail("expected a value");
    double x = 0;
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    auto [end, ec] = std::from_chars(first, last, x);
    if (ec != std::errc() || end != last || *first == '+')
      fail("malformed number '" + std::string(first, last) + "'");
    return x;
  }

  void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("truncated \\u escape");
    unsigned v = 0;
    auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, v, 16);
    if (ec != std::errc() || end != text_.data() + pos_ + 4) fail("malformed \\u escape");
    pos_ += 4;
    return v;
  }

  std::string string_literal() {
    expect('"');
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated escape");
      switch (const char e = text_[pos_++]) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && literal("\\u")) {
            const unsigned low = hex4();
            if (low < 0xDC00 || low >= 0xE000) fail("unpaired surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xD800 && cp < 0xE000) {
            fail("unpaired surrogate");
          }
          append_utf8(out, cp);
          break;
        }
        default: fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  std::string_view text_;
  bool top_level_;
  size_t pos_ = 0;
};

}  // namespace

Object& Object::set(std::string_view key, Value value) {
  for (auto& [k, v] : fields_)
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  fields_.emplace_back(std::string(key), std::move(value));
  return *this;
}

const Value* Object::find(std::string_view key) const {
  for (const auto& [k, v] : fields_)
    if (k == key) return &v;
  return nullptr;
}

std::optional<std::string> Object::string(std::string_view key) const {
  const Value* v = find(key);
  if (!v || !std::holds_alternative<std::string>(*v)) return std::nullopt;
  return std::get<std::string>(*v);
}

std::optional<double> Object::number(std::string_view key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  if (std::holds_alternative<std::nullptr_t>(*v)) return std::nan("");
  if (!std::holds_alternative<double>(*v)) return std::nullopt;
  return std::get<double>(*v);
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string write(const Object& object) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : object.fields()) {
    if (!first) out += ',';
    first = false;
    out += quote(key);
    out += ':';
    if (std::holds_alternative<std::nullptr_t>(value)) {
      out += "null";
    } else if (const bool* b = std::get_if<bool>(&value)) {
      out += *b ? "true" : "false";
    } else if (const double* d = std::get_if<double>(&value)) {
      if (!std::isfinite(*d)) {
        out += "null";
      } else {
        out += number_text(*d);
      }
    } else {
      out += quote(std::get<std::string>(value));
    }
  }
  return out + "}";
}

Object parse(std::string_view text) { return Parser(text, false).object(); }

Object parse_top_level(std::string_view text) { return Parser(text, true).object(); }

std::string number_text(double value) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
  return std::string(buf, end);
}

}  // namespace hgemm::tuner::json
