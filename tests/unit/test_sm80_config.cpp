// The sm80 family's variants on the CPU: its catalog list, the round trip between a config and
// the variant its kernel is instantiated with, and the geometry derived from it (what the kernel
// and its launcher both read: threads, shared memory, the warp tiling).
#include <gtest/gtest.h>

#include <vector>

#include "core/kernel_variant.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/sm80_catalog.hpp"

using hgemm::Accum;
using hgemm::Family;
using hgemm::KernelConfig;
using hgemm::Layout;
using hgemm::Sm80Variant;

namespace {

std::vector<KernelConfig> compiled_sm80() {
  std::vector<KernelConfig> out;
  for (KernelConfig const& c : hgemm::catalog())
    if (c.family == Family::kSm80Mma) out.push_back(c);
  return out;
}

}  // namespace

TEST(Sm80Config, CatalogIsTheListInOrder) {
  const std::vector<KernelConfig> compiled = compiled_sm80();
  ASSERT_EQ(compiled.size(), hgemm::sm80::kCatalog.size());
  for (size_t i = 0; i < compiled.size(); ++i)
    EXPECT_EQ(compiled[i], hgemm::to_config(hgemm::sm80::kCatalog[i])) << compiled[i].name();
}

TEST(Sm80Config, EveryEntryIsLegalAndRoundTrips) {
  for (Sm80Variant const& v : hgemm::sm80::kCatalog) {
    const KernelConfig c = hgemm::to_config(v);
    EXPECT_TRUE(c.validate().ok()) << c.validate().message;
    EXPECT_EQ(hgemm::sm80_variant(c), v) << c.name();
    const auto parsed = KernelConfig::parse(c.name());
    ASSERT_TRUE(parsed.has_value()) << c.name();
    EXPECT_EQ(hgemm::sm80_variant(*parsed), v) << c.name();
    const hgemm::Sm80Geometry g = hgemm::sm80_geometry(v);
    EXPECT_EQ(g.num_threads, c.num_threads()) << c.name();
    EXPECT_EQ(g.smem_bytes, c.smem_bytes()) << c.name();
    EXPECT_LE(g.acc_regs, 128) << c.name();
    EXPECT_EQ(g.warp_m * v.warps_m, v.block_m) << c.name();
    EXPECT_EQ(g.warp_n * v.warps_n, v.block_n) << c.name();
  }
}

TEST(Sm80Config, GeometryOfOneVariant) {
  constexpr Sm80Variant v{.block_m = 128, .block_n = 128, .block_k = 32, .num_stages = 3,
                          .warps_m = 2, .warps_n = 2, .layout = Layout::kNN,
                          .accum = Accum::kF32};
  // constexpr: the kernel's template arguments are computed from it.
  constexpr hgemm::Sm80Geometry g = hgemm::sm80_geometry(v);
  static_assert(g.num_threads == 128);
  EXPECT_EQ(g.smem_bytes, 3 * (128 + 128) * 32 * 2);
  EXPECT_EQ(g.warp_m, 64);
  EXPECT_EQ(g.warp_n, 64);
  EXPECT_EQ(g.atoms_m, 4);
  EXPECT_EQ(g.atoms_n, 8);
  EXPECT_EQ(g.acc_regs, 128);
  EXPECT_TRUE(g.nn);
  Sm80Variant f16 = v;
  f16.accum = Accum::kF16;
  f16.layout = Layout::kTN;
  EXPECT_EQ(hgemm::sm80_geometry(f16).acc_regs, 64);
  EXPECT_FALSE(hgemm::sm80_geometry(f16).nn);
}

TEST(Sm80Config, LaunchArgumentsAreNotPartOfTheVariant) {
  KernelConfig c = hgemm::to_config(hgemm::sm80::kCatalog[0]);
  c.split_k = 4;
  EXPECT_EQ(hgemm::sm80_variant(c), hgemm::sm80::kCatalog[0]);
  EXPECT_EQ(hgemm::to_config(hgemm::sm80_variant(c)), c.instance());
}

TEST(Sm80Config, IllegalVariantsAreRefused) {
  KernelConfig c = hgemm::to_config(hgemm::sm80::kCatalog[0]);
  c.warps_m = 3;  // not a power-of-two warp grid
  EXPECT_FALSE(c.validate().ok());
  c = hgemm::to_config(hgemm::sm80::kCatalog[0]);
  c.block_n = 256;
  c.warps_n = 1;  // 128x256 over two warps: 256 accumulators per thread
  EXPECT_GT(hgemm::sm80_geometry(hgemm::sm80_variant(c)).acc_regs, 128);
  EXPECT_FALSE(c.validate().ok());
}
