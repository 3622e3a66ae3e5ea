// The user table: the dispatch table `hgemm tune` keeps for the user's own shapes, beside the
// shipped one (dispatch/locate.hpp says where; dispatch.hpp how its entries win). Its winners are
// chosen exactly as `hgemm db export --table` chooses them (export_table), only restricted to the
// shapes a run tuned, and merged into what the file already holds: the user table collects the
// shapes of many runs, possibly from several databases.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dispatch/table.hpp"
#include "hgemm/hgemm.hpp"
#include "tuner/db/database.hpp"

namespace hgemm::tuner {

// `existing`'s entries for shapes (m, n, k, layout) that `tuned` does not list, plus `tuned`'s;
// every shape in `retuned` takes `tuned`'s entry or none (a re-tuned shape without a passing
// config must not keep a winner that may since have been blocked). Header fields come from
// `tuned`; blocked configs and the split-K fact are the union of both. Throws hgemm::Error when
// the two tables are for different GPUs, SM counts or accumulations.
dispatch::Table merge_tables(const dispatch::Table& existing, const dispatch::Table& tuned,
                             const std::vector<Problem>& retuned);

// The table at `path`, if a file is there, checked to take entries for `gpu`, `sm_count` and
// `accum`. Throws hgemm::Error naming the path when it cannot be read or parsed, or when it was
// written for another device or accumulation: it is the user's tuning, never overwritten blind.
std::optional<dispatch::Table> read_user_table(const std::string& path, const std::string& gpu,
                                               int sm_count, Accum accum);

struct UserTableWrite {
  std::string path;
  size_t entries = 0;  // in the file now
  size_t written = 0;  // of those, from this update
};

// export_table(db, accum, source) restricted to the entries of `problems` (the others'
// accumulation is ignored): what a tuning run adds to the user table.
dispatch::Table export_problems(const Database& db, Accum accum,
                                const std::vector<Problem>& problems, const std::string& source);

// `tuned` merged (merge_tables) into the table at `path`, which is created, with its directory,
// when missing, and replaced atomically. Throws hgemm::Error as read_user_table does, or when the
// file cannot be written.
UserTableWrite update_user_table(const std::string& path, const dispatch::Table& tuned,
                                 const std::vector<Problem>& retuned);

}  // namespace hgemm::tuner
