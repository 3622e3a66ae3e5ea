#include "tuner/db/user_table.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/file_io.hpp"
#include "tuner/db/table_export.hpp"

namespace hgemm::tuner {
namespace {

using ShapeKey = std::tuple<int64_t, int64_t, int64_t, Layout>;

ShapeKey key_of(const dispatch::TableEntry& e) { return {e.m, e.n, e.k, e.layout}; }

std::set<ShapeKey> shapes_of(const std::vector<Problem>& problems, Accum accum) {
  std::set<ShapeKey> out;
  for (const Problem& p : problems)
    if (p.accum == accum) out.insert({p.m, p.n, p.k, p.layout});
  return out;
}

std::string describe(const std::string& gpu, int sm_count, Accum accum) {
  return gpu + " (" + std::to_string(sm_count) + " SMs), " + std::string(to_string(accum));
}

}  // namespace

dispatch::Table merge_tables(const dispatch::Table& existing, const dispatch::Table& tuned,
                             const std::vector<Problem>& retuned) {
  if (existing.gpu != tuned.gpu || existing.sm_count != tuned.sm_count ||
      existing.accum != tuned.accum)
    HGEMM_THROW(HGEMM_ERROR_INTERNAL,
                "cannot merge a table for " + describe(tuned.gpu, tuned.sm_count, tuned.accum) +
                    " into one for " +
                    describe(existing.gpu, existing.sm_count, existing.accum));
  std::set<ShapeKey> replaced = shapes_of(retuned, tuned.accum);
  for (const dispatch::TableEntry& e : tuned.entries) replaced.insert(key_of(e));
  dispatch::Table out = tuned;
  out.entries.clear();
  for (const dispatch::TableEntry& e : existing.entries)
    if (!replaced.count(key_of(e))) out.entries.push_back(e);
  out.entries.insert(out.entries.end(), tuned.entries.begin(), tuned.entries.end());
  std::sort(out.entries.begin(), out.entries.end(),
            [](const auto& a, const auto& b) { return key_of(a) < key_of(b); });
  out.measured_split_k = existing.measured_split_k || tuned.measured_split_k;
  std::set<std::string> blocked(existing.blocked.begin(), existing.blocked.end());
  blocked.insert(tuned.blocked.begin(), tuned.blocked.end());
  out.blocked.assign(blocked.begin(), blocked.end());
  return out;
}

std::optional<dispatch::Table> read_user_table(const std::string& path, const std::string& gpu,
                                               int sm_count, Accum accum) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  dispatch::Table table = dispatch::load_table(path);
  if (table.gpu != gpu || table.sm_count != sm_count || table.accum != accum)
    HGEMM_THROW(HGEMM_ERROR_INTERNAL,
                path + " is a table for " + describe(table.gpu, table.sm_count, table.accum) +
                    ", not " + describe(gpu, sm_count, accum) +
                    ": name another user table, or remove this one");
  return table;
}

dispatch::Table export_problems(const Database& db, Accum accum,
                                const std::vector<Problem>& problems, const std::string& source) {
  dispatch::Table table = export_table(db, accum, source);
  const std::set<ShapeKey> wanted = shapes_of(problems, accum);
  std::erase_if(table.entries, [&](const auto& e) { return !wanted.count(key_of(e)); });
  return table;
}

UserTableWrite update_user_table(const std::string& path, const dispatch::Table& tuned,
                                 const std::vector<Problem>& retuned) {
  const std::optional<dispatch::Table> existing =
      read_user_table(path, tuned.gpu, tuned.sm_count, tuned.accum);
  const dispatch::Table merged =
      existing ? merge_tables(*existing, tuned, retuned) : tuned;
  write_file_atomically(path, dispatch::format_table(merged));
  return {path, merged.entries.size(), tuned.entries.size()};
}

}  // namespace hgemm::tuner
