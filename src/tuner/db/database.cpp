#include "tuner/db/database.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <unordered_map>

#include <fcntl.h>
#include <unistd.h>

#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/gzip.hpp"
#include "tuner/db/json.hpp"
#include "tuner/space/space.hpp"

namespace hgemm::tuner {
namespace {

constexpr std::string_view kHeader = "header";
constexpr std::string_view kMeasurement = "measurement";
constexpr std::string_view kPolicy = "policy";
constexpr std::string_view kVariant = "variant";

Fingerprint header_from(const json::Object& o) {
  Fingerprint f;
  for (const auto& [key, value] : o.fields()) {
    if (key == "type" || key == "schema") continue;
    if (const auto* s = std::get_if<std::string>(&value)) {
      f.emplace_back(key, *s);
    } else if (const auto* d = std::get_if<double>(&value)) {
      // A hand-edited header may give sm_count as a number; keep it as its text.
      f.emplace_back(key, json::number_text(*d));
    }
  }
  return f;
}

int64_t require_dim(const json::Object& o, std::string_view key) {
  const auto v = o.number(key);
  if (!v || !std::isfinite(*v) || *v < 1 || *v > 2147483647.0 || *v != std::floor(*v))
    throw json::ParseError("\"" + std::string(key) + "\" must be a positive integer");
  return int64_t(*v);
}

double optional_number(const json::Object& o, std::string_view key) {
  if (!o.find(key)) return kNaN;
  const auto v = o.number(key);
  if (!v) throw json::ParseError("\"" + std::string(key) + "\" must be a number or null");
  return *v;
}

std::string optional_string(const json::Object& o, std::string_view key) {
  if (!o.find(key)) return {};
  const auto v = o.string(key);
  if (!v) throw json::ParseError("\"" + std::string(key) + "\" must be a string");
  return *v;
}

Record record_from(const json::Object& o) {
  Record r;
  r.problem.m = require_dim(o, "m");
  r.problem.n = require_dim(o, "n");
  r.problem.k = require_dim(o, "k");
  const auto layout = parse_layout(optional_string(o, "layout"));
  const auto accum = parse_accum(optional_string(o, "acc"));
  if (!layout) throw json::ParseError("\"layout\" must be \"nn\" or \"tn\"");
  if (!accum) throw json::ParseError("\"acc\" must be \"f32\" or \"f16\"");
  r.problem.layout = *layout;
  r.problem.accum = *accum;
  r.config = optional_string(o, "config");
  if (!KernelConfig::parse(r.config))
    throw json::ParseError("\"config\" is not a kernel config name: '" + r.config + "'");
  const auto disposition = parse_disposition(optional_string(o, "disposition"));
  if (!disposition) throw json::ParseError("unknown \"disposition\"");
  Measurement& m = r.measurement;
  m.disposition = *disposition;
  m.median_us = optional_number(o, "median_us");
  m.p20_us = optional_number(o, "p20_us");
  m.p80_us = optional_number(o, "p80_us");
  m.reference_us = optional_number(o, "reference_us");
  m.error_ratio = optional_number(o, "error_ratio");
  const double clock = optional_number(o, "sm_clock_mhz");
  if (std::isfinite(clock) && (clock < -1 || clock > 1e6 || clock != std::floor(clock)))
    throw json::ParseError("\"sm_clock_mhz\" must be an integer from -1 to 1e6 or null");
  m.sm_clock_mhz = std::isfinite(clock) ? int(clock) : -1;
  m.detail = optional_string(o, "detail");
  r.reward = optional_number(o, "reward");
  r.policy = optional_string(o, "policy");
  r.timestamp = optional_string(o, "timestamp");
  if (const json::Value* v = o.find("included")) {
    const bool* b = std::get_if<bool>(v);
    if (!b) throw json::ParseError("\"included\" must be true or false");
    r.included = *b;
  }
  if (const json::Value* v = o.find("supersedes")) {
    const bool* b = std::get_if<bool>(v);
    if (!b) throw json::ParseError("\"supersedes\" must be true or false");
    r.supersedes = *b;
  }
  return r;
}

// A variant line, checked for what makes it traceable (its name, the instance its source was
// built as, the problem, the time and the provenance) and kept as the parser writes it back.
std::string variant_line(const json::Object& o) {
  if (!is_variant_name(optional_string(o, "name")))
    throw json::ParseError("a variant's \"name\" must be lower-case letters, digits and _, "
                           "starting with a letter, at most 64");
  require_dim(o, "m");
  require_dim(o, "n");
  require_dim(o, "k");
  if (!parse_layout(optional_string(o, "layout")) || !parse_accum(optional_string(o, "acc")))
    throw json::ParseError("a variant's \"layout\" and \"acc\" must be nn|tn and f32|f16");
  if (!KernelConfig::parse(optional_string(o, "config")))
    throw json::ParseError("a variant's \"config\" (the instance its source was built as) is "
                           "not a kernel config name");
  const double median = optional_number(o, "median_us");
  if (!(median > 0)) throw json::ParseError("a variant's \"median_us\" must be positive");
  const std::string prompt = optional_string(o, "prompt_sha256");
  if (optional_string(o, "model").empty() || prompt.size() != 64 ||
      prompt.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw json::ParseError("a variant needs its provenance: \"model\" and \"prompt_sha256\" "
                           "(64 hex digits)");
  return json::write(o);
}

// The single-line text a writer may leave without its newline is only kept if it parses.
bool parses(std::string_view line) {
  try {
    json::parse(line);
    return true;
  } catch (const json::ParseError&) {
    return false;
  }
}

}  // namespace

bool is_variant_name(std::string_view name) {
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  return !name.empty() && name.size() <= 64 && lower(name[0]) &&
         std::all_of(name.begin(), name.end(),
                     [&](char c) { return lower(c) || (c >= '0' && c <= '9') || c == '_'; });
}

std::string format_header(const Fingerprint& fingerprint) {
  json::Object o;
  o.set("type", std::string(kHeader)).set("schema", double(kSchemaVersion));
  for (const auto& [key, value] : fingerprint)
    if (key != "type" && key != "schema") o.set(key, value);
  return json::write(o);
}

std::string format_record(const Record& r) {
  const Measurement& m = r.measurement;
  json::Object o;
  o.set("type", std::string(kMeasurement))
      .set("m", double(r.problem.m))
      .set("n", double(r.problem.n))
      .set("k", double(r.problem.k))
      .set("layout", std::string(to_string(r.problem.layout)))
      .set("acc", std::string(to_string(r.problem.accum)))
      .set("config", r.config)
      .set("disposition", std::string(to_string(m.disposition)))
      .set("median_us", m.median_us)
      .set("p20_us", m.p20_us)
      .set("p80_us", m.p80_us)
      .set("reference_us", m.reference_us)
      .set("speedup", m.timed() ? m.speedup() : kNaN)
      .set("tflops", m.timed() ? r.problem.flops() / (m.median_us * 1e6) : kNaN)
      .set("error_ratio", m.error_ratio)
      .set("reward", r.reward)
      .set("sm_clock_mhz", m.sm_clock_mhz >= 0 ? double(m.sm_clock_mhz) : kNaN)
      .set("policy", r.policy)
      .set("timestamp", r.timestamp)
      .set("detail", m.detail);
  // Only when true, so that databases without proposals read and write as they always did.
  if (r.included) o.set("included", true);
  if (r.supersedes) o.set("supersedes", true);
  return json::write(o);
}

std::string format_policy(const PolicyState& s) {
  json::Object o;
  o.set("type", std::string(kPolicy)).set("policy", s.policy).set("state", s.state);
  return json::write(o);
}

std::vector<Record> current_records(const std::vector<Record>& records) {
  auto key = [](const Record& r) { return r.problem.name() + '\n' + r.config; };
  // File order is append order: a merge keeps each file's order, and a superseding record is
  // appended after the records it replaces.
  std::unordered_map<std::string, size_t> from;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].supersedes) from[key(records[i])] = i;
  if (from.empty()) return records;
  std::vector<Record> out;
  out.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const auto it = from.find(key(records[i]));
    if (it == from.end() || i >= it->second) out.push_back(records[i]);
  }
  return out;
}

Database parse_database(std::string_view text, std::string_view origin) {
  Database db;
  size_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    const bool terminated = end != std::string_view::npos;
    if (!terminated) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto error = [&](const std::string& why) {
      const char* tail = terminated ? "" : " (the last line, cut short by an interrupted write)";
      db.errors.push_back(std::string(origin) + ":" + std::to_string(line_no) + ": " + why + tail);
    };
    try {
      const json::Object o = json::parse(line);
      const std::string type = o.string("type").value_or("");
      if (type == kHeader) {
        const double schema = o.number("schema").value_or(0);
        if (schema != kSchemaVersion) {
          error("schema " + json::number_text(schema) + " is not this version's " +
                std::to_string(kSchemaVersion));
        } else if (db.header.empty()) {
          db.header = header_from(o);
          if (!db.records.empty()) error("the header should be the first line");
        } else if (!compare_fingerprints(db.header, header_from(o)).same_device) {
          error("a second header for another device; the file was concatenated from two "
                "machines' databases (use hgemm db merge)");
        }
      } else if (type == kMeasurement) {
        db.records.push_back(record_from(o));
      } else if (type == kVariant) {
        db.variants.push_back(variant_line(o));
      } else if (type == kPolicy) {
        db.policy = PolicyState{optional_string(o, "policy"), optional_string(o, "state")};
      } else {
        error("unknown line type '" + type + "'");
      }
    } catch (const json::ParseError& e) {
      error(e.what());
    }
  }
  return db;
}

Database load_database(const std::string& path) {
  const std::optional<std::string> text = read_file(path);
  if (!text) return Database{};
  if (!is_gzip(*text)) return parse_database(*text, path);
  const GunzipResult plain = gunzip(*text);
  Database db = parse_database(plain.data, path);
  if (!plain.error.empty())
    db.errors.insert(db.errors.begin(), path + ": " + plain.error + "; the lines before it are used");
  return db;
}

std::string fingerprint_value(const Fingerprint& fingerprint, std::string_view key) {
  for (const auto& [k, v] : fingerprint)
    if (k == key) return v;
  return {};
}

std::string timing_mismatch(const Fingerprint& db, bool db_has_records,
                            const Fingerprint& running) {
  const std::string run = fingerprint_value(running, "pdl");
  std::string recorded = fingerprint_value(db, "pdl");
  if (recorded.empty() && db_has_records) recorded = "off";
  if (run.empty() || recorded.empty() || run == recorded) return {};
  return "its records were timed with programmatic dependent launch " + recorded +
         " and this run would time with it " + run + " (HGEMM_PDL=" +
         (recorded == "off" ? "0" : "1") + " matches them), or tune into another --db";
}

FingerprintCheck compare_fingerprints(const Fingerprint& db, const Fingerprint& running) {
  FingerprintCheck out;
  for (std::string_view key : {"gpu", "sm_count", "driver", "cuda", "cublas", "git"}) {
    const std::string a = fingerprint_value(db, key), b = fingerprint_value(running, key);
    if (a.empty() || b.empty() || a == b) continue;
    out.differences.push_back(std::string(key) + ": " + a + " (database) vs " + b + " (running)");
    if (key == "gpu" || key == "sm_count") out.same_device = false;
  }
  return out;
}

DatabaseWriter::DatabaseWriter(std::string path, const Fingerprint& header)
    : path_(std::move(path)) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::path(path_).parent_path();
  std::error_code ec;
  if (!parent.empty()) fs::create_directories(parent, ec);
  const std::string text = read_file(path_).value_or(std::string());
  if (is_gzip(text)) HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED, compressed_database_refusal(path_));
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw_io_error("cannot open", path_);
  try {
    // A writer killed while writing the header leaves one unparseable line: start over.
    if (!text.empty() && text.find('\n') == std::string::npos && !parses(text)) {
      if (::ftruncate(fd_, 0) != 0) throw_io_error("cannot reset", path_);
      append_line(format_header(header));
      return;
    }
    if (text.empty()) {
      append_line(format_header(header));
      return;
    }
    const std::string_view first(text.data(), std::min(text.find('\n'), text.size()));
    Database head = parse_database(first, path_);
    if (head.header.empty())
      HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED,
                  path_ + " does not start with a tuning database header; refusing to append");
    const FingerprintCheck check = compare_fingerprints(head.header, header);
    if (!check.same_device)
      HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED,
                  path_ + " holds measurements of another device (" + check.differences.front() +
                      "); tune into another --db");
    // A killed writer may have left a partial line: complete it if it is whole, else cut it.
    if (text.back() != '\n') {
      const size_t start = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
      if (parses(std::string_view(text).substr(start))) {
        write_all(fd_, "\n", path_);
      } else if (::ftruncate(fd_, off_t(start)) != 0) {
        throw_io_error("cannot cut the partial last line of", path_);
      }
    }
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

DatabaseWriter::~DatabaseWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void DatabaseWriter::append_line(const std::string& line) {
  write_all(fd_, line + "\n", path_);
  if (::fsync(fd_) != 0) throw_io_error("cannot fsync", path_);
}

void DatabaseWriter::append(const Record& record) { append_line(format_record(record)); }
void DatabaseWriter::append(const PolicyState& state) { append_line(format_policy(state)); }

bool is_compressed_database(const std::string& path) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) return true;
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {};
  return in.read(magic, 2) && is_gzip(std::string_view(magic, 2));
}

std::string compressed_database_refusal(const std::string& path) {
  return path + " is gzip-compressed, as the repository ships databases; databases are appended "
                "to and written as plain JSON Lines: gunzip -k it (the plain file then wins the "
                "default path) or give another path, and gzip -9n the result (docs/tuner.md)";
}

void write_database(const std::string& path, const Database& db) {
  if (is_compressed_database(path))
    HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED, compressed_database_refusal(path));
  std::string text = format_header(db.header) + "\n";
  for (const Record& r : db.records) text += format_record(r) + "\n";
  for (const std::string& v : db.variants) text += v + "\n";
  if (db.policy) text += format_policy(*db.policy) + "\n";
  write_file_atomically(path, text);
}

Database merge_databases(const std::vector<Database>& parts) {
  Database out;
  std::set<std::string> seen;
  for (const Database& part : parts) {
    out.errors.insert(out.errors.end(), part.errors.begin(), part.errors.end());
    if (!part.header.empty()) {
      if (out.header.empty()) {
        out.header = part.header;
      } else if (!compare_fingerprints(out.header, part.header).same_device) {
        auto device = [](const Fingerprint& f) {
          return fingerprint_value(f, "gpu") + " with " + fingerprint_value(f, "sm_count") +
                 " SMs";
        };
        HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED, "cannot merge databases of different devices: " +
                                                   device(out.header) + " and " +
                                                   device(part.header));
      }
    }
    for (const Record& r : part.records)
      if (seen.insert(format_record(r)).second) out.records.push_back(r);
    for (const std::string& v : part.variants)
      if (seen.insert(v).second) out.variants.push_back(v);
    if (part.policy) out.policy = part.policy;
  }
  return out;
}

std::map<std::string, std::string> blocklist(const std::vector<Record>& records) {
  std::map<std::string, std::string> out;
  for (const Record& r : records)
    if (is_failure(r.measurement.disposition))
      out.emplace(r.config, std::string(to_string(r.measurement.disposition)) + " on " +
                                r.problem.name() + ": " + r.measurement.detail);
  return out;
}

DeviceInfo database_device(const Fingerprint& header) {
  const std::string gpu = fingerprint_value(header, "gpu");
  const int sms = std::atoi(fingerprint_value(header, "sm_count").c_str());
  DeviceInfo d = nominal_device(gpu.empty() ? "unknown" : gpu, sms > 0 ? sms : 132);
  if (const long long l2 = std::atoll(fingerprint_value(header, "l2_bytes").c_str());
      l2 > 0 && l2 <= std::numeric_limits<int>::max())
    d.l2_bytes = int(l2);
  return d;
}

}  // namespace hgemm::tuner
