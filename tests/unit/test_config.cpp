#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/kernel_variant.hpp"
#include "hgemm/hgemm.hpp"

using hgemm::Accum;
using hgemm::Epilogue;
using hgemm::Family;
using hgemm::KernelConfig;
using hgemm::Layout;
using hgemm::Raster;

namespace {

KernelConfig sm90(int bm, int bn, int bk, int stages, int wgs, int cm, int cn) {
  KernelConfig c;
  c.family = Family::kSm90Ws;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.num_stages = stages;
  c.num_consumer_wgs = wgs;
  c.cluster_m = cm;
  c.cluster_n = cn;
  c.epilogue = Epilogue::kTmaStore;
  return c;
}

}  // namespace

TEST(KernelConfig, Sm80NameIsCanonical) {
  KernelConfig c;  // defaults: sm80 128x128x32 s3 w2x2
  EXPECT_EQ(c.name(), "sm80_mma_128x128x32_s3_w2x2_sk1_f32_tn");
  EXPECT_TRUE(c.validate().ok()) << c.validate().message;
  EXPECT_EQ(c.num_threads(), 128);
  EXPECT_EQ(c.smem_bytes(), 3 * (128 + 128) * 32 * 2);
}

TEST(KernelConfig, Sm90NameIsCanonical) {
  KernelConfig c = sm90(128, 256, 64, 3, 2, 2, 1);
  c.raster = Raster::kAlongN;
  c.group_size = 16;
  c.accum = Accum::kF16;
  c.layout = Layout::kNN;
  EXPECT_EQ(c.name(), "sm90_ws_128x256x64_s3_c2x1_w2_n16_tma_sk1_f16_nn");
  EXPECT_TRUE(c.validate().ok()) << c.validate().message;
  EXPECT_EQ(c.num_threads(), 384);
}

TEST(KernelConfig, PingPongNameAndRules) {
  KernelConfig c = sm90(64, 256, 64, 4, 2, 2, 1);
  c.schedule = hgemm::Schedule::kPingPong;
  EXPECT_EQ(c.name(), "sm90_pp_64x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn");
  EXPECT_TRUE(c.validate().ok()) << c.validate().message;
  EXPECT_EQ(KernelConfig::parse(c.name()), c);
  EXPECT_EQ(c.num_threads(), 384);
  // Each warpgroup owns the whole tile: two 64x256 staged tiles beside four 40 KiB stages.
  EXPECT_EQ(c.smem_bytes(), 4 * (64 + 256) * 64 * 2 + 2 * 64 * 256 * 2 + 2048);
  KernelConfig one_wg = sm90(64, 256, 64, 4, 1, 1, 1);
  one_wg.schedule = hgemm::Schedule::kPingPong;
  EXPECT_NE(one_wg.validate().message.find("two consumer warpgroups"), std::string::npos);
  // A 256-row tile per warpgroup has no m64 atom layout; 128x256 f32 needs 256 accumulators.
  KernelConfig tall = sm90(256, 128, 64, 3, 2, 1, 1);
  tall.schedule = hgemm::Schedule::kPingPong;
  EXPECT_NE(tall.validate().message.find("64 or 128 rows"), std::string::npos);
  KernelConfig wide = sm90(128, 256, 64, 3, 2, 1, 1);
  wide.schedule = hgemm::Schedule::kPingPong;
  EXPECT_NE(wide.validate().message.find("accumulator"), std::string::npos);
  wide.accum = Accum::kF16;
  EXPECT_TRUE(wide.validate().ok()) << wide.validate().message;
  KernelConfig sm80_pp;
  sm80_pp.schedule = hgemm::Schedule::kPingPong;
  EXPECT_FALSE(sm80_pp.validate().ok());
  EXPECT_FALSE(KernelConfig::parse("sm90_px_64x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn"));
}

TEST(KernelConfig, RoundTripOverManyConfigs) {
  std::set<uint64_t> hashes;
  int count = 0;
  for (int bm : {64, 128, 256})
    for (int bn : {16, 64, 128, 192, 256})
      for (int stages : {2, 4, 8})
        for (int wgs : {1, 2})
          for (auto [cm, cn] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 2}})
            for (Layout layout : {Layout::kNN, Layout::kTN})
              for (Accum accum : {Accum::kF32, Accum::kF16})
                for (auto schedule : {hgemm::Schedule::kCooperative, hgemm::Schedule::kPingPong}) {
                KernelConfig c = sm90(bm, bn, 64, stages, wgs, cm, cn);
                c.layout = layout;
                c.accum = accum;
                c.schedule = schedule;
                c.epilogue = (stages % 4 == 0) ? Epilogue::kTmaStore : Epilogue::kDirect;
                auto parsed = KernelConfig::parse(c.name());
                ASSERT_TRUE(parsed.has_value()) << c.name();
                EXPECT_EQ(*parsed, c) << c.name();
                EXPECT_EQ(parsed->name(), c.name());
                hashes.insert(c.hash());
                ++count;
              }
  EXPECT_EQ(int(hashes.size()), count) << "distinct configs must hash differently";
  for (int bm : {32, 64, 128, 256})
    for (int wm : {1, 2, 4}) {
      KernelConfig c;
      c.block_m = bm;
      c.warps_m = wm;
      c.num_stages = 4;
      auto parsed = KernelConfig::parse(c.name());
      ASSERT_TRUE(parsed.has_value()) << c.name();
      EXPECT_EQ(*parsed, c);
    }
}

TEST(KernelConfig, Bf16IsTheLastTokenAndFp32Only) {
  KernelConfig c = sm90(128, 256, 64, 4, 2, 2, 1);
  c.dtype = hgemm::DType::kBF16;
  EXPECT_EQ(c.name(), "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn_bf16");
  EXPECT_TRUE(c.validate().ok()) << c.validate().message;
  EXPECT_EQ(KernelConfig::parse(c.name()), c);
  KernelConfig fp16 = c;
  fp16.dtype = hgemm::DType::kF16;
  EXPECT_NE(c.hash(), fp16.hash());
  EXPECT_NE(c.instance(), fp16.instance());
  // After the swap token, and on the decode family.
  KernelConfig swap = *KernelConfig::parse("sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk1_f32_tn_swap_bf16");
  EXPECT_TRUE(swap.swap_ab);
  EXPECT_EQ(swap.dtype, hgemm::DType::kBF16);
  KernelConfig decode = *KernelConfig::parse("decode_n32_k64_s4_w4_f32_tn_bf16");
  EXPECT_EQ(decode.family, hgemm::Family::kDecode);
  EXPECT_EQ(decode.dtype, hgemm::DType::kBF16);
  EXPECT_TRUE(decode.validate().ok()) << decode.validate().message;
  // bf16 accumulates in fp32 only, and the sm80 catalog is fp16 only.
  c.accum = Accum::kF16;
  EXPECT_NE(c.validate().message.find("fp32 only"), std::string::npos) << c.validate().message;
  KernelConfig sm80;
  sm80.dtype = hgemm::DType::kBF16;
  EXPECT_NE(sm80.validate().message.find("fp16 only"), std::string::npos);
  // Only the canonical spelling parses: the token is lower case, last, and never "f16".
  for (const char* bad : {"sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn_BF16",
                          "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn_f16",
                          "sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk1_f32_tn_bf16_swap",
                          "bf16"})
    EXPECT_FALSE(KernelConfig::parse(bad).has_value()) << bad;
}

TEST(KernelConfig, ParseRejectsMalformedAndNonCanonical) {
  for (const char* bad : {"", "sm80", "sm80_mma_128x128x32_s3_w2x2_sk1_f32",
                          "sm80_mma_128x128x32_s3_w2x2_sk1_f32_tn_extra",
                          "sm80_mma_128x128_s3_w2x2_sk1_f32_tn", "sm80_mma_128x128x32_s3_w2x2_sk1_f64_tn",
                          "sm80_mma_128x128x32_s3_w2x2_sk1_f32_nt", "sm80_mma_0128x128x32_s3_w2x2_sk1_f32_tn",
                          "sm80_mma_128x128x32_sx_w2x2_sk1_f32_tn", "sm90_ws_128x256x64_s4_c2x1_w2_q8_tma_sk1_f32_tn",
                          "sm90_ws_128x256x64_s4_c2x1_w2_m8_smem_sk1_f32_tn",
                          "sm70_mma_128x128x32_s3_w2x2_sk1_f32_tn"}) {
    EXPECT_FALSE(KernelConfig::parse(bad).has_value()) << bad;
  }
}

TEST(KernelConfig, InstanceIgnoresOnlyTheLaunchArguments) {
  KernelConfig a = *KernelConfig::parse("sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn");
  KernelConfig b = a;
  b.raster = Raster::kAlongN;
  b.group_size = 2;
  b.split_k = 4;
  EXPECT_NE(a, b);
  EXPECT_EQ(a.instance(), b.instance());
  EXPECT_EQ(a.instance(), a);  // the defaults: raster along M, group 8, no split
  b.num_stages = 3;
  EXPECT_NE(a.instance(), b.instance());
  b = a;
  b.layout = Layout::kNN;
  EXPECT_NE(a.instance(), b.instance());
}

TEST(KernelConfig, ValidationNamesTheRule) {
  struct Case {
    KernelConfig config;
    const char* needle;
  };
  KernelConfig too_many_acc = sm90(128, 256, 64, 4, 1, 1, 1);
  KernelConfig odd_n = sm90(128, 124, 64, 4, 2, 1, 1);
  // 8 mod 16 columns: a wgmma N, but not for stmatrix's 16-column stores of the TMA epilogue.
  KernelConfig n_120_tma = sm90(128, 120, 64, 4, 2, 1, 1);
  KernelConfig w3_wide = sm90(192, 256, 64, 3, 3, 1, 1);
  w3_wide.epilogue = Epilogue::kDirect;
  KernelConfig bad_cluster = sm90(128, 128, 64, 4, 2, 4, 4);
  KernelConfig cluster_part = sm90(64, 72, 64, 8, 1, 2, 1);  // 36 of B's 72 rows per CTA
  cluster_part.epilogue = Epilogue::kDirect;
  KernelConfig too_much_smem = sm90(128, 128, 64, 8, 2, 1, 1);
  KernelConfig bad_rows = sm90(256, 128, 64, 4, 1, 1, 1);
  KernelConfig sm80_bad_k;
  sm80_bad_k.block_k = 16;
  KernelConfig sm80_warps;
  sm80_warps.warps_m = 3;
  KernelConfig sm80_acc;
  sm80_acc.block_m = 256;
  sm80_acc.block_n = 256;
  KernelConfig sm80_stages;
  sm80_stages.num_stages = 1;
  for (const Case& c : {Case{too_many_acc, "accumulator"}, Case{odd_n, "multiple of 8"},
                        Case{n_120_tma, "8 mod 16 needs"}, Case{w3_wide, "three consumer"},
                        Case{bad_cluster, "cluster sides"},
                        Case{cluster_part, "multiple of 8 rows"},
                        Case{too_much_smem, "shared memory"},
                        Case{bad_rows, "64 or 128 rows"}, Case{sm80_bad_k, "block_k"},
                        Case{sm80_warps, "warp"}, Case{sm80_acc, "accumulator"},
                        Case{sm80_stages, "stages"}}) {
    auto s = c.config.validate();
    EXPECT_FALSE(s.ok()) << c.config.name();
    EXPECT_EQ(s.code, HGEMM_ERROR_NOT_SUPPORTED);
    EXPECT_NE(s.message.find(c.needle), std::string::npos) << s.message;
    EXPECT_NE(s.message.find(c.config.name()), std::string::npos) << s.message;
  }
}

TEST(Problem, ValidateSizesEnumsAndOverflow) {
  using hgemm::Problem;
  EXPECT_TRUE((Problem{1, 1, 1}).validate().ok());
  EXPECT_TRUE((Problem{16384, 16384, 16384}).validate().ok());
  EXPECT_EQ((Problem{0, 1, 1}).validate().code, HGEMM_ERROR_INVALID_SIZE);
  EXPECT_EQ((Problem{1, -5, 1}).validate().code, HGEMM_ERROR_INVALID_SIZE);
  EXPECT_EQ((Problem{1, 1, 0}).validate().code, HGEMM_ERROR_INVALID_SIZE);
  EXPECT_EQ((Problem{int64_t(1) << 31, 1, 1}).validate().code, HGEMM_ERROR_SIZE_OVERFLOW);
  EXPECT_EQ((Problem{int64_t(1) << 40, int64_t(1) << 40, 1}).validate().code,
            HGEMM_ERROR_SIZE_OVERFLOW);
  // 2^31-1 squared elements times 2 bytes still fits in int64: large but representable.
  EXPECT_TRUE((Problem{(int64_t(1) << 31) - 1, (int64_t(1) << 31) - 1, 1}).validate().ok());
  Problem bad_layout{8, 8, 8};
  bad_layout.layout = static_cast<Layout>(7);
  EXPECT_EQ(bad_layout.validate().code, HGEMM_ERROR_INVALID_ENUM);
  Problem bad_acc{8, 8, 8};
  bad_acc.accum = static_cast<Accum>(2);
  EXPECT_EQ(bad_acc.validate().code, HGEMM_ERROR_INVALID_ENUM);
  EXPECT_EQ((Problem{4096, 2048, 64, Layout::kNN, Accum::kF16}).name(), "4096x2048x64_nn_f16");
  Problem bf16{4096, 2048, 64, Layout::kTN, Accum::kF32, hgemm::DType::kBF16};
  EXPECT_EQ(bf16.name(), "4096x2048x64_tn_f32_bf16");
  EXPECT_TRUE(bf16.validate().ok());
  bf16.accum = Accum::kF16;
  EXPECT_EQ(bf16.validate().code, HGEMM_ERROR_DTYPE_ACCUM);
  Problem bad_dtype{8, 8, 8};
  bad_dtype.dtype = static_cast<hgemm::DType>(9);
  EXPECT_EQ(bad_dtype.validate().code, HGEMM_ERROR_INVALID_ENUM);
}

TEST(Enums, ParseAndPrint) {
  EXPECT_EQ(hgemm::parse_layout("nn"), Layout::kNN);
  EXPECT_EQ(hgemm::parse_layout("tn"), Layout::kTN);
  EXPECT_FALSE(hgemm::parse_layout("NT").has_value());
  EXPECT_EQ(hgemm::parse_accum("f16"), Accum::kF16);
  EXPECT_FALSE(hgemm::parse_accum("fp32").has_value());
  EXPECT_EQ(hgemm::parse_dtype("bf16"), hgemm::DType::kBF16);
  EXPECT_EQ(hgemm::parse_dtype("f16"), hgemm::DType::kF16);
  EXPECT_FALSE(hgemm::parse_dtype("bfloat16").has_value());
  EXPECT_EQ(hgemm::to_string(Accum::kF32), "f32");
}

// wgmma's N of 8 is swap-AB's alone: 8 tokens over 64-256 rows of N (the problem's M as wgmma's
// N), both layouts and accumulations; a plain tile of 8 columns of N stays refused.
TEST(KernelConfig, EightTokenSwapTilesAreLegalAndRoundTrip) {
  for (const char* name : {"sm90_ws_8x128x64_s10_c1x1_w1_m8_st_sk1_f32_tn_swap",
                           "sm90_ws_8x64x64_s12_c1x1_w1_m8_st_sk2_f16_tn_swap",
                           "sm90_ws_8x256x64_s6_c1x1_w2_m8_st_sk1_f32_nn_swap",
                           "sm90_ws_8x128x64_s10_c1x1_w1_m8_st_sk1_f32_tn_swap_bf16"}) {
    const std::optional<KernelConfig> c = KernelConfig::parse(name);
    ASSERT_TRUE(c) << name;
    EXPECT_TRUE(c->validate().ok()) << c->validate().message;
    EXPECT_EQ(c->name(), name);
    EXPECT_EQ(c->block_m, 8);
    EXPECT_EQ(hgemm::sm90_variant(*c).block_n, 8) << name;  // the kernel's wgmma N
  }
  KernelConfig plain = sm90(128, 8, 64, 10, 1, 1, 1);
  plain.epilogue = Epilogue::kDirect;
  const hgemm::Status s = plain.validate();
  EXPECT_FALSE(s.ok()) << plain.name();
  EXPECT_NE(s.message.find("from 16 to 256"), std::string::npos) << s.message;
}

TEST(KernelConfig, ThreeConsumerWarpgroupsTakeTheRegistersTheProducerGivesBack) {
  KernelConfig c = sm90(192, 192, 64, 4, 3, 1, 1);
  c.epilogue = Epilogue::kDirect;
  ASSERT_TRUE(c.validate().ok()) << c.validate().message;
  EXPECT_EQ(KernelConfig::parse(c.name()), c);
  const hgemm::Sm90Geometry g = hgemm::sm90_geometry(hgemm::sm90_variant(c));
  EXPECT_EQ(g.num_threads, 512);
  EXPECT_EQ(g.wg_rows, 64);
  EXPECT_TRUE(g.realloc_regs);
  // What setmaxnreg moves must fit in the SM's 64K registers.
  EXPECT_LE(128 * g.producer_regs + 3 * 128 * g.consumer_regs, 65536);
  EXPECT_EQ(g.consumer_regs, 152);
  // Two consumer warpgroups keep the split they had.
  EXPECT_EQ(hgemm::sm90_register_split(2).consumer, 232);
  EXPECT_EQ(hgemm::sm90_register_split(2).producer, 40);
  // 192 rows need three warpgroups of 64; two would own 96 each.
  KernelConfig two = c;
  two.num_consumer_wgs = 2;
  EXPECT_FALSE(two.validate().ok());
  // A swapped 72-token tile over 192 rows of N (wgmma N = 72, 8 mod 16): its B is the problem's
  // A, K-major in either layout.
  for (const char* name : {"sm90_ws_72x192x64_s6_c1x1_w3_m8_st_sk1_f32_tn_swap",
                           "sm90_ws_72x192x64_s6_c1x1_w3_m8_st_sk1_f32_nn_swap"}) {
    auto swap = KernelConfig::parse(name);
    ASSERT_TRUE(swap) << name;
    EXPECT_TRUE(swap->validate().ok()) << swap->validate().message;
  }
}

TEST(KernelConfig, SwapAbInNnReadsTheProblemsBAsAnMMajorA) {
  auto tn = KernelConfig::parse("sm90_ws_48x64x64_s12_c1x1_w1_m8_st_sk1_f32_tn_swap");
  auto nn = KernelConfig::parse("sm90_ws_48x64x64_s12_c1x1_w1_m8_st_sk1_f32_nn_swap");
  ASSERT_TRUE(tn && nn);
  ASSERT_TRUE(nn->validate().ok()) << nn->validate().message;
  EXPECT_EQ(KernelConfig::parse(nn->name()), nn);
  const hgemm::Sm90Geometry g_tn = hgemm::sm90_geometry(hgemm::sm90_variant(*tn));
  const hgemm::Sm90Geometry g_nn = hgemm::sm90_geometry(hgemm::sm90_variant(*nn));
  // Both read the problem's row-major A as a K-major B; NN's A (the K x N B) is M-major, loaded
  // as 64-row chunks of block_k k-rows, with the bytes and stages of the TN twin.
  EXPECT_TRUE(g_tn.a_k_major && g_tn.b_k_major && g_nn.b_k_major);
  EXPECT_FALSE(g_nn.a_k_major);
  EXPECT_EQ(g_nn.a_chunk, 64);
  EXPECT_EQ(g_nn.a_box_outer, 64);
  EXPECT_EQ(g_nn.smem_bytes, g_tn.smem_bytes);
  // A cluster along the kernel's N (the config's cluster_m) multicasts the M-major A: each CTA
  // loads its share of every chunk's k-rows (32 of 64 in a pair, 16 in four; 8 in eight would
  // be one swizzle atom, but sides stop at 4).
  KernelConfig cluster = *nn;
  cluster.cluster_m = 2;
  ASSERT_TRUE(cluster.validate().ok()) << cluster.validate().message;
  const hgemm::Sm90Geometry g_pair = hgemm::sm90_geometry(hgemm::sm90_variant(cluster));
  EXPECT_FALSE(g_pair.a_k_major);
  EXPECT_EQ(g_pair.a_box_inner, 64);
  EXPECT_EQ(g_pair.a_box_outer, 32);
  EXPECT_EQ(g_pair.smem_bytes, g_nn.smem_bytes);
  cluster.cluster_m = 4;
  ASSERT_TRUE(cluster.validate().ok()) << cluster.validate().message;
  EXPECT_EQ(hgemm::sm90_geometry(hgemm::sm90_variant(cluster)).a_box_outer, 16);
  cluster.layout = hgemm::Layout::kTN;
  EXPECT_TRUE(cluster.validate().ok()) << cluster.validate().message;
  EXPECT_EQ(hgemm::sm90_geometry(hgemm::sm90_variant(cluster)).a_box_outer, 16);  // 64 rows / 4
  KernelConfig shallow = *nn;
  shallow.block_k = 32;
  EXPECT_FALSE(shallow.validate().ok());
  EXPECT_NE(shallow.validate().message.find("M-major"), std::string::npos)
      << shallow.validate().message;
}

TEST(KernelConfig, ClustersOfUpToEightMulticastWholeSwizzleAtoms) {
  // 64x96 in a 4x2 cluster: 24 of B's rows and 32 of A's per CTA.
  EXPECT_TRUE(sm90(64, 96, 64, 8, 1, 4, 2).validate().ok());
  EXPECT_TRUE(sm90(64, 96, 64, 8, 1, 2, 4).validate().ok());
  EXPECT_TRUE(sm90(128, 128, 64, 4, 2, 2, 2).validate().ok());
  // 4x4 is 16 CTAs; a side of 3 divides nothing in halves of the swizzle.
  EXPECT_FALSE(sm90(128, 128, 64, 4, 2, 4, 4).validate().ok());
  EXPECT_FALSE(sm90(128, 128, 64, 4, 2, 3, 1).validate().ok());
  // 64 rows of A in 8 CTAs would be 8 rows each, but clusters are at most 4 a side.
  EXPECT_FALSE(sm90(64, 128, 64, 4, 1, 1, 8).validate().ok());
  // Swap-AB: the kernel's B is the problem's A, so cluster_n (the kernel's cluster_m) cuts the
  // 168 rows of the swapped tile: 84 per CTA is not whole atoms.
  KernelConfig swap = sm90(168, 64, 64, 7, 1, 2, 1);
  swap.swap_ab = true;
  swap.epilogue = Epilogue::kDirect;
  EXPECT_TRUE(swap.validate().ok()) << swap.validate().message;
  swap.cluster_m = 1;
  swap.cluster_n = 2;
  EXPECT_FALSE(swap.validate().ok());
}

TEST(KernelConfig, TwoWarpgroupsTakeASixtyFourRowTilesKBlocksInTurn) {
  // w2 on a 64-row tile: each warpgroup owns the whole tile's rows and every other k-block, one
  // warpgroup releases each slot, and the second's accumulators pass through shared memory.
  KernelConfig c = sm90(64, 96, 64, 10, 2, 1, 1);
  c.epilogue = Epilogue::kDirect;
  ASSERT_TRUE(c.validate().ok()) << c.validate().message;
  const hgemm::Sm90Geometry g = hgemm::sm90_geometry(hgemm::sm90_variant(c));
  EXPECT_TRUE(g.split_k_blocks);
  EXPECT_EQ(g.wg_rows, 64);
  EXPECT_EQ(g.slot_consumer_warps, 4);
  EXPECT_EQ(g.num_threads, 384);
  EXPECT_EQ(g.smem.reduce_bytes, 64 * 96 * 4);
  EXPECT_EQ(g.smem.storage_bytes, 10 * (64 + 96) * 64 * 2 + 64 * 96 * 4 + 1024);
  // Half the buffer with fp16 accumulators; none where two warpgroups own 64 rows each.
  c.accum = Accum::kF16;
  EXPECT_EQ(hgemm::sm90_geometry(hgemm::sm90_variant(c)).smem.reduce_bytes, 64 * 96 * 2);
  const hgemm::Sm90Geometry cooperative = hgemm::sm90_geometry(hgemm::sm90_variant(sm90(128, 96, 64, 6, 2, 1, 1)));
  EXPECT_FALSE(cooperative.split_k_blocks);
  EXPECT_EQ(cooperative.smem.reduce_bytes, 0);
  EXPECT_EQ(cooperative.slot_consumer_warps, 8);
  // The buffer counts against the budget: eleven stages of 64x96 fit alone, not beside it.
  c.accum = Accum::kF32;
  c.num_stages = 11;
  EXPECT_FALSE(c.validate().ok());
  c.num_consumer_wgs = 1;
  EXPECT_TRUE(c.validate().ok()) << c.validate().message;
  // Swap-AB: the kernel's 64 rows are the problem's N (block_n 64), M its width.
  KernelConfig swap = sm90(48, 64, 64, 12, 2, 1, 1);
  swap.swap_ab = true;
  swap.epilogue = Epilogue::kDirect;
  EXPECT_TRUE(swap.validate().ok()) << swap.validate().message;
  EXPECT_TRUE(hgemm::sm90_geometry(hgemm::sm90_variant(swap)).split_k_blocks);
  // Three warpgroups cannot share one m64 atom's rows or its k-blocks.
  c.num_consumer_wgs = 3;
  c.num_stages = 4;
  EXPECT_FALSE(c.validate().ok());
}

// A promoted rewrite's kernel is named as its config with "_src-NAME" after everything else; the
// family header's names are unchanged, so shipped tables, databases and tests keep their meaning.
TEST(KernelConfig, PromotedSourceNamesRoundTripAndStockNamesStay) {
  KernelConfig c = sm90(128, 256, 64, 4, 2, 2, 1);
  const std::string stock = c.name();
  EXPECT_EQ(stock, "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn");
  c.source = *hgemm::SourceName::from("rw_good_2");
  EXPECT_EQ(c.name(), stock + "_src-rw_good_2");
  EXPECT_EQ(KernelConfig::parse(c.name()), c);
  EXPECT_NE(c.hash(), KernelConfig::parse(stock)->hash());
  EXPECT_EQ(c.instance().source, c.source);

  KernelConfig swap = sm90(64, 80, 64, 10, 1, 1, 1);
  swap.epilogue = Epilogue::kDirect;
  swap.swap_ab = true;
  swap.dtype = hgemm::DType::kBF16;
  swap.source = *hgemm::SourceName::from("a");
  EXPECT_EQ(swap.name(), "sm90_ws_64x80x64_s10_c1x1_w1_m8_st_sk1_f32_tn_swap_bf16_src-a");
  EXPECT_EQ(KernelConfig::parse(swap.name()), swap);

  for (const KernelConfig& k : hgemm::catalog()) {
    if (!k.source.empty()) continue;
    EXPECT_EQ(k.name().find("_src-"), std::string::npos) << k.name();
    EXPECT_TRUE(KernelConfig::parse(k.name())->source.empty()) << k.name();
  }
  for (const char* bad : {"_src-", "_src-Rw", "_src-1rw", "_src-rw-x", "_src-rw_src-x", "_src_rw"})
    EXPECT_FALSE(KernelConfig::parse(stock + bad).has_value()) << bad;
  EXPECT_TRUE(KernelConfig::parse(stock + "_src-" + std::string(64, 'a')).has_value());
  EXPECT_FALSE(KernelConfig::parse(stock + "_src-" + std::string(65, 'a')).has_value());
}

TEST(KernelConfig, UnknownPromotedSourceIsRefusedByName) {
  KernelConfig c = sm90(128, 256, 64, 4, 2, 2, 1);
  c.source = *hgemm::SourceName::from("not_promoted_here");
  const hgemm::Status s = c.validate();
  EXPECT_EQ(s.code, HGEMM_ERROR_NOT_SUPPORTED);
  EXPECT_NE(s.message.find("no promoted source 'not_promoted_here'"), std::string::npos)
      << s.message;
  KernelConfig sm80;
  sm80.source = c.source;
  EXPECT_NE(sm80.validate().message.find("only the sm90 family has promoted sources"),
            std::string::npos)
      << sm80.validate().message;
  EXPECT_FALSE(hgemm::SourceName::from("Upper").has_value());
  EXPECT_FALSE(hgemm::SourceName::from("9lives").has_value());
  EXPECT_FALSE(hgemm::SourceName::from(std::string(65, 'a')).has_value());
  EXPECT_TRUE(hgemm::SourceName::from("").has_value());
}

// The kernels' variant carries the source, so a rewrite's kernel is another type than the family
// header's of the same tile, and the variant gives the config back whole.
TEST(KernelConfig, Sm90VariantCarriesTheSource) {
  KernelConfig c = sm90(128, 256, 64, 4, 2, 2, 1);
  KernelConfig promoted = c;
  promoted.source = *hgemm::SourceName::from(std::string(63, 'z') + "9");
  EXPECT_NE(hgemm::sm90_variant(promoted), hgemm::sm90_variant(c));
  EXPECT_EQ(hgemm::to_config(hgemm::sm90_variant(promoted)), promoted.instance());
  EXPECT_EQ(hgemm::to_config(hgemm::sm90_variant(c)), c.instance());
  EXPECT_EQ(hgemm::sm90_variant(c).source, hgemm::Sm90Source{});
}
