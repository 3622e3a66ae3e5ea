#include "bench/results_csv.hpp"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "bench/epilogue.hpp"
#include "core/file_io.hpp"
#include "core/gzip.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::bench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Columns a file must have for its rows to mean anything; the rest default when absent, so
// a hand-written or torch-written file may omit spread and clock columns.
const char* const kRequired[] = {"m", "n", "k", "layout", "acc", "impl", "mode", "disposition",
                                 "ms"};

std::string format_double(double v) {
  if (!std::isfinite(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

[[noreturn]] void fail(std::string_view origin, int line_no, const std::string& what) {
  throw std::runtime_error(std::string(origin) + ":" + std::to_string(line_no) + ": " + what);
}

double parse_double(const std::string& s, std::string_view origin, int line_no,
                    const std::string& column) {
  if (s.empty()) return kNaN;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (errno == ERANGE || end == s.c_str() || *end != '\0')
    fail(origin, line_no, "column '" + column + "': '" + s + "' is not a number");
  return v;
}

int64_t parse_int(const std::string& s, std::string_view origin, int line_no,
                  const std::string& column, int64_t fallback) {
  if (s.empty()) return fallback;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0')
    fail(origin, line_no, "column '" + column + "': '" + s + "' is not an integer");
  return v;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return std::string(s.substr(b, e - b));
}

}  // namespace

bool ResultRow::timed() const {
  return disposition == kPassed && std::isfinite(ms) && ms > 0;
}

const std::vector<std::string>& columns(bool with_dtype, bool with_epilogue, bool with_batch) {
  static const std::vector<std::string> cols = {
      "m",       "n",       "k",       "layout",  "acc",      "impl",
      "mode",    "disposition", "ms",  "tflops",  "p20_ms",   "p80_ms",
      "min_ms",  "max_ms",  "samples", "calls_per_sample", "sets",
      "sm_clock_before_mhz", "sm_clock_after_mhz", "detail"};
  // Indexed by with_dtype + 2 * with_epilogue + 4 * with_batch; the optional columns follow acc in
  // that order (dtype, epilogue, batch), each only where its file needs it.
  static const std::array<std::vector<std::string>, 8> variants = [] {
    std::array<std::vector<std::string>, 8> out;
    for (int v = 0; v < 8; ++v) {
      std::vector<std::string> c = cols;
      auto at = c.begin() + 5;
      if (v & 1) at = c.insert(at, "dtype") + 1;
      if (v & 2) at = c.insert(at, "epilogue") + 1;
      if (v & 4) c.insert(at, "batch");
      out[size_t(v)] = std::move(c);
    }
    return out;
  }();
  return variants[size_t(int(with_dtype) + 2 * int(with_epilogue) + 4 * int(with_batch))];
}

std::string header_line(bool with_dtype, bool with_epilogue, bool with_batch) {
  std::string out;
  for (const auto& c : columns(with_dtype, with_epilogue, with_batch))
    out += (out.empty() ? "" : ",") + c;
  return out;
}

std::string csv_quote(std::string_view field) {
  std::string clean;
  clean.reserve(field.size());
  // Rows are one line each, so line breaks inside a field become spaces.
  for (char ch : field) clean += (ch == '\n' || ch == '\r') ? ' ' : ch;
  if (clean.find_first_of(",\"") == std::string::npos) return clean;
  std::string out = "\"";
  for (char ch : clean) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::vector<std::string> csv_split(std::string_view line) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.push_back(std::move(field));
      field.clear();
    } else if (ch != '\r') {
      field += ch;
    }
  }
  if (quoted) throw std::runtime_error("unterminated quoted field");
  out.push_back(std::move(field));
  return out;
}

std::string format_row(const ResultRow& r, bool with_dtype, bool with_epilogue, bool with_batch) {
  if (!with_dtype && r.dtype != "f16")
    throw std::invalid_argument("a " + r.dtype + " row needs a results file with a dtype column");
  if (!with_epilogue && r.epilogue != "none")
    throw std::invalid_argument("a row with the " + r.epilogue +
                                " epilogue needs a results file with an epilogue column");
  if (!with_batch && r.batch != 1)
    throw std::invalid_argument("a row of " + std::to_string(r.batch) +
                                " batches needs a results file with a batch column");
  std::ostringstream o;
  o << r.m << ',' << r.n << ',' << r.k << ',' << csv_quote(r.layout) << ',' << csv_quote(r.acc);
  if (with_dtype) o << ',' << csv_quote(r.dtype);
  if (with_epilogue) o << ',' << csv_quote(r.epilogue);
  if (with_batch) o << ',' << r.batch;
  o << ',' << csv_quote(r.impl) << ',' << csv_quote(r.mode) << ',' << csv_quote(r.disposition)
    << ',' << format_double(r.ms) << ',' << format_double(r.tflops) << ','
    << format_double(r.p20_ms) << ',' << format_double(r.p80_ms) << ','
    << format_double(r.min_ms) << ',' << format_double(r.max_ms) << ',' << r.samples << ','
    << r.calls_per_sample << ',' << r.sets << ',' << r.sm_clock_before_mhz << ','
    << r.sm_clock_after_mhz << ',' << csv_quote(r.detail);
  return o.str();
}

std::string format_environment(const Environment& env) {
  std::string out;
  for (const auto& [key, value] : env) {
    std::string v;
    for (char ch : value) v += (ch == '\n' || ch == '\r') ? ' ' : ch;
    out += "# " + key + "=" + v + "\n";
  }
  return out;
}

ResultsFile parse_results(std::string_view text, std::string_view origin) {
  ResultsFile file;
  std::map<std::string, size_t> index;
  size_t num_columns = 0;
  bool have_header = false;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string line = trim(text.substr(pos, eol - pos));
    pos = eol + 1;
    ++line_no;
    if (line.empty()) continue;
    if (line[0] == '#') {
      // Environment lines appear before the header; later comments are ignored.
      if (have_header) continue;
      const std::string body = trim(std::string_view(line).substr(1));
      if (auto eq = body.find('='); eq != std::string::npos)
        file.environment.emplace_back(trim(body.substr(0, eq)), trim(body.substr(eq + 1)));
      continue;
    }
    std::vector<std::string> fields;
    try {
      fields = csv_split(line);
    } catch (const std::exception& e) {
      fail(origin, line_no, e.what());
    }
    if (!have_header) {
      for (size_t i = 0; i < fields.size(); ++i) index[trim(fields[i])] = i;
      for (const char* col : kRequired)
        if (!index.count(col))
          fail(origin, line_no, std::string("header lacks the required column '") + col + "'");
      num_columns = fields.size();
      have_header = true;
      continue;
    }
    if (fields.size() != num_columns)
      fail(origin, line_no,
           "expected " + std::to_string(num_columns) + " fields, got " +
               std::to_string(fields.size()));
    auto get = [&](const std::string& col) -> std::string {
      auto it = index.find(col);
      return it == index.end() ? std::string() : trim(fields[it->second]);
    };
    auto num = [&](const std::string& col) { return parse_double(get(col), origin, line_no, col); };
    auto integer = [&](const std::string& col, int64_t fallback) {
      return parse_int(get(col), origin, line_no, col, fallback);
    };
    ResultRow r;
    r.m = integer("m", 0);
    r.n = integer("n", 0);
    r.k = integer("k", 0);
    if (r.m <= 0 || r.n <= 0 || r.k <= 0) fail(origin, line_no, "M, N and K must be positive");
    r.layout = get("layout");
    r.acc = get("acc");
    // Files without the column (fp16 runs, and every file older than bf16) hold fp16 rows.
    if (const std::string dtype = get("dtype"); !dtype.empty()) {
      if (!parse_dtype(dtype))
        fail(origin, line_no, "column 'dtype': '" + dtype + "' is not f16 or bf16");
      r.dtype = dtype;
    }
    // Likewise files without an epilogue column (every file before it) hold plain GEMM rows.
    if (const std::string epilogue = get("epilogue"); !epilogue.empty()) {
      if (!parse_epilogue(epilogue))
        fail(origin, line_no,
             "column 'epilogue': '" + epilogue + "' is not one of " +
                 std::string(kEpilogueNames));
      r.epilogue = epilogue;
    }
    // And files without a batch column (every file before it, and every unbatched run) hold
    // single GEMMs.
    r.batch = integer("batch", 1);
    if (r.batch < 1) fail(origin, line_no, "column 'batch': " + std::to_string(r.batch) + " < 1");
    r.impl = get("impl");
    r.mode = get("mode");
    r.disposition = get("disposition");
    if (r.layout.empty() || r.acc.empty() || r.impl.empty() || r.mode.empty() ||
        r.disposition.empty())
      fail(origin, line_no, "layout, acc, impl, mode and disposition must not be empty");
    r.ms = num("ms");
    r.tflops = num("tflops");
    if (!std::isfinite(r.tflops) && std::isfinite(r.ms) && r.ms > 0)
      r.tflops = r.flops() / (r.ms * 1e-3) / 1e12;
    r.p20_ms = num("p20_ms");
    r.p80_ms = num("p80_ms");
    r.min_ms = num("min_ms");
    r.max_ms = num("max_ms");
    r.samples = int(integer("samples", 0));
    r.calls_per_sample = integer("calls_per_sample", 0);
    r.sets = int(integer("sets", 0));
    r.sm_clock_before_mhz = int(integer("sm_clock_before_mhz", -1));
    r.sm_clock_after_mhz = int(integer("sm_clock_after_mhz", -1));
    r.detail = get("detail");
    file.rows.push_back(std::move(r));
  }
  if (!have_header) throw std::runtime_error(std::string(origin) + ": no header row");
  return file;
}

ResultsFile read_results(const std::string& path) {
  const std::optional<std::string> text = read_file(path);
  if (!text) throw std::runtime_error("cannot read " + path);
  if (!is_gzip(*text)) return parse_results(*text, path);
  // Committed results are stored gzip-compressed; a damaged archive is refused rather than read
  // up to the damage, since a silently shortened file would change the report's numbers.
  const GunzipResult plain = gunzip(*text);
  if (!plain.error.empty()) throw std::runtime_error(path + ": " + plain.error);
  return parse_results(plain.data, path);
}

std::string row_key(int64_t m, int64_t n, int64_t k, std::string_view layout, std::string_view acc,
                    std::string_view impl, std::string_view mode, std::string_view dtype,
                    std::string_view epilogue, int64_t batch) {
  std::string out = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  auto add = [&out](std::string_view part) {
    out += '|';
    out += part;
  };
  add(layout);
  add(acc);
  // fp16 keys are those of the files written before bf16, so --resume still finds their rows.
  if (dtype != "f16") add(dtype);
  // Plain GEMM keys are those of the files written before epilogues, likewise.
  if (epilogue != "none") add(epilogue);
  // Single-GEMM keys are those of the files written before batches, likewise.
  if (batch != 1) {
    out += "|b";
    out += std::to_string(batch);
  }
  add(impl);
  add(mode);
  return out;
}

std::string row_key(const ResultRow& r) {
  return row_key(r.m, r.n, r.k, r.layout, r.acc, r.impl, r.mode, r.dtype, r.epilogue, r.batch);
}

}  // namespace hgemm::bench
