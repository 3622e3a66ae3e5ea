#include "dispatch/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>

#include "core/error.hpp"
#include "core/file_io.hpp"
#include "dispatch/text_lines.hpp"

namespace hgemm::dispatch {
namespace {

using text::keyed;
using text::Lines;
using text::split;

constexpr std::string_view kMagic = "hgemm-dispatch-table";

int64_t to_int(Lines& lines, std::string_view token, std::string_view what, int64_t min,
               int64_t max) {
  const std::optional<int64_t> v = text::parse_number<int64_t>(token);
  if (!v || *v < min || *v > max)
    lines.fail(std::string(what) + " '" + std::string(token) + "' is not an integer in [" +
               std::to_string(min) + ", " + std::to_string(max) + "]");
  return *v;
}

// Generous bounds: a table lists shapes, so a count beyond these is a corrupt file, and refusing
// it early keeps a bad count from reserving gigabytes.
constexpr int64_t kMaxCount = 10'000'000;
constexpr int64_t kMaxDim = int64_t(1) << 31;

std::string format_us(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", us);
  return text;
}

}  // namespace

double carried_us(double us) { return std::strtod(format_us(us).c_str(), nullptr); }

std::string format_table(const Table& table) {
  std::vector<const TableEntry*> sorted;
  for (const TableEntry& e : table.entries) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(), [](const TableEntry* a, const TableEntry* b) {
    return std::tie(a->m, a->n, a->k, a->layout) < std::tie(b->m, b->n, b->k, b->layout);
  });
  std::vector<std::string> names;
  std::map<std::string, size_t> number;
  auto number_of = [&](const KernelConfig& config) {
    const std::string name = config.name();
    auto [it, added] = number.emplace(name, names.size());
    if (added) names.push_back(name);
    return it->second;
  };
  std::vector<size_t> entry_config;
  for (const TableEntry* e : sorted) {
    entry_config.push_back(number_of(e->config));
    for (const TimedConfig& t : e->timed) number_of(t.config);
  }
  std::vector<std::string> blocked = table.blocked;
  std::sort(blocked.begin(), blocked.end());
  std::string out;
  out.reserve(64 * (names.size() + blocked.size()) + 40 * sorted.size() + 256);
  out += std::string(kMagic) + " " + std::to_string(kTableFormat) + "\n";
  out += "gpu " + table.gpu + "\n";
  out += "sm_count " + std::to_string(table.sm_count) + "\n";
  out += "acc " + std::string(to_string(table.accum)) + "\n";
  out += "source " + table.source + "\n";
  out += "measured_split_k " + std::string(table.measured_split_k ? "1" : "0") + "\n";
  out += "configs " + std::to_string(names.size()) + "\n";
  for (const std::string& name : names) out += name + "\n";
  out += "blocked " + std::to_string(blocked.size()) + "\n";
  for (const std::string& name : blocked) out += name + "\n";
  out += "entries " + std::to_string(sorted.size()) + "\n";
  for (size_t i = 0; i < sorted.size(); ++i) {
    const TableEntry& e = *sorted[i];
    out += std::to_string(e.m) + " " + std::to_string(e.n) + " " + std::to_string(e.k) + " " +
           std::string(to_string(e.layout)) + " " + std::to_string(entry_config[i]) + " " +
           (e.searched_split_k ? "1" : "0");
    // Appended piece by piece: `" " + std::string&&` trips gcc 12's -Wrestrict (a false
    // positive in its inlined memcpy).
    for (const TimedConfig& t : e.timed) {
      out += ' ';
      out += std::to_string(number.at(t.config.name()));
      out += ':';
      out += format_us(t.us);
    }
    out += "\n";
  }
  return out;
}

Table parse_table(std::string_view text, const std::string& where) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    HGEMM_THROW(HGEMM_ERROR_INTERNAL, where + " is empty: not a dispatch table");
  Lines lines(text, where);
  const std::string_view first = lines.next("the format line");
  const auto magic = split(first);
  if (magic.size() != 2 || magic[0] != kMagic)
    lines.fail("not a dispatch table (it must start with '" + std::string(kMagic) +
               " " + std::to_string(kTableFormat) + "'; hgemm db export --table writes one)");
  const int64_t format = to_int(lines, magic[1], "format", 0, 1 << 20);
  if (format != 1 && format != kTableFormat)
    lines.fail("format " + std::string(magic[1]) + ", this library reads formats 1 and " +
               std::to_string(kTableFormat) + " (re-export it with this version's hgemm db export)");
  Table t;
  t.gpu = std::string(keyed(lines, "gpu"));
  if (t.gpu.empty()) lines.fail("the gpu name is empty");
  t.sm_count = int(to_int(lines, keyed(lines, "sm_count"), "sm_count", 1, 1 << 20));
  const std::string_view acc = keyed(lines, "acc");
  const auto accum = parse_accum(acc);
  if (!accum) lines.fail("acc '" + std::string(acc) + "' is not f32 or f16");
  t.accum = *accum;
  t.source = std::string(keyed(lines, "source"));
  t.measured_split_k = to_int(lines, keyed(lines, "measured_split_k"), "measured_split_k", 0, 1);
  const int64_t num_configs = to_int(lines, keyed(lines, "configs"), "configs", 0, kMaxCount);
  std::vector<KernelConfig> configs;
  configs.reserve(size_t(num_configs));
  for (int64_t i = 0; i < num_configs; ++i) {
    const std::string_view name = lines.next("a config name");
    const auto config = KernelConfig::parse(name);
    if (!config) lines.fail("'" + std::string(name) + "' is not a kernel config name");
    if (config->accum != t.accum)
      lines.fail(std::string(name) + " accumulates in " + std::string(to_string(config->accum)) +
                 ", the table is " + std::string(to_string(t.accum)));
    configs.push_back(*config);
  }
  const int64_t num_blocked = to_int(lines, keyed(lines, "blocked"), "blocked", 0, kMaxCount);
  t.blocked.reserve(size_t(num_blocked));
  for (int64_t i = 0; i < num_blocked; ++i) t.blocked.emplace_back(lines.next("a config name"));
  const int64_t num_entries = to_int(lines, keyed(lines, "entries"), "entries", 0, kMaxCount);
  t.entries.reserve(size_t(num_entries));
  std::vector<std::string_view> f;
  for (int64_t i = 0; i < num_entries; ++i) {
    split(lines.next("an entry"), f);
    if (f.size() < 6 || (format == 1 && f.size() != 6))
      lines.fail(format == 1 ? "an entry is 'm n k layout config searched_split_k'"
                             : "an entry is 'm n k layout config searched_split_k "
                               "[config:microseconds...]'");
    TableEntry e;
    e.m = to_int(lines, f[0], "m", 1, kMaxDim);
    e.n = to_int(lines, f[1], "n", 1, kMaxDim);
    e.k = to_int(lines, f[2], "k", 1, kMaxDim);
    const auto layout = parse_layout(f[3]);
    if (!layout) lines.fail("layout '" + std::string(f[3]) + "' is not nn or tn");
    e.layout = *layout;
    // The entry's winner and each timed config: a number in the list, built for this layout.
    auto config_at = [&](std::string_view number) {
      const KernelConfig& c =
          configs[size_t(to_int(lines, number, "config number", 0, num_configs - 1))];
      if (c.layout != e.layout)
        lines.fail(c.name() + " is built for " + std::string(to_string(c.layout)) +
                   ", the entry is " + std::string(f[3]));
      return c;
    };
    e.config = config_at(f[4]);
    e.searched_split_k = to_int(lines, f[5], "searched_split_k", 0, 1);
    if (f.size() - 6 > size_t(kCarriedConfigs))
      lines.fail("an entry carries " + std::to_string(f.size() - 6) + " timed configs, at most " +
                 std::to_string(kCarriedConfigs));
    e.timed.reserve(f.size() - 6);
    for (size_t j = 6; j < f.size(); ++j) {
      const size_t colon = f[j].find(':');
      if (colon == std::string_view::npos)
        lines.fail("timed config '" + std::string(f[j]) + "' is not number:microseconds");
      TimedConfig timed;
      timed.config = config_at(f[j].substr(0, colon));
      const std::string_view us = f[j].substr(colon + 1);
      const std::optional<double> time = text::parse_number<double>(us);
      if (!time || !(*time > 0) || !std::isfinite(*time))
        lines.fail("time '" + std::string(us) + "' is not a positive number of microseconds");
      timed.us = *time;
      e.timed.push_back(timed);
    }
    t.entries.push_back(e);
  }
  if (!lines.at_end()) lines.fail("unexpected text after the last entry");
  std::vector<const TableEntry*> sorted;
  for (const TableEntry& e : t.entries) sorted.push_back(&e);
  auto key = [](const TableEntry* e) { return std::tie(e->m, e->n, e->k, e->layout); };
  std::sort(sorted.begin(), sorted.end(), [&](auto* a, auto* b) { return key(a) < key(b); });
  for (size_t i = 1; i < sorted.size(); ++i)
    if (key(sorted[i - 1]) == key(sorted[i]))
      HGEMM_THROW(HGEMM_ERROR_INTERNAL,
                  where + ": two entries for " + std::to_string(sorted[i]->m) + "x" +
                      std::to_string(sorted[i]->n) + "x" + std::to_string(sorted[i]->k) + " " +
                      std::string(to_string(sorted[i]->layout)));
  return t;
}

Table load_table(const std::string& path) {
  const std::optional<std::string> text = read_file(path);
  if (!text) throw_io_error("cannot read the dispatch table", path);
  return parse_table(*text, path);
}

}  // namespace hgemm::dispatch
