// The decode family (M <= 16) on the CPU: its names, validation reasons and hashes, the catalog
// list and the geometry the kernel and launcher share, the decode rule and what dispatch and
// `hgemm explain` make of it on a described H100, and its place in the tuner's space.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cli_runner.hpp"
#include "core/decode_variant.hpp"
#include "core/smem_budget.hpp"
#include "dispatch/cost.hpp"
#include "dispatch/decode_rule.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/rules.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/launch.hpp"
#include "launch/sm80_decode_catalog.hpp"
#include "registry/registry.hpp"
#include "tuner/space/space.hpp"

namespace {

using hgemm::Accum;
using hgemm::DecodeVariant;
using hgemm::Family;
using hgemm::KernelConfig;
using hgemm::Layout;
using hgemm::Problem;

KernelConfig decode(int block_n, int block_k, int stages, int warps, Layout layout = Layout::kTN,
                    Accum accum = Accum::kF32) {
  return hgemm::to_config(DecodeVariant{.block_n = block_n, .block_k = block_k,
                                        .num_stages = stages, .num_warps = warps,
                                        .layout = layout, .accum = accum});
}

std::vector<KernelConfig> compiled_decode() {
  std::vector<KernelConfig> out;
  for (KernelConfig const& c : hgemm::catalog())
    if (c.family == Family::kDecode) out.push_back(c);
  return out;
}

hgemm::DeviceInfo h100() {
  hgemm::DeviceInfo d = hgemm::tuner::nominal_device("described H100", 132);
  d.ordinal = 0;
  return d;
}

// The aligned stand-ins, or `a` to misalign A.
hgemm::GemmArgs args_for(Problem const& p, uintptr_t a = 0x10000) {
  hgemm::GemmArgs args = hgemm::stand_in_args(p);
  args.a = reinterpret_cast<void const*>(a);
  return args;
}

// Dispatch with no table at all: what an untuned device sees.
hgemm::dispatch::Decision decide(Problem const& p, uintptr_t a = 0x10000) {
  static const hgemm::dispatch::LoadedTable none = hgemm::dispatch::LoadedTable::none("", "");
  return hgemm::dispatch::decide(p, args_for(p, a), h100(), {&none, &none});
}

void expect_refused(KernelConfig const& c, std::string const& why) {
  const hgemm::Status s = c.validate();
  EXPECT_FALSE(s.ok()) << c.name();
  EXPECT_NE(s.message.find(why), std::string::npos) << c.name() << ": " << s.message;
}

}  // namespace

TEST(DecodeConfig, NameIsCanonicalAndRoundTrips) {
  const KernelConfig c = decode(32, 64, 4, 4);
  EXPECT_EQ(c.name(), "decode_n32_k64_s4_w4_f32_tn");
  EXPECT_TRUE(c.validate().ok()) << c.validate().message;
  EXPECT_EQ(c.block_m, 16);
  EXPECT_EQ(c.warps_m, 1);
  EXPECT_EQ(c.num_threads(), 128);
  const KernelConfig nn = decode(128, 32, 3, 8, Layout::kNN, Accum::kF16);
  EXPECT_EQ(nn.name(), "decode_n128_k32_s3_w8_f16_nn");
  EXPECT_EQ(nn.num_threads(), 256);
  for (KernelConfig const& x : {c, nn}) {
    const auto parsed = KernelConfig::parse(x.name());
    ASSERT_TRUE(parsed.has_value()) << x.name();
    EXPECT_EQ(*parsed, x) << x.name();
    EXPECT_EQ(parsed->hash(), x.hash());
  }
  // Only the canonical spelling parses.
  for (const char* bad :
       {"decode_n032_k64_s4_w4_f32_tn", "decode_n32_k64_s4_w4_f32",
        "decode_n32_k64_s4_w4_f32_tn_sk1", "decode_32_k64_s4_w4_f32_tn",
        "decode_n32_k64_s4_w4_f64_tn", "decode_n32_k64_s4_x4_f32_tn", "decode_n32_k64_s4_w4_f32_tt",
        "decode__k64_s4_w4_f32_tn"})
    EXPECT_FALSE(KernelConfig::parse(bad).has_value()) << bad;
}

TEST(DecodeConfig, ValidateNamesTheRuleItBreaks) {
  KernelConfig c = decode(24, 64, 4, 4);
  expect_refused(c, "block_n must be 8, 16, 32, 64 or 128");
  expect_refused(decode(32, 64, 4, 4, Layout::kNN), "NN needs block_n 64 or 128");
  expect_refused(decode(32, 48, 4, 4), "block_k must be 32, 64, 128 or 256");
  expect_refused(decode(32, 64, 1, 4), "2 to 8 stages");
  expect_refused(decode(32, 64, 9, 4), "2 to 8 stages");
  expect_refused(decode(32, 64, 4, 3), "1, 2, 4 or 8 warps");
  // Over the per-block shared memory: 8 warps x 8 stages x 8 chunks x 18 slots x 512 B.
  expect_refused(decode(128, 256, 8, 8), "shared memory");
  c = decode(32, 64, 4, 4);
  c.block_m = 64;
  expect_refused(c, "16 rows");
  c = decode(32, 64, 4, 4);
  c.warps_m = 2;
  expect_refused(c, "warps_m is 1");
  c = decode(32, 64, 4, 4);
  c.split_k = 2;
  expect_refused(c, "does not split K across CTAs");
  c = decode(32, 64, 4, 4);
  c.cluster_m = 2;
  expect_refused(c, "no warpgroups, clusters or TMA");
  c = decode(32, 64, 4, 4);
  c.epilogue = hgemm::Epilogue::kTmaStore;
  expect_refused(c, "no warpgroups, clusters or TMA");
  c = decode(32, 64, 4, 4);
  c.raster = hgemm::Raster::kAlongN;
  expect_refused(c, "no persistent scheduler");
  // A legal NN width.
  EXPECT_TRUE(decode(64, 32, 4, 8, Layout::kNN).validate().ok());
}

TEST(DecodeConfig, HashesDifferAcrossFieldsAndFamilies) {
  std::set<uint64_t> hashes;
  std::set<std::string> names;
  int count = 0;
  for (int bn : {8, 16, 32, 64, 128})
    for (int bk : {32, 64, 128, 256})
      for (int s : {2, 4, 8})
        for (int w : {1, 4, 8})
          for (Accum acc : {Accum::kF32, Accum::kF16}) {
            const KernelConfig c = decode(bn, bk, s, w, Layout::kTN, acc);
            hashes.insert(c.hash());
            names.insert(c.name());
            ++count;
          }
  EXPECT_EQ(int(hashes.size()), count);
  EXPECT_EQ(int(names.size()), count);
  // Same numbers in another family name differently.
  KernelConfig sm80 = decode(32, 64, 4, 4);
  sm80.family = Family::kSm80Mma;
  EXPECT_NE(sm80.hash(), decode(32, 64, 4, 4).hash());
  EXPECT_NE(sm80.name(), decode(32, 64, 4, 4).name());
}

TEST(DecodeConfig, GeometryMatchesTheConfig) {
  // 4 warps x 4 stages x 2 k32 chunks x (4 B rows + 2 A rows) x 32 lanes x 16 B.
  constexpr hgemm::DecodeGeometry g = hgemm::decode_geometry(
      DecodeVariant{.block_n = 32, .block_k = 64, .num_stages = 4, .num_warps = 4});
  static_assert(g.num_threads == 128);
  EXPECT_EQ(g.blocks_n, 4);
  EXPECT_EQ(g.chunks_k, 2);
  EXPECT_EQ(g.b_slots, 4);
  EXPECT_EQ(g.slots_per_stage, 12);
  EXPECT_EQ(g.ring_bytes, 4 * 4 * 2 * 6 * 512);
  EXPECT_EQ(g.reduce_bytes, 4 * 16 * 32 * 4);
  EXPECT_EQ(g.smem_bytes, g.ring_bytes);
  EXPECT_EQ(g.b_stage_bytes, 4 * 32 * 64 * 2);
  EXPECT_FALSE(g.nn);
  // NN: 8 k-rows of 8 columns per lane and 64 columns.
  const hgemm::DecodeGeometry nn = hgemm::decode_geometry(DecodeVariant{
      .block_n = 128, .block_k = 32, .num_stages = 2, .num_warps = 1, .layout = Layout::kNN});
  EXPECT_EQ(nn.b_slots, 16);
  EXPECT_TRUE(nn.nn);
  // The partial sums reuse the ring, which is always the larger: even one warp of two 1-chunk
  // stages holds more than its 16 x 128 floats.
  EXPECT_EQ(nn.ring_bytes, 2 * 18 * 512);
  EXPECT_EQ(nn.reduce_bytes, 16 * 128 * 4);
  EXPECT_EQ(nn.smem_bytes, nn.ring_bytes);
}

TEST(DecodeConfig, CatalogIsTheListInOrderAndLegal) {
  const std::vector<KernelConfig> compiled = compiled_decode();
  ASSERT_EQ(compiled.size(), hgemm::decode::kCatalog.size());
  ASSERT_FALSE(compiled.empty());
  std::set<std::string> names;
  for (size_t i = 0; i < compiled.size(); ++i) {
    const KernelConfig& c = compiled[i];
    EXPECT_EQ(c, hgemm::to_config(hgemm::decode::kCatalog[i])) << c.name();
    EXPECT_TRUE(c.validate().ok()) << c.validate().message;
    EXPECT_EQ(hgemm::decode_variant(c), hgemm::decode::kCatalog[i]) << c.name();
    EXPECT_EQ(c.instance(), c) << c.name();
    const auto parsed = KernelConfig::parse(c.name());
    ASSERT_TRUE(parsed.has_value()) << c.name();
    EXPECT_EQ(*parsed, c);
    const hgemm::DecodeGeometry g = hgemm::decode_geometry(hgemm::decode_variant(c));
    EXPECT_EQ(g.num_threads, c.num_threads()) << c.name();
    EXPECT_EQ(g.smem_bytes, c.smem_bytes()) << c.name();
    EXPECT_LE(g.smem_bytes, hgemm::kMaxSmemPerBlock) << c.name();
    // What the catalog's comments promise: at least 32 KB of B in flight per CTA.
    EXPECT_GE(g.b_stage_bytes * c.num_stages, 32 * 1024) << c.name();
    EXPECT_TRUE(names.insert(c.name()).second) << "duplicate " << c.name();
    EXPECT_NE(hgemm::registry::find(c), nullptr) << c.name();
  }
  // Every width in both accumulations for TN; NN from 64 columns on.
  for (Accum acc : {Accum::kF32, Accum::kF16})
    for (int bn : {8, 16, 32, 64, 128})
      for (Layout l : {Layout::kTN, Layout::kNN}) {
        bool found = false;
        for (KernelConfig const& c : compiled)
          found |= c.block_n == bn && c.layout == l && c.accum == acc;
        EXPECT_EQ(found, l == Layout::kTN || bn >= 64) << bn << " " << to_string(l);
      }
}

hgemm::DeviceInfo h200() {
  hgemm::DeviceInfo d = h100();
  d.name = "described H200";
  d.dram_bytes_per_s = 4.81e12;  // what a real H200 reports (hgemm info)
  return d;
}

// The catalog's TN f32 rows, in catalog order: what dispatch offers the rule.
std::vector<KernelConfig> tn_rows() {
  std::vector<KernelConfig> out;
  for (KernelConfig const& c : compiled_decode())
    if (c.layout == Layout::kTN && c.accum == Accum::kF32 && c.dtype == hgemm::DType::kF16)
      out.push_back(c);
  return out;
}

TEST(DecodeRule, TheStreamModelsLeastTime) {
  const std::vector<KernelConfig> rows = tn_rows();
  ASSERT_EQ(rows.size(), std::size(hgemm::decode::kCatalogRows));
  auto pick = [&](int64_t m, int64_t n, int64_t k, const hgemm::DeviceInfo& d) {
    const auto choice =
        hgemm::dispatch::choose_decode({m, n, k, Layout::kTN, Accum::kF32}, rows, d);
    EXPECT_TRUE(choice.has_value());
    return choice ? rows[choice->index].name() : std::string();
  };
  // The measured picks of bench/results/2026-11-28-h200-decode-rule (H200) and the H100's tuned
  // decode records, which the model reproduces.
  EXPECT_EQ(pick(1, 4608, 3584, h100()), "decode_n16_k64_s4_w4_f32_tn");  // 288 CTAs, one wave
  // 448 CTAs of 16 would need 1.13 waves of 396; 224 of 32 fit one.
  EXPECT_EQ(pick(1, 7168, 5120, h100()), "decode_n32_k64_s4_w4_f32_tn");
  EXPECT_EQ(pick(1, 7168, 5120, h200()), "decode_n32_k64_s4_w4_f32_tn");
  EXPECT_EQ(pick(4, 576, 7168, h100()), "decode_n8_k128_s6_w4_f32_tn");   // 72 CTAs at most
  EXPECT_EQ(pick(16, 4096, 14336, h100()), "decode_n16_k64_s4_w4_f32_tn");
  // Many waves: on the H200 a four-warp 128-column CTA cannot pull its DRAM share.
  EXPECT_EQ(pick(1, 28672, 4096, h200()), "decode_n32_k32_s4_w8_f32_tn");

  // The estimate: more K costs more; one CTA past a full wave costs a second wave.
  const KernelConfig& n16 = rows[1];
  ASSERT_EQ(n16.name(), "decode_n16_k64_s4_w4_f32_tn");
  auto est = [&](int64_t n, int64_t k) {
    return hgemm::dispatch::estimate_decode({1, n, k, Layout::kTN, Accum::kF32}, n16, h200());
  };
  const auto one_wave = est(16 * 396, 4096), spill = est(16 * 397, 4096);
  EXPECT_EQ(one_wave.ctas_per_sm, 3);  // 64 KB of 228
  EXPECT_EQ(one_wave.waves, 1);
  EXPECT_EQ(spill.waves, 2);
  EXPECT_GT(spill.seconds, one_wave.seconds + 1e-6);
  EXPECT_GT(est(4608, 8192).seconds, est(4608, 4096).seconds);
  // A device that reports no memory bandwidth is modelled as an H100.
  hgemm::DeviceInfo unknown = h100();
  unknown.dram_bytes_per_s = 0;
  EXPECT_DOUBLE_EQ(
      hgemm::dispatch::estimate_decode({8, 65536, 4096, Layout::kTN, Accum::kF32}, n16, unknown)
          .seconds,
      hgemm::dispatch::estimate_decode({8, 65536, 4096, Layout::kTN, Accum::kF32}, n16, h100())
          .seconds);

  // The reason carries the arithmetic and the runner-up.
  const auto choice =
      hgemm::dispatch::choose_decode({1, 7168, 5120, Layout::kTN, Accum::kF32}, rows, h200());
  ASSERT_TRUE(choice.has_value());
  EXPECT_NE(choice->reason.find("224 CTAs of 32 columns, 2 per SM on 132 SMs, 1 wave"),
            std::string::npos)
      << choice->reason;
  EXPECT_NE(choice->reason.find("(next: decode_"), std::string::npos) << choice->reason;
  // Of equal estimates the first candidate wins; no candidates, no choice.
  std::vector<KernelConfig> twice{rows[1], rows[1]};
  const auto first =
      hgemm::dispatch::choose_decode({1, 4608, 4096, Layout::kTN, Accum::kF32}, twice, h100());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->index, 0u);
  EXPECT_FALSE(
      hgemm::dispatch::choose_decode({1, 4608, 4096, Layout::kTN, Accum::kF32}, {}, h100()));
}

TEST(DecodeDispatch, UntabledSmallMRunsTheDecodeFamily) {
  struct Case {
    int64_t m, n, k;
    Layout layout;
    int block_n;
  };
  for (Accum acc : {Accum::kF32, Accum::kF16})
    // The stream model's picks on the described H100, where the swap-AB tile would split K
    // (2048 x 8192, 3584 x 4096) or leave SMs idle (576 x 7168, 1 x 8).
    for (Case c : {Case{1, 2048, 8192, Layout::kTN, 16}, Case{8, 3584, 4096, Layout::kTN, 16},
                   Case{4, 576, 7168, Layout::kTN, 8}, Case{3, 1, 8, Layout::kTN, 8}}) {
      const Problem p{c.m, c.n, c.k, c.layout, acc};
      const hgemm::dispatch::Decision d = decide(p);
      ASSERT_NE(d.instance, nullptr) << p.name();
      EXPECT_EQ(d.source, hgemm::dispatch::Source::kDecode) << p.name() << ": " << d.reason;
      EXPECT_EQ(d.config.family, Family::kDecode) << p.name();
      EXPECT_EQ(d.config.block_n, c.block_n) << p.name() << ": " << d.reason;
      EXPECT_EQ(d.config.layout, c.layout);
      EXPECT_EQ(d.config.accum, acc);
      EXPECT_EQ(hgemm::registry::find(d.config), d.instance);
      EXPECT_NE(d.reason.find("decode rule"), std::string::npos) << d.reason;
    }
}

// NN and TN with at most 16 tokens (TN below 12 where it runs unsplit): the swap-AB tile of 64 rows
// of N with the fewest tokens that hold M (8 or 16; its two warpgroups take the k-blocks in turn)
// or of 128 rows (16 tokens), and the split, that the stream model finds quickest (dispatch.cpp,
// small_m_swap_tile).
TEST(DecodeDispatch, UntabledSmallMRunsTheSwapTileThatHoldsItsTokensByTheStreamModel) {
  struct Case {
    int64_t m, n, k;
    Layout layout;
    int rows, split;
  };
  for (Accum acc : {Accum::kF32, Accum::kF16})
    for (Case c : {// Two waves of 64-row CTAs, the second well filled: unsplit 64 rows (128 rows
                   // model level, less the margin a one-warpgroup tile must win by).
                   Case{16, 14336, 4096, Layout::kTN, 64, 1},
                   Case{2, 28672, 4096, Layout::kNN, 64, 1},
                   // 64 CTAs in one wave stream at the DRAM rate: unsplit.
                   Case{16, 4096, 14336, Layout::kTN, 64, 1},
                   Case{16, 4096, 4096, Layout::kNN, 64, 1},
                   // Below 12 tokens in TN too, where the tile runs unsplit (72 and 224 CTAs).
                   Case{1, 4608, 4096, Layout::kTN, 64, 1},
                   Case{8, 14336, 4096, Layout::kTN, 64, 1},
                   // 32 CTAs leave the SMs short: split twice (each part keeps 4096 of K); four
                   // ways ties and the fewer splits win.
                   Case{12, 2048, 8192, Layout::kTN, 64, 2}, Case{8, 2048, 8192, Layout::kNN, 64, 2},
                   // Too little K to split: 2 CTAs.
                   Case{16, 104, 1000, Layout::kNN, 64, 1}, Case{3, 2048, 1408, Layout::kNN, 64, 1},
                   // 65 CTAs, one wave: B at the DRAM rate, unsplit.
                   Case{1, 4104, 2048, Layout::kNN, 64, 1},
                   // 160 CTAs of 64 rows leave a second wave of 28: 80 of 128 rows in one.
                   Case{12, 10240, 8192, Layout::kTN, 128, 1},
                   Case{1, 10240, 8192, Layout::kNN, 128, 1}}) {
      const Problem p{c.m, c.n, c.k, c.layout, acc};
      const hgemm::dispatch::Decision d = decide(p);
      ASSERT_NE(d.instance, nullptr) << p.name();
      EXPECT_EQ(d.source, hgemm::dispatch::Source::kDecode) << p.name() << ": " << d.reason;
      EXPECT_EQ(d.config.family, Family::kSm90Ws) << p.name() << ": " << d.reason;
      EXPECT_TRUE(d.config.swap_ab) << d.config.name();
      EXPECT_EQ(d.config.layout, c.layout);
      EXPECT_EQ(d.config.accum, acc);
      EXPECT_EQ(d.config.block_n, c.rows) << p.name() << ": " << d.reason;
      EXPECT_EQ(d.config.block_m, c.m <= 8 && c.rows == 64 ? 8 : 16)
          << p.name() << ": " << d.config.name();
      EXPECT_EQ(d.config.num_consumer_wgs, c.rows == 64 ? 2 : 1) << d.config.name();
      EXPECT_EQ(d.config.split_k, c.split) << p.name() << ": " << d.reason;
      EXPECT_EQ(hgemm::registry::find(d.config.instance()), d.instance);
      EXPECT_NE(d.reason.find(std::string(c.layout == Layout::kNN ? "in NN" : "in TN") +
                              ": the swap-AB tile"),
                std::string::npos)
          << d.reason;
      EXPECT_NE(d.reason.find("stream model"), std::string::npos) << d.reason;
    }
  // 24 CTAs of 64 rows leave most SMs idle unsplit, and K = 7168 can be split.
  EXPECT_GT(decide({1, 1536, 7168, Layout::kNN, Accum::kF32}).config.split_k, 1);
  // What no swap-AB tile runs falls through to the rules after this one: N % 8 != 0 (the swapped
  // tile's rows of C^T) to the decode kernels, a misaligned A (TMA needs 16 bytes; so does the
  // decode kernel, which names it) to the safety net.
  EXPECT_EQ(decide({16, 100, 1000, Layout::kTN, Accum::kF32}).config.family, Family::kDecode);
  const hgemm::dispatch::Decision misaligned =
      decide({12, 4096, 4096, Layout::kTN, Accum::kF32}, 0x10002);
  EXPECT_NE(misaligned.config.family, Family::kSm90Ws) << misaligned.reason;
  EXPECT_NE(misaligned.config.family, Family::kDecode) << misaligned.reason;
}

// In TN up to 15 tokens a tile grid of fewer than 64 CTAs (split included) cannot stream B at
// the DRAM rate by the stream model's terms, and below 12 tokens a tile that splits K pays a
// second pass that the decode kernels do not: in both the decode kernels run, and the reason
// names the tile they replaced and why. NN keeps the tile (its decode kernels transpose B in
// registers), and so does TN at 16 tokens (where the decode kernels measured slower).
TEST(DecodeDispatch, SmallTnGridsAndSplitsBelowTwelveTokensRunTheDecodeKernels) {
  constexpr const char* kFewCtas = "CTAs, under the 64 that stream B";
  constexpr const char* kSplit = "splits K in two kernels below 12 tokens";
  struct Case {
    int64_t m, n, k;
    Layout layout;
    const char* decode_because;  // nullptr: the tile runs
  };
  for (Accum acc : {Accum::kF32, Accum::kF16})
    for (Case c : {// 32 CTAs, K too short to split (N = 2048, K = 2816): decode.
                   Case{12, 2048, 2816, Layout::kTN, kFewCtas},
                   Case{8, 2048, 2816, Layout::kTN, kFewCtas},
                   // 9 CTAs of 64 rows: decode.
                   Case{15, 576, 2048, Layout::kTN, kFewCtas},
                   // 32 CTAs split twice: 64, the tile stays from 12 tokens ...
                   Case{12, 2048, 8192, Layout::kTN, nullptr},
                   // ... and below 12 the split sends the call to the decode kernels.
                   Case{8, 2048, 8192, Layout::kTN, kSplit},
                   Case{1, 2048, 8192, Layout::kTN, kSplit},
                   // 64 or more unsplit CTAs: the tile stays, at any token count.
                   Case{15, 4096, 4096, Layout::kTN, nullptr},
                   Case{11, 14336, 4096, Layout::kTN, nullptr},
                   Case{1, 4608, 4096, Layout::kTN, nullptr},
                   // 16 tokens keep the tile under 64 CTAs too.
                   Case{16, 2048, 2816, Layout::kTN, nullptr},
                   // NN keeps the tile at any grid and split.
                   Case{12, 2048, 2816, Layout::kNN, nullptr},
                   Case{8, 2048, 8192, Layout::kNN, nullptr}}) {
      const Problem p{c.m, c.n, c.k, c.layout, acc};
      const hgemm::dispatch::Decision d = decide(p);
      ASSERT_NE(d.instance, nullptr) << p.name();
      EXPECT_EQ(d.source, hgemm::dispatch::Source::kDecode) << p.name() << ": " << d.reason;
      EXPECT_EQ(d.config.family == Family::kDecode, c.decode_because != nullptr)
          << p.name() << ": " << d.reason;
      for (const char* why : {kFewCtas, kSplit})
        EXPECT_EQ(d.reason.find(why) != std::string::npos, c.decode_because == why)
            << p.name() << ": " << d.reason;
    }
}

TEST(DecodeDispatch, WhatDecodeCannotRunGoesElsewhereWithTheReason) {
  // M = 17, K % 8 != 0, NN with N % 8 != 0, a misaligned A.
  for (auto [p, a, why] :
       {std::tuple{Problem{17, 4096, 4096, Layout::kTN, Accum::kF32}, uintptr_t(0x10000), ""},
        std::tuple{Problem{8, 4096, 4100, Layout::kTN, Accum::kF32}, uintptr_t(0x10000),
                   "K % 8 == 0"},
        std::tuple{Problem{8, 4100, 4096, Layout::kNN, Accum::kF32}, uintptr_t(0x10000),
                   "N % 8 == 0"},
        std::tuple{Problem{8, 4096, 4096, Layout::kTN, Accum::kF32}, uintptr_t(0x10002),
                   "aligned"}}) {
    const hgemm::dispatch::Decision d = decide(p, a);
    ASSERT_NE(d.instance, nullptr) << p.name();
    EXPECT_NE(d.config.family, Family::kDecode) << p.name();
    EXPECT_NE(d.source, hgemm::dispatch::Source::kDecode) << p.name();
    if (*why) EXPECT_NE(d.reason.find(why), std::string::npos) << p.name() << ": " << d.reason;
  }
  // can_implement names the limit for M > 16.
  const KernelConfig c = compiled_decode().front();
  const Problem big{17, 4096, 4096, c.layout, c.accum};
  const hgemm::Status s = hgemm::registry::can_implement(big, c, args_for(big), h100());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("at most 16 rows"), std::string::npos) << s.message;
}

TEST(DecodeDispatch, CostModelPrefersFullGridsAndCountsARereads) {
  const hgemm::DeviceInfo d = h100();
  const Problem p{16, 14336, 4096, Layout::kTN, Accum::kF32};
  const double n8 = hgemm::dispatch::estimate_cost(p, decode(8, 64, 4, 4), d);
  const double n64 = hgemm::dispatch::estimate_cost(p, decode(64, 64, 4, 4), d);
  EXPECT_TRUE(std::isfinite(n64) && n64 > 0);
  // 1792 CTAs each re-reading A send twice B's bytes through L2; 224 CTAs a quarter.
  EXPECT_LT(n64, n8);
  // 36 CTAs of 128 columns leave most SMs idle.
  const Problem small{1, 4608, 4096, Layout::kTN, Accum::kF32};
  EXPECT_GT(hgemm::dispatch::estimate_cost(small, decode(128, 32, 4, 4), d),
            hgemm::dispatch::estimate_cost(small, decode(16, 64, 4, 4), d));
  EXPECT_EQ(hgemm::dispatch::split_candidates(small, decode(16, 64, 4, 4), d),
            std::vector<int>{1});
}

TEST(DecodeSpace, OfferedForSmallMOnly) {
  const hgemm::tuner::SearchSpace space = hgemm::tuner::SearchSpace::from_catalog(h100());
  auto count_decode = [&](Problem const& p) {
    int n = 0;
    for (KernelConfig const& c : space.enumerate(p)) n += c.family == Family::kDecode;
    return n;
  };
  EXPECT_GT(count_decode({8, 14336, 4096, Layout::kTN, Accum::kF32}), 1);
  EXPECT_GT(count_decode({1, 4608, 3584, Layout::kNN, Accum::kF16}), 0);
  EXPECT_EQ(count_decode({17, 14336, 4096, Layout::kTN, Accum::kF32}), 0);
  EXPECT_EQ(count_decode({8, 14336, 4100, Layout::kTN, Accum::kF32}), 0);
  const Problem big{32, 4096, 4096, Layout::kTN, Accum::kF32};
  const auto v = space.check(compiled_decode().front(), &big);
  ASSERT_FALSE(v.empty());
  bool named = false;
  for (auto const& x : v) named |= x.rule == "decode_shape";
  EXPECT_TRUE(named);
  // One axis apart: a decode config's neighbours are decode configs of its layout and acc.
  const KernelConfig c = decode(16, 64, 4, 4);
  for (KernelConfig const& x : space.neighbors(c)) {
    EXPECT_EQ(x.family, Family::kDecode);
    EXPECT_EQ(x.layout, c.layout);
    EXPECT_EQ(x.accum, c.accum);
  }
  // The declared product holds legal decode configs only.
  const auto declared = space.declared(Family::kDecode, Layout::kNN, Accum::kF32);
  EXPECT_FALSE(declared.empty());
  for (KernelConfig const& x : declared) {
    EXPECT_TRUE(x.validate().ok()) << x.name();
    EXPECT_EQ(x.block_n % 64, 0) << x.name();
  }
}

// A described H200 has no table of its own: explain shows it reading the H100's.
TEST(DecodeExplain, AnH200ReadsTheH100sTable) {
  const CliResult r = run_cli("explain 333 4096 4096 --gpu h200",
                              std::string(kNoDevice) + " HGEMM_USER_TABLE=/nonexistent/user.table");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("on NVIDIA H200 (132 SMs)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rule    neighbours"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nvidia-h100-80gb-hbm3-f32.table (loaded: tuned on NVIDIA H100 80GB "
                          "HBM3 (132 SMs), used on NVIDIA H200 (132 SMs)"),
            std::string::npos)
      << r.output;
  const CliResult bad = run_cli("explain 1 4608 3584 --gpu b200", kNoDevice);
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--gpu knows h100 and h200, not 'b200'"), std::string::npos)
      << bad.output;
}

TEST(DecodeExplain, SaysTheDecodeRuleChose) {
  const CliResult r = run_cli("explain 1 2048 8192 --gpu h100",
                              std::string(kNoDevice) + " HGEMM_USER_TABLE=/nonexistent/user.table");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("runs    decode_n16_"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rule    decode rule"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("128 CTAs of 16 columns"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("_sk2_f32_tn_swap splits K in two kernels below 12 tokens"),
            std::string::npos)
      << r.output;
}
