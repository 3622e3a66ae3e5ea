// CPU tests of the sm90 family's pure math: the grouped raster is a bijection, the cluster
// expansion covers every CTA tile exactly once, a last partial tile's early TMA box stays inside
// its operand, the swizzle spreads 8x8 matrix rows over all bank groups, and the launcher's smem
// size matches KernelConfig's formula, and when a CTA lets the next kernel launch.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "hgemm/hgemm.hpp"
#include "kernels/common/swizzle.hpp"
#include "kernels/common/tile_scheduler.hpp"
#include "launch/sm90_catalog.hpp"
#include "launch/sm90_launch.hpp"

namespace {

using hgemm::kernels::GroupedRaster;
using hgemm::kernels::TileCoord;
using hgemm::kernels::TileScheduler;

TEST(Sm90Scheduler, GroupedRasterIsABijection) {
  for (int num_m : {1, 2, 3, 7, 16, 33}) {
    for (int num_n : {1, 5, 8, 31}) {
      for (int group : {1, 2, 4, 8, 16}) {
        for (bool along_m : {true, false}) {
          GroupedRaster r = GroupedRaster::make(num_m, num_n, group, along_m);
          std::set<std::pair<int, int>> seen;
          for (int t = 0; t < r.num_tiles(); ++t) {
            TileCoord c = r.tile(t);
            ASSERT_GE(c.m_block, 0);
            ASSERT_LT(c.m_block, num_m);
            ASSERT_GE(c.n_block, 0);
            ASSERT_LT(c.n_block, num_n);
            seen.insert({c.m_block, c.n_block});
          }
          EXPECT_EQ(int(seen.size()), num_m * num_n)
              << num_m << "x" << num_n << " group " << group << " along_m " << along_m;
        }
      }
    }
  }
}

// The kernels divide by launch-fixed divisors with a multiply-high and a shift: equal to `/` and
// `%` for every divisor to 4096 over dividends near 0, near multiples of the divisor and near
// 2^31, and for large divisors.
TEST(Sm90Scheduler, FastDivisorMatchesDivision) {
  using hgemm::kernels::FastDivisor;
  auto check = [](int d, int n) {
    const FastDivisor f = FastDivisor::make(d);
    ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
    ASSERT_EQ(f.mod(n), n % d) << n << " % " << d;
  };
  constexpr int kMax = 2147483647;
  for (int d = 1; d <= 4096; ++d) {
    for (int n = 0; n < 3 * d + 3; ++n) check(d, n);
    for (int n = kMax - 3 * d - 3; n > 0 && n <= kMax - 1; ++n) check(d, n);
    check(d, kMax);
  }
  uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return int(state >> 33);  // 0 .. 2^31 - 1
  };
  for (int i = 0; i < 200000; ++i) {
    const int d = 1 + next() % (i % 2 ? 65536 : kMax);
    check(d, next());
  }
  for (int d : {65535, 65536, 65537, 1 << 20, (1 << 30) - 1, 1 << 30, (1 << 30) + 1, kMax - 1,
                kMax}) {
    check(d, 0);
    check(d, d - 1);
    check(d, d);
    check(d, kMax);
  }
}

// tile() as the plain division formula it replaces.
TEST(Sm90Scheduler, GroupedRasterMatchesItsDivisionFormula) {
  for (int num_m : {1, 2, 3, 7, 16, 33, 130}) {
    for (int num_n : {1, 5, 8, 31, 77}) {
      for (int group : {1, 2, 3, 4, 8, 16}) {
        for (bool along_m : {true, false}) {
          const GroupedRaster r = GroupedRaster::make(num_m, num_n, group, along_m);
          const int inner_extent = along_m ? num_m : num_n;
          const int outer_extent = along_m ? num_n : num_m;
          for (int t = 0; t < r.num_tiles(); ++t) {
            const int per_band = group * outer_extent;
            const int band = t / per_band;
            const int in_band = t - band * per_band;
            const int first = band * group;
            const int width = inner_extent - first < group ? inner_extent - first : group;
            const int inner = first + in_band % width, outer = in_band / width;
            const TileCoord c = r.tile(t);
            ASSERT_EQ(c.m_block, along_m ? inner : outer) << t;
            ASSERT_EQ(c.n_block, along_m ? outer : inner) << t;
          }
        }
      }
    }
  }
}

TEST(Sm90Scheduler, RasterOrderWithinABand) {
  // Along M with group 4 over 6x3 tiles: M runs fastest inside bands of 4 rows, then 2 rows.
  GroupedRaster r = GroupedRaster::make(6, 3, 4, true);
  std::vector<std::pair<int, int>> want = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {1, 1},
                                           {2, 1}, {3, 1}, {0, 2}, {1, 2}, {2, 2}, {3, 2},
                                           {4, 0}, {5, 0}, {4, 1}, {5, 1}, {4, 2}, {5, 2}};
  for (int t = 0; t < r.num_tiles(); ++t) {
    TileCoord c = r.tile(t);
    EXPECT_EQ(c.m_block, want[t].first) << t;
    EXPECT_EQ(c.n_block, want[t].second) << t;
  }
  // Along N swaps the roles.
  GroupedRaster rn = GroupedRaster::make(3, 6, 4, false);
  for (int t = 0; t < rn.num_tiles(); ++t) {
    TileCoord c = rn.tile(t);
    EXPECT_EQ(c.n_block, want[t].first) << t;
    EXPECT_EQ(c.m_block, want[t].second) << t;
  }
}

TEST(Sm90Scheduler, ClustersCoverEveryCtaTileOnce) {
  for (auto [cm, cn] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 2}}) {
    for (int num_m : {1, 2, 5, 8}) {
      for (int num_n : {1, 3, 4}) {
        TileScheduler s = TileScheduler::make(num_m, num_n, cm, cn, 8, true);
        std::set<std::pair<int, int>> inside;
        int outside = 0;
        for (int t = 0; t < s.num_cluster_tiles(); ++t) {
          for (int rank = 0; rank < cm * cn; ++rank) {
            TileCoord c = s.cta_tile(t, rank);
            if (c.m_block < num_m && c.n_block < num_n)
              EXPECT_TRUE(inside.insert({c.m_block, c.n_block}).second);
            else
              ++outside;
          }
        }
        EXPECT_EQ(int(inside.size()), num_m * num_n);
        // Only the padding of an odd edge lies outside.
        const int padded = ((num_m + cm - 1) / cm * cm) * ((num_n + cn - 1) / cn * cn);
        EXPECT_EQ(outside, padded - num_m * num_n);
      }
    }
  }
}

TEST(Sm90Scheduler, ClusterPeersShareTheMulticastOperand) {
  // 2x1: both CTAs of a cluster tile have the same N-block (they share B); 1x2: the same M-block.
  TileScheduler s21 = TileScheduler::make(8, 4, 2, 1, 4, true);
  TileScheduler s12 = TileScheduler::make(8, 4, 1, 2, 4, false);
  for (int t = 0; t < s21.num_cluster_tiles(); ++t) {
    EXPECT_EQ(s21.cta_tile(t, 0).n_block, s21.cta_tile(t, 1).n_block);
    EXPECT_EQ(s21.cta_tile(t, 0).m_block + 1, s21.cta_tile(t, 1).m_block);
  }
  for (int t = 0; t < s12.num_cluster_tiles(); ++t) {
    EXPECT_EQ(s12.cta_tile(t, 0).m_block, s12.cta_tile(t, 1).m_block);
    EXPECT_EQ(s12.cta_tile(t, 0).n_block + 1, s12.cta_tile(t, 1).n_block);
  }
}

template <int kSwizzle>
void expect_conflict_free() {
  constexpr int kRowBytes = kSwizzle;  // one swizzle span per row
  for (int unit = 0; unit < kRowBytes / 16; ++unit) {
    for (int row0 = 0; row0 < 64; row0 += 8) {
      std::set<uint32_t> groups;  // 16-byte bank group = (offset / 16) % 8
      for (int r = row0; r < row0 + 8; ++r) {
        const uint32_t off = hgemm::kernels::swizzle_offset<kSwizzle>(r * kRowBytes + unit * 16);
        EXPECT_EQ(off / kRowBytes, uint32_t(r)) << "the swizzle stays inside its row";
        groups.insert((off / 16) % 8);
      }
      EXPECT_EQ(groups.size(), 8u) << "swizzle " << kSwizzle << " unit " << unit;
    }
  }
}

// The early box of a last partial tile: loaded rows stay inside the operand but for fewer than 8,
// cover the tile's rows inside it, start in whole swizzle groups, and only the last partial tile
// of more than one moves.
TEST(Sm90Scheduler, BoxRowShiftKeepsBoxesInsideTheOperand) {
  using hgemm::kernels::box_row_shift;
  for (int block : {64, 80, 96, 112, 128, 192, 208, 256}) {
    for (int extent = 1; extent <= 5 * block; ++extent) {
      for (int origin = 0; origin < extent + 2 * block; origin += block) {
        const int shift = box_row_shift(origin, extent, block);
        SCOPED_TRACE(testing::Message() << "block " << block << " extent " << extent << " origin "
                                        << origin << " shift " << shift);
        EXPECT_EQ(shift % 8, 0);
        EXPECT_GE(shift, 0);
        const bool partial_last = origin > 0 && origin < extent && origin + block > extent;
        if (!partial_last) {
          EXPECT_EQ(shift, 0);
          continue;
        }
        const int first = origin - shift, end = first + block;
        EXPECT_GE(first, 0);
        EXPECT_LT(end - extent, 8);  // fewer than 8 rows past the operand
        EXPECT_GE(end, extent);      // the tile's rows inside the operand are all loaded
        EXPECT_LE(first, origin);
      }
    }
  }
  // 100 rows in 64-row tiles: the second tile's box starts 24 rows early, 4 rows past M remain.
  EXPECT_EQ(box_row_shift(64, 100, 64), 24);
  EXPECT_EQ(box_row_shift(0, 36, 64), 0);
}

TEST(Sm90Swizzle, EightRowsHitEightBankGroups) {
  expect_conflict_free<128>();
  expect_conflict_free<64>();
}

TEST(Sm90Swizzle, IsAnInvolutionThatKeepsSixteenByteUnits) {
  for (uint32_t off = 0; off < 8192; off += 2) {
    const uint32_t s = hgemm::kernels::swizzle_offset<128>(off);
    EXPECT_EQ(hgemm::kernels::swizzle_offset<128>(s), off);
    EXPECT_EQ(s % 16, off % 16);
    EXPECT_EQ(hgemm::kernels::swizzle_offset<32>(hgemm::kernels::swizzle_offset<32>(off)), off);
  }
  EXPECT_EQ(hgemm::kernels::swizzle_chunk_elems(256), 64);
  EXPECT_EQ(hgemm::kernels::swizzle_chunk_elems(96), 32);
  EXPECT_EQ(hgemm::kernels::swizzle_chunk_elems(80), 16);
}

TEST(Sm90Launch, SmemPlanStagesTheWholeTileWhenItFitsBesideTheRing) {
  hgemm::KernelConfig c;
  c.family = hgemm::Family::kSm90Ws;
  c.block_m = 128;
  c.block_n = 256;
  c.block_k = 64;
  c.num_stages = 3;
  c.num_consumer_wgs = 2;
  c.cluster_m = 2;
  c.epilogue = hgemm::Epilogue::kTmaStore;
  ASSERT_TRUE(c.validate().ok()) << c.validate().message;
  // Operand ring 147456 + the whole 128x256 tile 65536 + barriers 1024 + alignment slack 1024.
  auto plan = hgemm::sm90_smem_plan(128, 256, 64, 3, true, false);
  EXPECT_EQ(plan.staging_buffers, 4);
  EXPECT_EQ(plan.staging_chunk_elems, 64);
  EXPECT_EQ(hgemm::sm90_geometry(c).smem_bytes, 147456 + 65536 + 2048);
  EXPECT_EQ(hgemm::sm90_geometry(c).smem_bytes, c.smem_bytes());
  // A fourth stage leaves room for two 128x64 chunks only: 196608 + 32768 + 2048 fits.
  c.num_stages = 4;
  ASSERT_TRUE(c.validate().ok()) << c.validate().message;
  plan = hgemm::sm90_smem_plan(128, 256, 64, 4, true, false);
  EXPECT_EQ(plan.staging_buffers, 2);
  EXPECT_EQ(c.smem_bytes(), 196608 + 32768 + 2048);
  EXPECT_LE(c.smem_bytes(), hgemm::kMaxSmemPerBlock);
  // A fifth does not fit at all.
  c.num_stages = 5;
  EXPECT_FALSE(c.validate().ok());
  c.num_stages = 3;
  c.epilogue = hgemm::Epilogue::kDirect;
  EXPECT_EQ(c.smem_bytes(), 147456 + 2048);
  // One chunk when the tile is a single chunk wide.
  c.block_n = 64;
  c.epilogue = hgemm::Epilogue::kTmaStore;
  plan = hgemm::sm90_smem_plan(128, 64, 64, 3, true, false);
  EXPECT_EQ(plan.staging_buffers, 1);
  EXPECT_EQ(c.smem_bytes(), 3 * (128 + 64) * 64 * 2 + 128 * 64 * 2 + 2048);
}

TEST(Sm90Scheduler, OnlyShortMainloopsLetTheNextKernelLaunchEarly) {
  using hgemm::sm90_early_dependents;
  // One unit per CTA: 32 k-blocks (K = 2048 at BK = 64) is short, 33 is not.
  EXPECT_TRUE(sm90_early_dependents(32, 72, 132));
  EXPECT_FALSE(sm90_early_dependents(33, 72, 132));
  // A CTA's share of several units counts whole: 3 units of 12 k-blocks on 2 CTAs is 2 x 12.
  EXPECT_TRUE(sm90_early_dependents(12, 3, 2));
  EXPECT_FALSE(sm90_early_dependents(12, 6, 2));
  // A long K split into short units on a full grid: 448 units of 8 k-blocks on 132 CTAs is 4 x 8.
  EXPECT_TRUE(sm90_early_dependents(8, 448, 132));
  EXPECT_FALSE(sm90_early_dependents(8, 600, 132));
  // The 24x4608x3584 swap-AB call that lost 19% to the early signal: 56 k-blocks, 72 CTAs.
  EXPECT_FALSE(sm90_early_dependents(56, 72, 132));
}

using hgemm::kernels::Piece;
using hgemm::kernels::TailSplit;
using hgemm::kernels::WorkQueue;

// The last round's split: walking every cluster's queue covers each (tile, k-block) once; the
// whole tiles go round by round, cluster c taking c, c + clusters, ...; each left-over tile is cut
// into `pieces` pieces of near-equal k-blocks, piece i from cluster t * pieces + i, in slot
// t * pieces + i, counted on counter t; clusters past rest x pieces take no piece.
TEST(Sm90Scheduler, TailPiecesCoverEveryTileOnce) {
  for (int tiles : {1, 3, 30, 133, 200, 462}) {
    for (int k_blocks : {8, 9, 13, 128, 432}) {
      for (int clusters : {2, 7, 66, 132}) {
        const int rest = tiles % clusters;
        for (int pieces = 2; pieces <= 4; ++pieces) {
          if (rest == 0 || rest * pieces > clusters) continue;
          WorkQueue q;
          q.units = tiles - rest;
          q.tail = TailSplit::make(rest, pieces);
          std::vector<std::vector<int>> covered(tiles, std::vector<int>(k_blocks, 0));
          std::vector<int> whole(clusters, 0);
          for (int c = 0; c < clusters; ++c) {
            for (int code = q.first<true>(c); code >= 0; code = q.next<true>(code, c, clusters)) {
              if (code < q.units) {
                ASSERT_EQ(code % clusters, c);
                ++whole[c];
                for (int kb = 0; kb < k_blocks; ++kb) ++covered[code][kb];
                continue;
              }
              ASSERT_LT(c, rest * pieces);
              const Piece p = q.piece(code, k_blocks);
              ASSERT_EQ(p.tile, tiles - rest + c / pieces);
              ASSERT_EQ(p.index, c % pieces);
              EXPECT_EQ(p.slot, c);
              EXPECT_EQ(p.counter, c / pieces);
              EXPECT_EQ(p.kb_begin, p.index * k_blocks / pieces);
              EXPECT_EQ(p.kb_end, (p.index + 1) * k_blocks / pieces);
              ASSERT_LE(p.kb_end, k_blocks);
              for (int kb = p.kb_begin; kb < p.kb_end; ++kb) ++covered[p.tile][kb];
            }
          }
          for (int c = 0; c < clusters; ++c)
            EXPECT_EQ(whole[c], (tiles - rest) / clusters) << "cluster " << c;
          for (int t = 0; t < tiles; ++t)
            for (int kb = 0; kb < k_blocks; ++kb)
              ASSERT_EQ(covered[t][kb], 1) << tiles << " tiles, " << k_blocks << " k-blocks, "
                                           << clusters << " clusters, " << pieces
                                           << " pieces: tile " << t << " kb " << kb;
        }
      }
    }
  }
}

// Without a split the queue is the plain round-robin over the units.
TEST(Sm90Scheduler, QueueWithoutASplitIsRoundRobin) {
  WorkQueue q;
  q.units = 10;
  std::vector<int> codes;
  for (int code = q.first<false>(3); code >= 0; code = q.next<false>(code, 3, 4))
    codes.push_back(code);
  EXPECT_EQ(codes, (std::vector<int>{3, 7}));
  EXPECT_EQ(q.first<false>(12), -1);
  // A split with no tiles adds nothing.
  codes.clear();
  for (int code = q.first<true>(3); code >= 0; code = q.next<true>(code, 3, 4))
    codes.push_back(code);
  EXPECT_EQ(codes, (std::vector<int>{3, 7}));
}

hgemm::Sm90Variant variant_of(const char* name) {
  const std::optional<hgemm::KernelConfig> c = hgemm::KernelConfig::parse(name);
  EXPECT_TRUE(c.has_value()) << name;
  return hgemm::sm90_variant(*c);
}

// The last round's split: only tiles past whole rounds, each cut into 2-4 pieces of at least 4
// k-blocks by the clusters that would idle; nothing where the rounds are full, too few clusters
// idle or K is short.
TEST(Sm90Scheduler, TailSplitCutsOnlyTheLastRound) {
  hgemm::Sm90Variant v = variant_of("sm90_ws_152x128x64_s5_c1x1_w2_m8_tma_sk0_f32_tn_swap");
  v.tail_split = true;
  const hgemm::Sm90Geometry g = hgemm::sm90_geometry(v);
  ASSERT_TRUE(g.tail_split);
  // 150x59136x8192: 462 tiles on 132 clusters, 128 k-blocks: 66 left over, two pieces each.
  hgemm::Sm90TailSplit t = hgemm::sm90_plan_tail_split(g, v, 462, 128, 132);
  EXPECT_EQ(t.split.tiles, 66);
  EXPECT_EQ(t.split.pieces.divisor, 2);
  EXPECT_EQ(t.split.clusters(), 132);
  EXPECT_GT(t.scratch.workspace_bytes, t.counter_bytes);
  EXPECT_EQ(t.counter_bytes % 256, 0u);
  // Eight left over: four pieces each (the most), on 32 clusters.
  t = hgemm::sm90_plan_tail_split(g, v, 668, 32, 132);
  EXPECT_EQ(t.split.tiles, 8);
  EXPECT_EQ(t.split.pieces.divisor, 4);
  EXPECT_EQ(t.split.clusters(), 32);
  // ... but no piece under 4 k-blocks: K of 12 k-blocks gives three.
  EXPECT_EQ(hgemm::sm90_plan_tail_split(g, v, 668, 12, 132).split.pieces.divisor, 3);
  // Full rounds, more than half a round left over, or K too short: whole tiles.
  EXPECT_EQ(hgemm::sm90_plan_tail_split(g, v, 264, 128, 132).split.tiles, 0);
  EXPECT_EQ(hgemm::sm90_plan_tail_split(g, v, 120, 432, 132).split.tiles, 0);
  EXPECT_EQ(hgemm::sm90_plan_tail_split(g, v, 462, 7, 132).split.tiles, 0);
  // Fewer tiles than clusters: all of them are the last round.
  t = hgemm::sm90_plan_tail_split(g, v, 30, 64, 132);
  EXPECT_EQ(t.split.tiles, 30);
  EXPECT_EQ(t.split.pieces.divisor, 4);
}

// Which kernels compile the split: the fix-up spilled on the widest accumulators.
TEST(Sm90Scheduler, TailSplitOnlyWhereItFitsTheRegisters) {
  EXPECT_TRUE(hgemm::sm90_tail_split_ok(
      variant_of("sm90_ws_104x128x64_s7_c1x1_w2_m8_st_sk0_f32_nn_swap")));
  EXPECT_TRUE(hgemm::sm90_tail_split_ok(
      variant_of("sm90_ws_128x208x64_s4_c1x1_w2_m8_st_sk0_f32_tn")));
  EXPECT_TRUE(hgemm::sm90_tail_split_ok(
      variant_of("sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk0_f16_tn")));
  EXPECT_FALSE(hgemm::sm90_tail_split_ok(
      variant_of("sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk0_f32_tn")));
  EXPECT_FALSE(hgemm::sm90_tail_split_ok(
      variant_of("sm90_ws_192x192x64_s4_c1x1_w3_m8_st_sk0_f32_nn")));
  hgemm::Sm90Variant general = variant_of("sm90_ws_104x128x64_s7_c1x1_w2_m8_st_sk0_f32_nn_swap");
  general.general = true;
  EXPECT_FALSE(hgemm::sm90_tail_split_ok(general));
}

// The flavour that splits the last round is compiled for the catalog rows that ask for it, in fp16
// elements, where the registers allow: not for the other tiles, whose unsplit calls its code
// slowed, nor for bf16, nor for the fp32 128x224 that would spill.
TEST(Sm90Scheduler, TailSplitFlavourOnlyForItsRows) {
  for (const char* name : {"sm90_ws_152x128x64_s5_c1x1_w2_m8_tma_sk0_f32_tn_swap",
                           "sm90_ws_152x128x64_s5_c1x1_w2_m8_tma_sk0_f16_nn_swap",
                           "sm90_ws_160x128x64_s5_c1x1_w2_m8_tma_sk0_f16_tn_swap",
                           "sm90_ws_104x128x64_s6_c1x1_w2_m8_tma_sk0_f16_nn_swap",
                           "sm90_ws_128x224x64_s4_c2x1_w2_m8_tma_sk0_f16_tn",
                           "sm90_ws_128x160x64_s6_c1x1_w2_m16_st_sk0_f16_tn"})
    EXPECT_TRUE(hgemm::sm90::has_tail_split_flavour(variant_of(name))) << name;
  for (const char* name : {"sm90_ws_128x224x64_s4_c2x1_w2_m8_tma_sk0_f32_tn",
                           "sm90_ws_64x64x64_s12_c2x1_w1_m8_st_sk0_f32_nn",
                           "sm90_ws_128x96x64_s7_c1x2_w2_m8_st_sk0_f32_tn"})
    EXPECT_FALSE(hgemm::sm90::has_tail_split_flavour(variant_of(name))) << name;
  hgemm::Sm90Variant bf16 = variant_of("sm90_ws_152x128x64_s5_c1x1_w2_m8_tma_sk0_f32_tn_swap");
  bf16.dtype = hgemm::DType::kBF16;
  EXPECT_FALSE(hgemm::sm90::has_tail_split_flavour(bf16));
}

// split_k 0 names and validates on sm90 only.
TEST(Sm90Scheduler, SplitKZeroIsAnSm90Value) {
  const char* name = "sm90_ws_152x128x64_s5_c1x1_w2_m8_tma_sk0_f32_tn_swap";
  const std::optional<hgemm::KernelConfig> c = hgemm::KernelConfig::parse(name);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->split_k, 0);
  EXPECT_EQ(c->name(), name);
  EXPECT_TRUE(c->validate().ok()) << c->validate().message;
  const std::optional<hgemm::KernelConfig> sm80 =
      hgemm::KernelConfig::parse("sm80_mma_128x128x32_s3_w2x2_sk0_f32_tn");
  ASSERT_TRUE(sm80.has_value());
  EXPECT_FALSE(sm80->validate().ok());
}

}  // namespace
