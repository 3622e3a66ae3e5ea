#include "dispatch/locate.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <mutex>
#include <optional>

#include "core/env.hpp"

namespace hgemm::dispatch {
namespace fs = std::filesystem;

std::string gpu_slug(std::string_view gpu_name) {
  std::string out;
  for (char ch : gpu_name) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) out += char(std::tolower(c));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown-gpu" : out;
}

std::string table_file_name(std::string_view gpu_name, Accum accum) {
  return gpu_slug(gpu_name) + "-" + std::string(to_string(accum)) + ".table";
}

std::vector<std::string> shipped_table_dirs() {
  // The object that holds this function: libhgemm.so when linked shared, else the executable.
  // dladdr names the main program as it was invoked, so /proc/self/exe backs it up.
  std::vector<fs::path> binaries;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&shipped_table_dirs), &info) && info.dli_fname &&
      *info.dli_fname)
    binaries.emplace_back(info.dli_fname);
  std::error_code ec;
  if (fs::path exe = fs::read_symlink("/proc/self/exe", ec); !ec) binaries.push_back(exe);
  std::vector<std::string> dirs;
  for (const fs::path& binary : binaries) {
    const fs::path resolved = fs::weakly_canonical(fs::absolute(binary, ec), ec);
    if (ec) continue;
    const fs::path dir = resolved.parent_path();
    for (const fs::path& d : {dir.parent_path() / "share/hgemm/tables", dir / "share/hgemm/tables"}) {
      const std::string s = d.lexically_normal().string();
      if (std::find(dirs.begin(), dirs.end(), s) == dirs.end()) dirs.push_back(s);
    }
  }
  return dirs;
}

namespace {

// The directories a table is looked for in, the device's own and other GPUs' alike: $HGEMM_DB
// when it names a directory, else the shipped ones; nullopt when $HGEMM_DB names a file, which is
// then the one table.
std::optional<std::vector<std::string>> table_dirs() {
  const std::string db = env::db();
  if (db.empty()) return shipped_table_dirs();
  std::error_code ec;
  if (fs::is_directory(db, ec)) return std::vector<std::string>{db};
  return std::nullopt;
}

}  // namespace

TableLocation locate_shipped_table(std::string_view gpu_name, Accum accum) {
  const std::string file = table_file_name(gpu_name, accum);
  const std::optional<std::vector<std::string>> dirs = table_dirs();
  if (!dirs) {
    const std::string db = env::db();
    if (db.ends_with(".jsonl") || db.ends_with(".jsonl.gz"))
      return {{}, "HGEMM_DB=" + db + " is a tuning history (JSONL); dispatch reads dispatch "
                  "tables: write one with 'hgemm db export " + db + " --table FILE'"};
    return {db, {}};
  }
  std::error_code ec;
  for (const std::string& dir : *dirs)
    if (fs::path p = fs::path(dir) / file; fs::is_regular_file(p, ec)) return {p.string(), {}};
  std::string looked;
  for (const std::string& dir : *dirs) looked += (looked.empty() ? "" : ", ") + dir;
  return {{}, "no dispatch table " + file + " (looked in " + (looked.empty() ? "nothing" : looked) +
                 "; HGEMM_DB names another)"};
}

std::vector<std::string> other_gpus_tables(std::string_view gpu_name, Accum accum) {
  const std::optional<std::vector<std::string>> dirs = table_dirs();
  if (!dirs) return {};
  const std::string own = table_file_name(gpu_name, accum);
  // Appended piece by piece: "-" + std::string&& trips gcc 12's -Wrestrict false positive.
  std::string suffix = "-";
  suffix.append(to_string(accum)).append(".table");
  std::error_code ec;
  std::vector<std::string> found;
  for (const std::string& dir : *dirs) {
    std::vector<std::string> here;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      if (name != own && name.ends_with(suffix) && e.is_regular_file(ec))
        here.push_back(e.path().string());
    }
    std::sort(here.begin(), here.end());  // the directory's order is the file system's
    found.insert(found.end(), here.begin(), here.end());
  }
  return found;
}

namespace {
std::mutex g_override_mutex;
std::string g_user_table_override;
}  // namespace

void set_user_table_override(std::string path) {
  std::lock_guard lock(g_override_mutex);
  g_user_table_override = std::move(path);
}

std::string user_table_path(std::string_view gpu_name, Accum accum) {
  {
    std::lock_guard lock(g_override_mutex);
    if (!g_user_table_override.empty()) return g_user_table_override;
  }
  if (std::string path = env::user_table(); !path.empty()) return path;
  const std::string home = env::cache_home();
  return home.empty() ? home : home + "/tables/" + table_file_name(gpu_name, accum);
}

}  // namespace hgemm::dispatch
