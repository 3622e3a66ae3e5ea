#include "tuner/db/table_export.hpp"

#include <cstdlib>

#include "core/error.hpp"
#include "tuner/db/tuned_table.hpp"
#include "tuner/space/space.hpp"

namespace hgemm::tuner {

dispatch::Table export_table(const Database& db, Accum accum, const std::string& source) {
  dispatch::Table t;
  t.gpu = fingerprint_value(db.header, "gpu");
  if (t.gpu.empty())
    HGEMM_THROW(HGEMM_ERROR_INTERNAL, source + " names no GPU in its header: not a tuning database");
  t.sm_count = std::atoi(fingerprint_value(db.header, "sm_count").c_str());
  if (t.sm_count <= 0)
    HGEMM_THROW(HGEMM_ERROR_INTERNAL, source + " names no SM count in its header");
  t.accum = accum;
  t.source = source;
  // The catalog alone, whatever HGEMM_JIT says: the table must not depend on the exporting
  // process's environment.
  const TunedTable table(db, SearchSpace::from_catalog(database_device(db.header)),
                         /*exact=*/true);
  t.measured_split_k = table.measured_split_k();
  for (const auto& [name, why] : table.blocklist())
    if (auto c = KernelConfig::parse(name); c && c->accum == accum) t.blocked.push_back(name);
  for (const auto& [key, entry] : table.entries())
    if (key.accum == accum)
      t.entries.push_back(
          {key.m, key.n, key.k, key.layout, entry.config, entry.searched_split_k, entry.timed});
  return t;
}

}  // namespace hgemm::tuner
