// The sm90 family's variants on the CPU: the catalog list and its expansion, the round trip
// between a config and the variant its kernel is instantiated with, and the geometry derived from
// it, which the kernel's Traits, the launcher's tensor maps and the JIT all read.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/kernel_variant.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/sm90_catalog.hpp"

using hgemm::Accum;
using hgemm::Epilogue;
using hgemm::Family;
using hgemm::KernelConfig;
using hgemm::Layout;
using hgemm::Schedule;
using hgemm::Sm90Variant;

TEST(Sm90Variant, CatalogIsTheExpandedListInOrder) {
  std::vector<KernelConfig> compiled;
  for (KernelConfig const& c : hgemm::catalog())
    if (c.family == Family::kSm90Ws && c.source.empty()) compiled.push_back(c);
  ASSERT_EQ(compiled.size(), hgemm::sm90::kCatalog.size());
  for (size_t i = 0; i < compiled.size(); ++i)
    EXPECT_EQ(compiled[i], hgemm::to_config(hgemm::sm90::kCatalog[i])) << compiled[i].name();
  // Each row gives every layout its config is valid in of each of its accumulations and element
  // types (bf16: fp32 accumulation alone): the catalog's rule and KernelConfig::validate agree.
  size_t expanded = 0;
  for (auto const& row : hgemm::sm90::kCatalogRows)
    for (hgemm::Accum accum : {hgemm::Accum::kF32, hgemm::Accum::kF16})
      for (hgemm::DType dtype : {hgemm::DType::kF16, hgemm::DType::kBF16})
        for (hgemm::Layout layout : {hgemm::Layout::kNN, hgemm::Layout::kTN}) {
          if (row.fp16_only && accum == hgemm::Accum::kF32) continue;
          Sm90Variant v = row.variant;
          v.accum = accum;
          v.dtype = dtype;
          v.layout = layout;
          expanded += hgemm::to_config(v).validate().ok();
        }
  EXPECT_EQ(expanded, hgemm::sm90::kCatalog.size());
}

TEST(Sm90Variant, EveryEntryIsLegalAndRoundTrips) {
  std::set<std::string> names;
  for (Sm90Variant const& v : hgemm::sm90::kCatalog) {
    const KernelConfig c = hgemm::to_config(v);
    EXPECT_TRUE(c.validate().ok()) << c.validate().message;
    EXPECT_TRUE(names.insert(c.name()).second) << "twice: " << c.name();
    EXPECT_EQ(hgemm::sm90_variant(c), v) << c.name();
    const auto parsed = KernelConfig::parse(c.name());
    ASSERT_TRUE(parsed.has_value()) << c.name();
    EXPECT_EQ(hgemm::sm90_variant(*parsed), v) << c.name();
    const hgemm::Sm90Geometry g = hgemm::sm90_geometry(v);
    EXPECT_EQ(g.num_threads, c.num_threads()) << c.name();
    EXPECT_EQ(g.smem_bytes, c.smem_bytes()) << c.name();
  }
}

// Dispatch's TMA-store step (dispatch/neighbors.cpp, store_through_tma) turns a swap-AB pick with
// direct stores into its twin: every twin the catalog compiles has that direct-store tile beside
// it, and runs its ring, or the deepest one that fits beside the C staging where that is less;
// where the staging comes in chunks of 16 rows of C, the deepest that stages the whole tile.
TEST(Sm90Variant, EverySwapAbTmaTwinHasItsDirectStoreTileAndItsRingWhereItFits) {
  int twins = 0;
  for (Sm90Variant const& v : hgemm::sm90::kCatalog) {
    if (!v.swap_ab || v.epilogue != Epilogue::kTmaStore) continue;
    ++twins;
    const KernelConfig twin = hgemm::to_config(v);
    int direct_stages = 0;
    for (Sm90Variant const& w : hgemm::sm90::kCatalog) {
      Sm90Variant same = w;
      same.epilogue = Epilogue::kTmaStore;
      same.num_stages = v.num_stages;
      if (w.epilogue == Epilogue::kDirect && same == v) direct_stages = w.num_stages;
    }
    ASSERT_GT(direct_stages, 0) << "no direct-store tile for " << twin.name();
    EXPECT_LE(v.num_stages, direct_stages) << twin.name();
    if (v.num_stages < direct_stages) {
      Sm90Variant deeper = v;
      ++deeper.num_stages;
      const hgemm::Sm90Geometry g = hgemm::sm90_geometry(deeper);
      const bool double_buffered_16 =
          g.c_chunk == 16 && g.smem.staging_buffers * g.c_chunk < deeper.block_n;
      EXPECT_TRUE(hgemm::to_config(deeper).validate().message.find("shared memory") !=
                      std::string::npos ||
                  double_buffered_16)
          << hgemm::to_config(deeper).name();
      const hgemm::Sm90Geometry own = hgemm::sm90_geometry(v);
      if (double_buffered_16)
        EXPECT_EQ(own.smem.staging_buffers * own.c_chunk, v.block_n) << twin.name();
    }
  }
  // Twenty-seven tiles, each in both layouts and accumulations and in bf16 (TN and NN).
  EXPECT_EQ(twins, 27 * 6);
}

TEST(Sm90Variant, GeometryOfTheWorkhorse) {
  constexpr Sm90Variant tn{.block_m = 128, .block_n = 256, .block_k = 64, .num_stages = 3,
                           .num_consumer_wgs = 2, .cluster_m = 2, .cluster_n = 1,
                           .epilogue = Epilogue::kTmaStore};
  constexpr hgemm::Sm90Geometry g = hgemm::sm90_geometry(tn);
  static_assert(g.num_threads == 384);
  EXPECT_EQ(g.smem_bytes, 215040);  // what `hgemm info` listed before variants were one struct
  EXPECT_EQ(g.cluster_size, 2);
  EXPECT_TRUE(g.tma_store);
  EXPECT_TRUE(g.b_k_major);
  EXPECT_EQ(g.wg_rows, 64);
  EXPECT_EQ(g.a_box_outer, 128);  // no cluster along N: A is not multicast
  EXPECT_EQ(g.a_box_inner, 64);
  EXPECT_EQ(g.a_swizzle, 128);
  EXPECT_EQ(g.b_box_outer, 128);  // each CTA of the 2x1 cluster loads half of B's 256 rows
  EXPECT_EQ(g.b_box_inner, 64);
  EXPECT_EQ(g.c_box_outer, 64);
  EXPECT_EQ(g.c_box_inner, 64);
  EXPECT_EQ(g.c_swizzle, 128);
  EXPECT_EQ(g.smem.staging_buffers, 4);  // the whole C tile is staged

  // The general flavour's twin for a column-major A: 64-row chunks of BK k-rows, like NN's B.
  Sm90Variant at = tn;
  at.general = true;
  at.a_mn_major = true;
  const hgemm::Sm90Geometry ga = hgemm::sm90_geometry(at);
  EXPECT_FALSE(ga.a_k_major);
  EXPECT_EQ(ga.a_chunk, 64);
  EXPECT_EQ(ga.a_box_inner, 64);
  EXPECT_EQ(ga.a_box_outer, 64);  // BK k-rows
  EXPECT_EQ(ga.a_swizzle, 128);
  EXPECT_EQ(ga.smem_bytes, g.smem_bytes);  // the same bytes, laid out M-major

  Sm90Variant nn = tn;
  nn.layout = Layout::kNN;
  const hgemm::Sm90Geometry gn = hgemm::sm90_geometry(nn);
  EXPECT_FALSE(gn.b_k_major);
  EXPECT_EQ(gn.b_chunk, 64);
  EXPECT_EQ(gn.b_box_outer, 32);  // N-major B splits its 64 k-rows over the cluster
  EXPECT_EQ(gn.smem_bytes, g.smem_bytes);
  EXPECT_EQ(gn.b_tail, 0);
}

// NN's B of 64 q + 32 columns: q chunks of 64 (128-byte swizzle) and a 32-column tail chunk
// (64-byte swizzle); widths of whole 64-column chunks, K-major B and narrow tiles have no tail.
TEST(Sm90Variant, NnBTakesChunksOf64AndATailOf32) {
  auto nn = [](int block_m, int block_n, bool swap) {
    return hgemm::sm90_geometry(Sm90Variant{.block_m = block_m, .block_n = block_n,
                                            .block_k = 64, .num_stages = 4,
                                            .num_consumer_wgs = 1, .layout = Layout::kNN,
                                            .swap_ab = swap});
  };
  for (int block_n : {96, 160}) {
    const hgemm::Sm90Geometry g = nn(64, block_n, false);
    EXPECT_EQ(g.b_chunk, 64) << block_n;
    EXPECT_EQ(g.b_swizzle, 128) << block_n;
    EXPECT_EQ(g.b_box_inner, 64) << block_n;
    EXPECT_EQ(g.b_tail, 32) << block_n;
    EXPECT_EQ(g.b_tail_swizzle, 64) << block_n;
  }
  for (int block_n : {32, 64, 128, 192, 224, 256}) {
    const hgemm::Sm90Geometry g = nn(64, block_n, false);
    EXPECT_EQ(g.b_tail, 0) << block_n;
    EXPECT_EQ(g.b_chunk, block_n % 64 == 0 ? 64 : 32) << block_n;
  }
  EXPECT_EQ(nn(96, 64, true).b_tail, 0);  // swap-AB's B is K-major
  EXPECT_EQ(hgemm::sm90_geometry(Sm90Variant{.block_m = 64, .block_n = 96}).b_tail, 0);  // TN
}

// A swap-AB variant's flavour for a column-major A reads its B (that A) N-major, in column chunks
// as NN's B, in either layout; its A stays the problem's B (K-major in TN, M-major in NN). Every
// swap-AB row that compiles it has such chunks: a width that is a multiple of 16, one m64 wgmma
// per atom, whose chunks are 32 or 64 columns.
TEST(Sm90Variant, SwapAbReadsAColumnMajorAAsAnNMajorB) {
  for (const Layout layout : {Layout::kTN, Layout::kNN})
    for (const int block_n : {16, 32, 80, 96, 192}) {
      Sm90Variant v{.block_m = 128, .block_n = block_n, .block_k = 64, .num_stages = 4,
                    .num_consumer_wgs = 2, .layout = layout, .swap_ab = true};
      EXPECT_TRUE(hgemm::sm90_geometry(v).b_k_major);
      v.a_mn_major = true;
      const hgemm::Sm90Geometry g = hgemm::sm90_geometry(v);
      EXPECT_FALSE(g.b_k_major) << block_n;
      EXPECT_EQ(g.a_k_major, layout == Layout::kTN) << block_n;
      const int chunk = block_n == 96 || block_n % 64 == 0 ? 64 : block_n % 32 == 0 ? 32 : 16;
      EXPECT_EQ(g.b_chunk, chunk) << block_n;
      EXPECT_EQ(g.b_tail, block_n == 96 ? 32 : 0) << block_n;
      EXPECT_EQ(g.b_box_inner, g.b_chunk) << block_n;
      EXPECT_EQ(g.b_box_outer, 64) << block_n;
    }
  int rows = 0;
  for (const hgemm::sm90::CatalogRow& row : hgemm::sm90::kCatalogRows) {
    if (!row.with_column_major_a) continue;
    ++rows;
    EXPECT_TRUE(row.variant.swap_ab);
    EXPECT_EQ(row.variant.block_n % 32, 0) << row.variant.block_n;
    EXPECT_TRUE(hgemm::sm90::has_column_major_flavour(row.variant));
    EXPECT_FALSE(hgemm::sm90::has_general_flavour(row.variant));
  }
  EXPECT_EQ(rows, 8);
}

TEST(Sm90Variant, PingPongWarpgroupsOwnWholeTiles) {
  constexpr Sm90Variant pp{.block_m = 128, .block_n = 128, .block_k = 64, .num_stages = 5,
                           .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 2,
                           .epilogue = Epilogue::kTmaStore, .schedule = Schedule::kPingPong};
  const hgemm::Sm90Geometry g = hgemm::sm90_geometry(pp);
  EXPECT_TRUE(g.ping_pong);
  EXPECT_EQ(g.wg_rows, 128);
  EXPECT_EQ(g.c_box_outer, 128);
  EXPECT_EQ(g.slot_consumer_warps, 4);
  EXPECT_EQ(g.a_box_outer, 64);  // the 1x2 cluster multicasts A
  Sm90Variant coop = pp;
  coop.schedule = Schedule::kCooperative;
  EXPECT_EQ(hgemm::sm90_geometry(coop).wg_rows, 64);
  EXPECT_EQ(hgemm::sm90_geometry(coop).slot_consumer_warps, 8);
}

TEST(Sm90Variant, LaunchArgumentsAreNotPartOfTheVariant) {
  KernelConfig c = hgemm::to_config(hgemm::sm90::kCatalog[0]);
  c.split_k = 4;
  c.raster = hgemm::Raster::kAlongN;
  c.group_size = 4;
  EXPECT_EQ(hgemm::sm90_variant(c), hgemm::sm90::kCatalog[0]);
  EXPECT_EQ(hgemm::to_config(hgemm::sm90_variant(c)), c.instance());
}

// Swap-AB: the config names the problem's M and N, the variant the kernel's (M on wgmma's N).
TEST(Sm90Variant, SwapAbConfigsNameTheProblemAndVariantsTheKernel) {
  const auto c = KernelConfig::parse("sm90_ws_80x128x64_s8_c2x1_w2_n4_st_sk2_f32_tn_swap");
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->swap_ab);
  EXPECT_EQ(c->block_m, 80);
  EXPECT_EQ(c->block_n, 128);
  EXPECT_EQ(c->cluster_m, 2);
  EXPECT_TRUE(c->validate().ok()) << c->validate().message;
  const Sm90Variant v = hgemm::sm90_variant(*c);
  EXPECT_TRUE(v.swap_ab);
  EXPECT_EQ(v.block_m, 128);  // N on wgmma's M
  EXPECT_EQ(v.block_n, 80);   // M on wgmma's N
  EXPECT_EQ(v.cluster_m, 1);
  EXPECT_EQ(v.cluster_n, 2);
  EXPECT_EQ(hgemm::to_config(v), c->instance());
  EXPECT_EQ(hgemm::sm90_geometry(v).wg_rows, 64);
  // The same numbers unswapped are no sm90 tile: 80 rows is no multiple of wgmma's 64.
  KernelConfig plain = *c;
  plain.swap_ab = false;
  EXPECT_FALSE(plain.validate().ok());
  EXPECT_FALSE(KernelConfig::parse("sm90_ws_80x128x64_s8_c2x1_w2_n4_st_sk2_f32_tn_swp"));
}

TEST(Sm90Variant, SwapAbRefusesWhatItCannotRun) {
  KernelConfig c = *KernelConfig::parse("sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk1_f32_tn_swap");
  // NN reads the problem's B as an M-major A in 64-deep k-blocks; a pair of token tiles
  // multicasts it (each CTA loads 32 of every chunk's k-rows).
  KernelConfig nn = c;
  nn.layout = Layout::kNN;
  EXPECT_TRUE(nn.validate().ok()) << nn.validate().message;
  nn.cluster_m = 2;
  EXPECT_TRUE(nn.validate().ok()) << nn.validate().message;
  nn.block_k = 32;
  EXPECT_NE(nn.validate().message.find("M-major"), std::string::npos) << nn.validate().message;
  // The TMA store stages C^T's columns as rows of C (stmatrix .trans) in 16-row steps, or 8
  // (.x2) for a block_m of 8 mod 16, which still needs 64-deep k-blocks.
  KernelConfig tma = c;
  tma.epilogue = Epilogue::kTmaStore;
  EXPECT_TRUE(tma.validate().ok()) << tma.validate().message;
  tma.block_m = 88;
  tma.num_stages = 7;  // beside its whole staged tile (below)
  EXPECT_TRUE(tma.validate().ok()) << tma.validate().message;
  EXPECT_EQ(hgemm::sm90_geometry(hgemm::sm90_variant(tma)).c_chunk, 8);
  EXPECT_EQ(hgemm::sm90_geometry(hgemm::sm90_variant(tma)).c_box_outer, 8);
  EXPECT_EQ(hgemm::sm90_geometry(hgemm::sm90_variant(c)).c_chunk, 16);
  // Its 8-row chunks are staged whole: 104 wide over 128 rows fits six stages beside them, not
  // the seven of its direct stores.
  KernelConfig staged = tma;
  staged.block_m = 104;
  staged.block_n = 128;
  staged.num_consumer_wgs = 2;
  staged.num_stages = 6;
  EXPECT_TRUE(staged.validate().ok()) << staged.validate().message;
  EXPECT_EQ(hgemm::sm90_geometry(hgemm::sm90_variant(staged)).smem.staging_bytes, 104 * 128 * 2);
  staged.num_stages = 7;
  EXPECT_NE(staged.validate().message.find("shared memory"), std::string::npos)
      << staged.validate().message;
  tma.block_k = 32;
  EXPECT_NE(tma.validate().message.find("8 mod 16"), std::string::npos) << tma.validate().message;
  KernelConfig rows = c;
  rows.block_n = 96;  // N is wgmma's M under swap-AB
  EXPECT_NE(rows.validate().message.find("block_n must be 64, 128, 192 or 256"), std::string::npos)
      << rows.validate().message;
  KernelConfig sm80;
  sm80.swap_ab = true;
  EXPECT_NE(sm80.validate().message.find("only the sm90 family"), std::string::npos);
  KernelConfig wide = c;
  wide.block_m = 272;
  EXPECT_FALSE(wide.validate().ok());
}
