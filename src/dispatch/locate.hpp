// Where dispatch finds its tables. Never through the source tree: the shipped tables sit beside
// the library, found from the path of the shared object (or executable) that holds this code.
//
//   shipped  $HGEMM_DB (a table file, or a directory holding <slug>-<acc>.table), else the first
//            of <dir>/../share/hgemm/tables/ and <dir>/share/hgemm/tables/ that has the file,
//            <dir> being the library's (installed: <prefix>/lib) or the executable's directory
//            (the build tree: build/, build/tests/); where neither holds the device's own
//            table, another GPU's table there (other_gpus_tables) if its GPU has the device's
//            architecture and SM count (dispatch.hpp, LoadedTable)
//   user     the path set by hgemmSetUserTable, else $HGEMM_USER_TABLE, else <cache>/tables/<slug>-<acc>.table with <cache> from
//            env::cache_home() ($XDG_CACHE_HOME/hgemm or ~/.cache/hgemm); hgemm tune writes it
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hgemm/hgemm.hpp"

namespace hgemm::dispatch {

// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"
std::string gpu_slug(std::string_view gpu_name);
// "<slug>-<acc>.table"
std::string table_file_name(std::string_view gpu_name, Accum accum);

// The directories searched for shipped tables, in order (without $HGEMM_DB).
std::vector<std::string> shipped_table_dirs();

struct TableLocation {
  std::string path;      // "" when nothing was found
  std::string problem;   // why there is no usable path ("" when `path` is set or none is expected)
};

TableLocation locate_shipped_table(std::string_view gpu_name, Accum accum);
// The tables of `accum` tuned on other GPUs, where a device with none of its own looks next
// (dispatch takes the first of the same architecture and SM count): the files of $HGEMM_DB when
// it is a directory (none when it names a file), else of the shipped directories, in order and
// by name within each.
std::vector<std::string> other_gpus_tables(std::string_view gpu_name, Accum accum);
// The path the user table has (it may not exist); "" when no cache directory is known.
std::string user_table_path(std::string_view gpu_name, Accum accum);
// A path user_table_path() returns ahead of $HGEMM_USER_TABLE (hgemmSetUserTable); "" clears it.
void set_user_table_override(std::string path);

}  // namespace hgemm::dispatch
