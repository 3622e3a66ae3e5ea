#include "args.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <unistd.h>

namespace hgemm::cli {

ParsedArgs::ParsedArgs(const std::vector<std::string>& args, const std::set<std::string>& valued,
                       const std::set<std::string>& flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0) {
      positional_.push_back(arg);
      continue;
    }
    std::string key = arg.substr(2);
    std::optional<std::string> value;
    if (auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    }
    if (valued.count(key)) {
      if (!value) {
        if (i + 1 >= args.size()) throw ArgError("option --" + key + " needs a value");
        value = args[++i];
      }
      values_[key] = *value;
    } else if (flags.count(key)) {
      if (value) throw ArgError("option --" + key + " takes no value");
      flags_.insert(key);
    } else {
      throw ArgError("unknown option --" + key);
    }
  }
}

std::optional<std::string> ParsedArgs::get(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string ParsedArgs::get_or(const std::string& key, const std::string& fallback) const {
  return get(key).value_or(fallback);
}

std::vector<std::string> ParsedArgs::list_or(const std::string& key,
                                             const std::string& fallback) const {
  auto items = split(get_or(key, fallback), ',');
  if (items.empty()) throw ArgError("option --" + key + " needs at least one item");
  return items;
}

long long ParsedArgs::int_or(const std::string& key, long long fallback) const {
  auto v = get(key);
  if (!v) return fallback;
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v->c_str(), &end, 10);
  if (errno != 0 || end == v->c_str() || *end != '\0')
    throw ArgError("option --" + key + " expects an integer, got '" + *v + "'");
  return x;
}

double ParsedArgs::double_or(const std::string& key, double fallback) const {
  auto v = get(key);
  if (!v) return fallback;
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(v->c_str(), &end);
  if (errno != 0 || end == v->c_str() || *end != '\0')
    throw ArgError("option --" + key + " expects a number, got '" + *v + "'");
  return x;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::optional<int> subcommand_usage(const std::vector<std::string>& argv, const char* help) {
  if (!argv.empty() && argv[0] != "--help" && argv[0] != "-h") return std::nullopt;
  std::fputs(help, argv.empty() ? stderr : stdout);
  return argv.empty() ? 2 : 0;
}

std::vector<Shape> parse_shapes(const std::string& list) {
  std::vector<Shape> shapes;
  for (const std::string& item : split(list, ',')) {
    auto dims = split(item, 'x');
    int64_t v[3] = {};
    bool ok = dims.size() == 3;
    for (size_t i = 0; ok && i < 3; ++i) {
      char* end = nullptr;
      errno = 0;
      long long x = std::strtoll(dims[i].c_str(), &end, 10);
      ok = errno == 0 && end != dims[i].c_str() && *end == '\0' && x > 0;
      v[i] = x;
    }
    if (!ok) throw ArgError("--shape expects MxNxK with positive integers, got '" + item + "'");
    shapes.push_back({v[0], v[1], v[2]});
  }
  if (shapes.empty()) throw ArgError("--shape needs at least one shape");
  return shapes;
}

DType dtype_option(const ParsedArgs& args) {
  const std::string text = args.get_or("dtype", "f16");
  const std::optional<DType> dtype = parse_dtype(text);
  if (!dtype) throw ArgError("unknown dtype '" + text + "' (f16 or bf16)");
  return *dtype;
}

std::vector<Accum> accum_option(const ParsedArgs& args, DType dtype) {
  std::vector<Accum> accums;
  for (const auto& s : args.list_or("acc", dtype == DType::kBF16 ? "f32" : "f32,f16")) {
    const std::optional<Accum> accum = parse_accum(s);
    if (!accum) throw ArgError("unknown accumulation '" + s + "' (f32 or f16)");
    if (*accum == Accum::kF16 && dtype == DType::kBF16)
      throw ArgError("--acc f16 cannot run with --dtype bf16: bf16 accumulates in fp32 only");
    if (std::find(accums.begin(), accums.end(), *accum) == accums.end()) accums.push_back(*accum);
  }
  return accums;
}

bench::EpilogueOp epilogue_option(const ParsedArgs& args) {
  const std::string text = args.get_or("epilogue", "none");
  const std::optional<bench::EpilogueOp> op = bench::parse_epilogue(text);
  if (!op)
    throw ArgError("unknown epilogue '" + text + "' (" + std::string(bench::kEpilogueNames) + ")");
  return *op;
}

int64_t batch_option(const ParsedArgs& args) {
  const long long batch = args.int_or("batch", 1);
  if (batch < 1 || batch > 2147483647LL)
    throw ArgError("--batch must be an integer from 1 to 2147483647, got " +
                   *args.get("batch"));
  return int64_t(batch);
}

void require_writable(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string what = "cannot write " + option + " " + path + ": ";
  if (fs::is_directory(path, ec)) throw ArgError(what + "it is a directory");
  if (fs::exists(path, ec)) {
    if (::access(path.c_str(), W_OK) != 0) throw ArgError(what + "the file is read-only");
    return;
  }
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  if (!fs::is_directory(dir, ec)) throw ArgError(what + "no directory " + dir);
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw ArgError(what + "the directory " + dir + " is read-only");
}

}  // namespace hgemm::cli
