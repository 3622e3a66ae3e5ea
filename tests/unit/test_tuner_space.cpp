// The tuner's search space: the runnable set, legality rules with their reasons, neighbours and
// features. CPU only: the space is built from an explicit config list, never from a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "tuner/space/space.hpp"

namespace hgemm::tuner {
namespace {

KernelConfig sm90(int bm, int bn, int bk, int stages, int wgs, int cm, int cn, Epilogue e,
                  Layout layout = Layout::kTN, Accum accum = Accum::kF32) {
  KernelConfig c;
  c.family = Family::kSm90Ws;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.num_stages = stages;
  c.num_consumer_wgs = wgs;
  c.cluster_m = cm;
  c.cluster_n = cn;
  c.epilogue = e;
  c.layout = layout;
  c.accum = accum;
  return c;
}

KernelConfig sm80(int bm, int bn, Layout layout = Layout::kTN, Accum accum = Accum::kF32) {
  KernelConfig c;
  c.block_m = bm;
  c.block_n = bn;
  c.layout = layout;
  c.accum = accum;
  return c;
}

// The shape of today's catalog: five sm90 instances and two sm80, in every layout/accumulation.
std::vector<KernelConfig> catalog_like() {
  std::vector<KernelConfig> out;
  for (Layout l : {Layout::kNN, Layout::kTN})
    for (Accum a : {Accum::kF32, Accum::kF16}) {
      out.push_back(sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore, l, a));
      out.push_back(sm90(128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore, l, a));
      out.push_back(sm90(256, 128, 64, 4, 2, 2, 1, Epilogue::kDirect, l, a));
      out.push_back(sm90(64, 256, 64, 4, 1, 1, 1, Epilogue::kTmaStore, l, a));
      out.push_back(sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect, l, a));
      out.push_back(sm80(128, 128, l, a));
      out.push_back(sm80(64, 64, l, a));
    }
  return out;
}

bool has_rule(const std::vector<Violation>& v, const std::string& rule) {
  return std::any_of(v.begin(), v.end(), [&](const Violation& x) { return x.rule == rule; });
}

// The GPUs `hgemm explain --gpu` describes: an H200 is an H100's SMs with more L2 and HBM3e.
TEST(TunerSpace, DescribedDevices) {
  const std::optional<DeviceInfo> h100 = described_device("h100");
  const std::optional<DeviceInfo> h200 = described_device("h200");
  ASSERT_TRUE(h100 && h200);
  EXPECT_EQ(h100->name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h200->name, "NVIDIA H200");
  EXPECT_EQ(h100->sm_count, h200->sm_count);
  EXPECT_GT(h200->l2_bytes, h100->l2_bytes);
  EXPECT_GT(h200->dram_bytes_per_s, h100->dram_bytes_per_s);
  EXPECT_FALSE(described_device("b200"));
  EXPECT_FALSE(described_device("H100"));
}

TEST(TunerSpace, RunnableSetExpandsRuntimeAxes) {
  const SearchSpace space(catalog_like(), nominal_device());
  // Per layout/accumulation: 5 sm90 instances x (2 raster directions x 5 group sizes + 5 split
  // factors, which run with the default raster) + 2 sm80 x 6 split factors.
  EXPECT_EQ(space.configs().size(), size_t(4 * (5 * (2 * 5 + 5) + 2 * 6)));
  std::set<std::string> names;
  for (const KernelConfig& c : space.configs()) {
    EXPECT_TRUE(c.validate().ok()) << c.name();
    EXPECT_TRUE(names.insert(c.name()).second) << "duplicate " << c.name();
  }
  // An instance given twice (differing only in run-time axes) is one instance.
  auto twice = catalog_like();
  twice.push_back(twice.front());
  twice.back().raster = Raster::kAlongN;
  EXPECT_EQ(SearchSpace(twice, nominal_device()).configs().size(), space.configs().size());
}

TEST(TunerSpace, RulesHaveNamesAndReasons) {
  for (const FamilySpace& f : families()) {
    std::set<std::string_view> seen;
    for (const Rule& r : f.rules) {
      EXPECT_FALSE(r.name.empty());
      EXPECT_GT(r.reason.size(), 20u) << r.name;
      EXPECT_TRUE(seen.insert(r.name).second) << "duplicate rule " << r.name;
    }
    EXPECT_FALSE(f.axes.empty());
    for (const Axis& a : f.axes) EXPECT_TRUE(std::is_sorted(a.values.begin(), a.values.end()));
  }
  // TMA alignment is an sm90 rule only: the sm80 safety net takes any shape.
  auto names = [](Family fam) {
    std::set<std::string_view> out;
    for (const Rule& r : family_space(fam).rules) out.insert(r.name);
    return out;
  };
  EXPECT_TRUE(names(Family::kSm90Ws).count("tma_row_stride"));
  EXPECT_FALSE(names(Family::kSm80Mma).count("tma_row_stride"));
}

TEST(TunerSpace, IllegalConfigsAreRejectedWithReasons) {
  const SearchSpace space(catalog_like(), nominal_device());

  // Not a wgmma N step.
  auto v = space.check(sm90(128, 196, 64, 4, 2, 1, 1, Epilogue::kDirect));
  ASSERT_TRUE(has_rule(v, "structure"));
  EXPECT_NE(v.front().message.find("wgmma N"), std::string::npos) << v.front().message;

  // Over the shared-memory budget (8 stages of 128x256x64 plus C staging).
  v = space.check(sm90(128, 256, 64, 8, 2, 1, 1, Epilogue::kTmaStore));
  ASSERT_TRUE(has_rule(v, "structure"));
  EXPECT_NE(v.front().message.find("shared memory"), std::string::npos) << v.front().message;

  // Over the register budget: one consumer warpgroup owning a 128x256 accumulator.
  v = space.check(sm90(128, 256, 64, 3, 1, 1, 1, Epilogue::kDirect));
  ASSERT_TRUE(has_rule(v, "structure"));
  EXPECT_NE(v.front().message.find("register"), std::string::npos) << v.front().message;

  // Structurally fine but not compiled into this build.
  v = space.check(sm90(128, 64, 64, 6, 2, 1, 1, Epilogue::kDirect));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v.front().rule, "compiled");

  // A device with less shared memory than the H100 (an sm_86-class 99 KiB).
  DeviceInfo small = nominal_device("small-smem", 84);
  small.max_smem_per_block_optin = 99 * 1024;
  const SearchSpace small_space(catalog_like(), small);
  v = small_space.check(sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore));
  ASSERT_TRUE(has_rule(v, "device_smem"));
  for (const KernelConfig& c : small_space.configs())
    EXPECT_FALSE(has_rule(small_space.check(c), "device_smem")) << c.name();
  EXPECT_LT(small_space.configs().size(), space.configs().size());
}

TEST(TunerSpace, ProblemRules) {
  const SearchSpace space(catalog_like(), nominal_device());
  const KernelConfig tma = sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore);
  const KernelConfig net = sm80(128, 128);

  Problem odd_k{512, 512, 100, Layout::kTN, Accum::kF32};
  auto v = space.check(tma, &odd_k);
  ASSERT_TRUE(has_rule(v, "tma_row_stride"));
  EXPECT_NE(v.front().message.find("K=100"), std::string::npos);
  EXPECT_TRUE(space.check(net, &odd_k).empty());

  Problem odd_n{512, 100, 512, Layout::kTN, Accum::kF32};
  EXPECT_TRUE(has_rule(space.check(tma, &odd_n), "tma_row_stride"));

  Problem nn{512, 512, 512, Layout::kNN, Accum::kF32};
  v = space.check(tma, &nn);
  ASSERT_TRUE(has_rule(v, "layout_accum"));
  EXPECT_FALSE(space.legal(nn, tma).ok());
  EXPECT_NE(space.legal(nn, tma).message.find("layout_accum"), std::string::npos);

  Problem bad{0, 512, 512, Layout::kTN, Accum::kF32};
  EXPECT_TRUE(has_rule(space.check(net, &bad), "problem"));
}

TEST(TunerSpace, EnumerateFiltersForTheProblem) {
  const SearchSpace space(catalog_like(), nominal_device());
  const Problem p{4096, 4096, 4096, Layout::kNN, Accum::kF16};
  const auto all = space.enumerate(p);
  // 1024 tiles of 128x128 fill the SMs: no split is legal.
  EXPECT_EQ(all.size(), size_t(5 * 2 * 5 + 2));
  for (const KernelConfig& c : all) {
    EXPECT_EQ(c.layout, p.layout);
    EXPECT_EQ(c.accum, p.accum);
    EXPECT_TRUE(space.legal(p, c).ok()) << c.name();
  }
  // K not a multiple of 8: only the safety net remains.
  const auto net_only = space.enumerate({4096, 4096, 4090, Layout::kNN, Accum::kF16});
  ASSERT_EQ(net_only.size(), 2u);
  for (const KernelConfig& c : net_only) EXPECT_EQ(c.family, Family::kSm80Mma);
}

TEST(TunerSpace, NeighborsDifferInOneAxis) {
  const SearchSpace space(catalog_like(), nominal_device());
  KernelConfig c = sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore);
  c.group_size = 4;
  const auto near = space.neighbors(c);
  // The other raster direction and the four other group sizes; no compiled instance is one
  // compiled axis away from another in this catalog.
  ASSERT_EQ(near.size(), 5u);
  for (const KernelConfig& d : near) {
    int differing = 0;
    for (const Axis& a : family_space(d.family).axes) differing += a.get(d) != a.get(c);
    EXPECT_EQ(differing, 1) << d.name();
    EXPECT_NE(d, c);
  }
  // Two instances one axis apart (stages) are neighbours.
  auto list = catalog_like();
  list.push_back(sm90(128, 128, 64, 4, 2, 1, 2, Epilogue::kTmaStore));
  const SearchSpace wider(list, nominal_device());
  KernelConfig d = sm90(128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore);
  d.group_size = 4;
  const auto near2 = wider.neighbors(d);
  EXPECT_EQ(near2.size(), 6u);
  EXPECT_TRUE(std::any_of(near2.begin(), near2.end(),
                          [](const KernelConfig& d) { return d.num_stages == 4; }));
  // An sm80 instance's neighbours are its other split factors.
  const auto splits = space.neighbors(sm80(128, 128));
  ASSERT_EQ(splits.size(), 5u);
  for (const KernelConfig& d : splits) {
    EXPECT_NE(d.split_k, 1);
    EXPECT_EQ(d.block_m, 128);
  }
}

TEST(TunerSpace, SplitKRule) {
  const SearchSpace space(catalog_like(), nominal_device());
  auto count_splits = [&](const Problem& p, int block_m) {
    std::vector<int> out;
    for (const KernelConfig& c : space.enumerate(p))
      if (c.family == Family::kSm80Mma && c.block_m == block_m) out.push_back(c.split_k);
    return out;
  };
  // Few tiles and a long K: every factor up to 32 keeps >= 256 of K per split.
  EXPECT_EQ(count_splits({256, 256, 16384, Layout::kTN, Accum::kF32}, 128),
            (std::vector<int>{1, 2, 4, 8, 16, 32}));
  // K = 1024 leaves 256 per split at 4 ways.
  EXPECT_EQ(count_splits({256, 256, 1024, Layout::kTN, Accum::kF32}, 64),
            (std::vector<int>{1, 2, 4}));
  // 8192x128 partials take 4 MiB per split: 8 fit the 32 MiB workspace. The 64x64 tile already
  // has 256 tiles, more than the SMs.
  const Problem tall{8192, 128, 4096, Layout::kTN, Accum::kF32};
  EXPECT_EQ(count_splits(tall, 128), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(count_splits(tall, 64), (std::vector<int>{1}));

  KernelConfig c = sm80(128, 128);
  c.split_k = 16;
  auto v = space.check(c, &tall);
  ASSERT_TRUE(has_rule(v, "split_k"));
  EXPECT_NE(v.front().message.find("workspace"), std::string::npos) << v.front().message;
  c.split_k = 8;
  const Problem short_k{256, 256, 1024, Layout::kTN, Accum::kF32};
  v = space.check(c, &short_k);
  ASSERT_TRUE(has_rule(v, "split_k"));
  EXPECT_NE(v.front().message.find("256"), std::string::npos) << v.front().message;
  const Problem big{4096, 4096, 4096, Layout::kTN, Accum::kF32};
  c.split_k = 2;
  v = space.check(c, &big);
  ASSERT_TRUE(has_rule(v, "split_k"));
  EXPECT_NE(v.front().message.find("fill"), std::string::npos) << v.front().message;
  // sm90 splits too, with the default raster and group only.
  KernelConfig w = sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect);
  w.split_k = 4;
  const Problem decode{128, 3072, 8192, Layout::kTN, Accum::kF32};
  EXPECT_TRUE(space.check(w, &decode).empty());
  w.group_size = 4;
  v = space.check(w);
  ASSERT_TRUE(has_rule(v, "split_k"));
  EXPECT_NE(v.front().message.find("default raster"), std::string::npos) << v.front().message;
}

TEST(TunerSpace, FeaturesAreSane) {
  const SearchSpace space(catalog_like(), nominal_device());
  const KernelConfig big = sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore);
  auto finite_and_bounded = [](const Features& f) {
    for (double x : f.problem) EXPECT_TRUE(std::isfinite(x) && std::abs(x) <= 2.0) << x;
    for (double x : f.config) EXPECT_TRUE(std::isfinite(x) && std::abs(x) <= 2.0) << x;
    for (double x : f.joint) EXPECT_TRUE(std::isfinite(x) && std::abs(x) <= 2.0) << x;
  };
  auto index = [](const auto& names, std::string_view name) {
    return size_t(std::find(names.begin(), names.end(), name) - names.begin());
  };
  const auto& jn = Features::joint_names();
  const auto& pn = Features::problem_names();

  for (const Problem& p : {Problem{1, 8, 8, Layout::kTN, Accum::kF32},
                           Problem{16384, 16384, 16384, Layout::kTN, Accum::kF32},
                           Problem{64, 16384, 12288, Layout::kTN, Accum::kF32}})
    for (const KernelConfig& c : space.enumerate(p)) finite_and_bounded(space.features(p, c));

  // Problem features do not depend on the config.
  const Problem p{4096, 2048, 1024, Layout::kTN, Accum::kF32};
  const auto all = space.enumerate(p);
  for (const KernelConfig& c : all)
    EXPECT_EQ(space.features(p, c).problem, space.features(p, big).problem);
  EXPECT_EQ(space.features(p, big).problem[0], 1.0);  // the bias
  EXPECT_GT(space.features(p, big).problem[index(pn, "log_m_over_n")], 0.0);

  // Waves grow with M; a divisible shape has tile efficiency 1, a ragged one less.
  const Problem small{256, 4096, 4096, Layout::kTN, Accum::kF32};
  const Problem large{16384, 4096, 4096, Layout::kTN, Accum::kF32};
  const Problem ragged{16384 + 8, 4096, 4096, Layout::kTN, Accum::kF32};
  const size_t waves = index(jn, "log_waves"), tile = index(jn, "tile_efficiency"),
               fill = index(jn, "last_wave_fill");
  EXPECT_LT(space.features(small, big).joint[waves], space.features(large, big).joint[waves]);
  EXPECT_DOUBLE_EQ(space.features(large, big).joint[tile], 1.0);
  EXPECT_LT(space.features(ragged, big).joint[tile], 1.0);
  for (const Problem& q : {small, large, ragged}) {
    const double f = space.features(q, big).joint[fill];
    EXPECT_GT(f, 0.0);
    EXPECT_LE(f, 1.0);
  }
  // 16384x4096 in 128x256 tiles: 512 tiles on 132 SMs = 3.88 waves -> the last is 88% full.
  EXPECT_NEAR(space.features(large, big).joint[fill], 512.0 / (4 * 132), 1e-12);
}

TEST(TunerSpace, DeclaredSpaceIsSmallAndValid) {
  const SearchSpace space(catalog_like(), nominal_device());
  for (Family fam : {Family::kSm90Ws, Family::kSm80Mma}) {
    const auto declared = space.declared(fam, Layout::kTN, Accum::kF32);
    EXPECT_FALSE(declared.empty());
    EXPECT_LT(declared.size(), 250000u);
    for (const KernelConfig& c : declared) ASSERT_TRUE(c.validate().ok()) << c.name();
  }
  // Every compiled TN/f32 config lies in the declared space.
  const auto declared = space.declared(Family::kSm90Ws, Layout::kTN, Accum::kF32);
  for (const KernelConfig& c : space.configs()) {
    if (c.family != Family::kSm90Ws || c.layout != Layout::kTN || c.accum != Accum::kF32) continue;
    EXPECT_NE(std::find(declared.begin(), declared.end(), c), declared.end()) << c.name();
  }
}

}  // namespace
}  // namespace hgemm::tuner
