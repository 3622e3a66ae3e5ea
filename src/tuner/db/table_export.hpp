// The tuner's side of the dispatch table: a JSONL history reduced to what dispatch reads.
#pragma once

#include <string>

#include "dispatch/table.hpp"
#include "tuner/db/database.hpp"

namespace hgemm::tuner {

// The winners of `db` for `accum` as its own device would see them through this build's catalog
// (TunedTable::find for every tuned problem), with its blocklist and split-K facts. The header's
// GPU and SM count come from the database's fingerprint; `source` names the database (a file
// name, so the same history exports the same bytes wherever it lies). Throws hgemm::Error when
// the database names no GPU.
dispatch::Table export_table(const Database& db, Accum accum, const std::string& source);

}  // namespace hgemm::tuner
