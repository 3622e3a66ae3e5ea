#include "core/promoted.hpp"

#include <mutex>

#include "core/error.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm {
namespace {

struct Added {
  std::mutex mu;
  std::vector<PromotedSource> rows;
};

Added& added() {
  static Added* a = new Added;  // never destroyed: validate() may run during exit
  return *a;
}

}  // namespace

std::vector<PromotedSource> promoted_sources() {
  const std::span<const PromotedSource> built = built_promoted_sources();
  std::vector<PromotedSource> out(built.begin(), built.end());
  std::lock_guard lock(added().mu);
  out.insert(out.end(), added().rows.begin(), added().rows.end());
  return out;
}

std::optional<PromotedSource> find_promoted_source(std::string_view name) {
  for (const PromotedSource& row : built_promoted_sources())
    if (row.name == name) return row;
  std::lock_guard lock(added().mu);
  for (const PromotedSource& row : added().rows)
    if (row.name == name) return row;
  return std::nullopt;
}

void add_promoted_sources(std::span<const PromotedSource> rows) {
  for (const PromotedSource& row : rows) {
    if (row.name.empty() || !SourceName::from(row.name)) {
      // Appended piece by piece: "'" + std::string&& trips gcc 12's -Wrestrict (a false
      // positive in its inlined memcpy).
      std::string why = "'";
      why.append(row.name).append(
          "' is not a promoted source name (lower-case letters, digits and _, starting with a "
          "letter, at most 64)");
      HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED, why);
    }
    const auto config = KernelConfig::parse(row.config);
    if (!config || !config->source.empty())
      HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED,
                  std::string(row.name) + ": '" + std::string(row.config) +
                      "' is not a config name of the family header");
    if (find_promoted_source(row.name))
      HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED,
                  "promoted source '" + std::string(row.name) + "' is already known");
    std::lock_guard lock(added().mu);
    added().rows.push_back(row);
  }
}

}  // namespace hgemm
