// The promoted source rewrites a process knows: the rows of src/kernels/sm90/variants/
// promoted.list that this build compiled into the library (CMakeLists.txt generates the table and
// one catalog translation unit per row), then the rows a program compiled into itself and added
// (a test's fixture catalog, registry::add_promoted). KernelConfig::validate() accepts a source
// name only from here, so a config naming a rewrite this process lacks is refused by name.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hgemm {

struct PromotedSource {
  std::string_view name;    // its SourceName
  std::string_view config;  // the config it was verified and measured as (without the source)
  std::string_view text;    // the whole replacement of kernels/sm90/sm90_ws.cuh
};

// This build's rows (generated from promoted.list; none without one).
std::span<const PromotedSource> built_promoted_sources();

// This build's rows, then the added ones, in order.
std::vector<PromotedSource> promoted_sources();
std::optional<PromotedSource> find_promoted_source(std::string_view name);

// Adds rows whose views outlive the process (string literals of generated code). Throws
// hgemm::Error for a name that is not a SourceName or is already known, or a config that does not
// parse: two texts under one name would make a config name ambiguous.
void add_promoted_sources(std::span<const PromotedSource> rows);

}  // namespace hgemm
