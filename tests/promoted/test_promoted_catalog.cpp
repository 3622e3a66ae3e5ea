// CPU tests of a promoted source rewrite as a catalog entry, over the tests' fixture catalog
// (promoted_fixture.hpp: tests/data/promoted/promoted.list compiled by cmake/promoted_catalog.cmake
// as the library compiles the real list): the registry holds its instance under its config with
// the source, apart from the family header's kernel of the same tile; catalog() lists it after
// the family header's; the search space offers it wherever its base config is a candidate and
// the JIT's declared instances by name; the JIT builds one the catalog lacks from the rewrite;
// dispatch runs it from a table, and refuses a table's rewrite this build lacks by name. Its own
// program, since the fixture must be registered before the catalog is first used. The GPU half:
// tests/gpu/test_promoted_variants.cu.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/promoted.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/table.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/launch.hpp"
#include "launch/sm90_catalog.hpp"
#include "launch/sm90_jit.hpp"
#include "promoted_fixture.hpp"
#include "registry/registry.hpp"
#include "tuner/space/space.hpp"

namespace hgemm {
namespace {

namespace fs = std::filesystem;

KernelConfig parse(const char* name) {
  const auto c = KernelConfig::parse(name);
  EXPECT_TRUE(c.has_value()) << name;
  return c.value_or(KernelConfig{});
}

TEST(PromotedCatalog, RegistryHoldsTheRewriteApartFromTheFamilyHeader) {
  const KernelConfig promoted = parse(fixture::kPromoted);
  const KernelConfig stock = parse(fixture::kConfig);
  ASSERT_TRUE(promoted.validate().ok()) << promoted.validate().message;
  const KernelInstance* rewrite = registry::find(promoted);
  const KernelInstance* family = registry::find(stock);
  ASSERT_NE(rewrite, nullptr);
  ASSERT_NE(family, nullptr);
  EXPECT_TRUE(registry::compiled_ahead(promoted));
  EXPECT_EQ(rewrite->config, promoted.instance());
  EXPECT_EQ(family->config, stock.instance());
  // Another kernel type, so another launcher (and host stub) than the family header's.
  EXPECT_NE(rewrite->launch, family->launch);
  EXPECT_FALSE(registry::compiled_ahead(parse(fixture::kOutsideCatalog)));
}

TEST(PromotedCatalog, CatalogListsRewritesAfterTheFamilyHeaders) {
  const std::vector<KernelConfig> all = catalog();
  const auto first = std::find_if(all.begin(), all.end(),
                                  [](const KernelConfig& c) { return !c.source.empty(); });
  ASSERT_NE(first, all.end());
  EXPECT_TRUE(std::all_of(first, all.end(), [](const KernelConfig& c) { return !c.source.empty(); }));
  EXPECT_EQ(size_t(std::count_if(all.begin(), first,
                                 [](const KernelConfig& c) { return c.family == Family::kSm90Ws; })),
            sm90::kCatalog.size());
  EXPECT_NE(std::find(first, all.end(), parse(fixture::kPromoted).instance()), all.end());
}

// Wherever the row's config runs with some raster, group and split-K, its twin from the rewrite
// runs with the same ones, and nowhere else.
TEST(PromotedCatalog, SpaceOffersTheRewriteWhereverItsBaseIs) {
  const tuner::SearchSpace space = tuner::SearchSpace::from_catalog(tuner::nominal_device());
  const KernelConfig base = parse(fixture::kConfig).instance();
  int offered = 0;
  for (const Problem& p : {Problem{4096, 4096, 4096}, Problem{1000, 1000, 1000},
                           Problem{128, 4096, 4096}, Problem{4096, 4096, 4096, Layout::kNN},
                           Problem{512, 512, 512, Layout::kTN, Accum::kF16}}) {
    std::vector<std::string> bases, twins;
    for (const KernelConfig& c : space.enumerate(p)) {
      KernelConfig stock = c;
      stock.source = SourceName{};
      if (stock.instance() != base) continue;
      (c.source.empty() ? bases : twins).push_back(stock.name());
    }
    EXPECT_EQ(bases, twins) << p.name();
    offered += int(twins.size());
  }
  EXPECT_GT(offered, 0);
  const KernelConfig promoted = parse(fixture::kPromoted);
  const std::vector<KernelConfig> near = space.neighbors(promoted);
  EXPECT_FALSE(near.empty());
  for (const KernelConfig& c : near) EXPECT_EQ(c.source, promoted.source) << c.name();
}

TEST(PromotedCatalog, DeclaredInstancesOfferTheRewriteByName) {
  const tuner::SearchSpace space = tuner::SearchSpace::from_catalog(tuner::nominal_device());
  const std::vector<KernelConfig> named =
      space.declared_instances({std::string("src-") + fixture::kSource});
  EXPECT_GT(named.size(), 100u);
  for (const KernelConfig& c : named) EXPECT_EQ(c.source.view(), fixture::kSource) << c.name();
  EXPECT_NE(std::find(named.begin(), named.end(), parse(fixture::kOutsideCatalog).instance()),
            named.end());
  // The row's own config is compiled, so the JIT has nothing to add there.
  EXPECT_EQ(std::find(named.begin(), named.end(), parse(fixture::kPromoted).instance()),
            named.end());
  for (const KernelConfig& c : space.declared_instances({"all"}))
    ASSERT_TRUE(c.source.empty()) << c.name() << ": 'all' means the family header's instances";
}

// The JIT builds a config of the rewrite that the catalog lacks from the rewrite's text, and the
// generated source carries the source, so the kernel is the type the catalog would have.
TEST(PromotedCatalog, JitBuildsTheRewriteOutsideTheCatalog) {
  const KernelConfig outside = parse(fixture::kOutsideCatalog);
  KernelConfig stock = outside;
  stock.source = SourceName{};
  const std::string source = jit::sm90_source(outside);
  EXPECT_NE(source.find(std::string(".source = pack_source(*SourceName::from(\"") +
                        fixture::kSource + "\"))"),
            std::string::npos)
      << source;
  EXPECT_EQ(jit::sm90_source(stock).find(".source"), std::string::npos);

  const fs::path cache = fs::temp_directory_path() / ("hgemm-promoted-jit-" + std::to_string(::getpid()));
  jit::Options options = jit::Options::from_env();
  options.cache_dir = cache.string();
  const jit::CacheKey key = jit::cache_key(outside, options);
  EXPECT_NE(key.hex, jit::cache_key(stock, options).hex);
  EXPECT_NE(key.material.find("override: kernels/sm90/sm90_ws.cuh"), std::string::npos);
  EXPECT_NE(key.material.find(std::string(find_promoted_source(fixture::kSource)->text)),
            std::string::npos);
  const jit::Artifact built = jit::build({outside}, options).front();
  EXPECT_TRUE(built.status.ok()) << built.status.message;
  EXPECT_EQ(built.config, outside.instance());
  EXPECT_TRUE(fs::exists(built.cubin_path)) << built.cubin_path;

  // A caller's own override cannot stand in for the promoted source.
  options.header_override = jit::HeaderOverride{"kernels/sm90/sm90_ws.cuh", "// other"};
  const jit::Artifact refused = jit::build({outside}, options).front();
  EXPECT_FALSE(refused.status.ok());
  EXPECT_NE(refused.status.message.find("built from its promoted source"), std::string::npos)
      << refused.status.message;
  std::error_code ec;
  fs::remove_all(cache, ec);
}

TEST(PromotedCatalog, DispatchRunsTheRewriteFromATableAndRefusesOneItLacks) {
  const DeviceInfo d = tuner::nominal_device();
  const Problem p{4096, 4096, 4096};
  const dispatch::LoadedTable none = dispatch::LoadedTable::none("", "");

  // The name survives the table's text form.
  const KernelConfig promoted = parse(fixture::kPromoted);
  const dispatch::Table parsed = dispatch::parse_table(
      dispatch::format_table(fixture::table_naming(promoted, {p}, d)), "promoted.table");
  ASSERT_EQ(parsed.entries.size(), 1u);
  EXPECT_EQ(parsed.entries[0].config.name(), fixture::kPromoted);

  const dispatch::LoadedTable user(parsed, "promoted.table", d);
  const dispatch::Decision got = dispatch::decide(p, stand_in_args(p), d, {&user, &none});
  EXPECT_EQ(got.config.name(), fixture::kPromoted) << got.reason;
  EXPECT_EQ(got.source, dispatch::Source::kUserTable);
  ASSERT_NE(got.instance, nullptr);
  EXPECT_EQ(got.instance, registry::find(promoted));

  // A table from a build that has a rewrite this one lacks ($HGEMM_DB naming it): parsed, then
  // refused with its name. (A user table's entry that cannot run is passed over, as before.)
  KernelConfig missing = parse(fixture::kConfig);
  missing.source = *SourceName::from("not_in_this_build");
  const dispatch::Table other = dispatch::parse_table(
      dispatch::format_table(fixture::table_naming(missing, {p}, d)), "other.table");
  const dispatch::LoadedTable foreign(other, "other.table", d);
  const dispatch::Decision fallback = dispatch::decide(p, stand_in_args(p), d, {&none, &foreign});
  EXPECT_TRUE(fallback.config.source.empty()) << fallback.config.name();
  EXPECT_EQ(fallback.source, dispatch::Source::kHeuristic);
  EXPECT_NE(fallback.reason.find("no promoted source 'not_in_this_build'"), std::string::npos)
      << fallback.reason;
}

}  // namespace
}  // namespace hgemm

int main(int argc, char** argv) {
  hgemm::fixture::register_catalog();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
