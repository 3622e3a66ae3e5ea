// Dispatch decisions on a described (not real) H100: select() only reads DeviceInfo and the
// pointers' alignment, so these run without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "core/device.hpp"
#include "dispatch/cost.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/gemm_route.hpp"
#include "launch/launch.hpp"
#include "launch/sm90_catalog.hpp"
#include "registry/registry.hpp"
#include "tuner/space/space.hpp"

namespace {

using namespace hgemm;

DeviceInfo h100() {
  DeviceInfo d = tuner::nominal_device("described H100", 132);
  d.ordinal = 0;
  return d;
}

TEST(Dispatch, SmallOutputLongKSplitsK) {
  const DeviceInfo d = h100();
  for (Accum acc : {Accum::kF32, Accum::kF16}) {
    const Problem p{256, 128, 16384, Layout::kTN, acc};
    const dispatch::Decision& c = dispatch::select(p, stand_in_args(p), d);
    ASSERT_NE(c.instance, nullptr);
    EXPECT_GT(c.config.split_k, 1) << c.config.name();
    EXPECT_TRUE(c.config.validate().ok()) << c.config.name();
    EXPECT_EQ(registry::find(c.config), c.instance);
    // The split must beat the same instance unsplit in the model, or the choice is arbitrary.
    KernelConfig unsplit = c.config;
    unsplit.split_k = 1;
    EXPECT_LT(dispatch::estimate_cost(p, c.config, d), dispatch::estimate_cost(p, unsplit, d));
  }
}

TEST(Dispatch, LargeShapesDoNotSplit) {
  const DeviceInfo d = h100();
  for (int64_t s : {4096, 8192}) {
    const Problem p{s, s, s, Layout::kTN, Accum::kF32};
    const dispatch::Decision& c = dispatch::select(p, stand_in_args(p), d);
    EXPECT_EQ(c.config.family, Family::kSm90Ws) << c.config.name();
    EXPECT_EQ(c.config.split_k, 1) << c.config.name();
  }
}

TEST(Dispatch, ShortKDoesNotSplit) {
  const DeviceInfo d = h100();
  const Problem p{128, 128, 256, Layout::kNN, Accum::kF32};
  EXPECT_EQ(dispatch::select(p, stand_in_args(p), d).config.split_k, 1);
}

TEST(Dispatch, SplitReductionIsCharged) {
  const DeviceInfo d = h100();
  const Problem p{64, 64, 65536, Layout::kTN, Accum::kF32};
  KernelConfig c = registry::find(KernelConfig{})->config;  // an sm80 instance
  c.layout = Layout::kTN;
  c.split_k = 1;
  const double base = dispatch::estimate_cost(p, c, d);
  c.split_k = 8;
  const double split8 = dispatch::estimate_cost(p, c, d);
  EXPECT_LT(split8, base);
  // Past the point where the grid is full, more splits only add partial traffic.
  c.split_k = 64;
  const Problem wide{4096, 4096, 65536, Layout::kTN, Accum::kF32};
  KernelConfig c1 = c;
  c1.split_k = 1;
  EXPECT_GT(dispatch::estimate_cost(wide, c, d), dispatch::estimate_cost(wide, c1, d));
}

// A cluster tile that reaches past M still occupies its CTAs: at M = 128, 128-row tiles in 2x1
// clusters leave half of every cluster idle, so 112 useful tiles need 224 SMs, two waves.
TEST(Dispatch, CostCountsTheCtasAClusterWastes) {
  const DeviceInfo d = h100();
  const Problem p{128, 28672, 4096, Layout::kTN, Accum::kF32};
  KernelConfig pair;
  pair.family = Family::kSm90Ws;
  pair.block_m = 128;
  pair.block_n = 256;
  pair.num_stages = 4;
  pair.cluster_m = 2;
  pair.cluster_n = 1;
  pair.epilogue = Epilogue::kTmaStore;
  pair.layout = p.layout;
  KernelConfig single = pair;
  single.cluster_m = 1;
  EXPECT_DOUBLE_EQ(dispatch::estimate_cost(p, pair, d), 2 * dispatch::estimate_cost(p, single, d));
  // Where M fills both halves, the cluster costs nothing.
  const Problem tall{256, 28672, 4096, Layout::kTN, Accum::kF32};
  EXPECT_DOUBLE_EQ(dispatch::estimate_cost(tall, pair, d), dispatch::estimate_cost(tall, single, d));
}

TEST(KernelConfigSplit, Sm80AcceptsSplitsInRange) {
  KernelConfig c;
  for (int s : {1, 2, 7, 64}) {
    c.split_k = s;
    EXPECT_TRUE(c.validate().ok()) << s;
    auto parsed = KernelConfig::parse(c.name());
    ASSERT_TRUE(parsed.has_value()) << c.name();
    EXPECT_EQ(parsed->split_k, s);
  }
  for (int s : {0, -1, 65}) {
    c.split_k = s;
    EXPECT_FALSE(c.validate().ok()) << s;
  }
}

}  // namespace

namespace {

// Tables of one exact entry: what a shipped or user table says for the problem.
struct OneEntryTables {
  dispatch::LoadedTable user, shipped;
  dispatch::Tables tables() const { return {&user, &shipped}; }
};

OneEntryTables shipped_entry(const Problem& p, const KernelConfig& config, bool searched_split_k,
                             const DeviceInfo& d) {
  dispatch::Table t;
  t.gpu = d.name;
  t.sm_count = d.sm_count;
  t.accum = p.accum;
  t.entries.push_back({p.m, p.n, p.k, p.layout, config, searched_split_k});
  return {dispatch::LoadedTable::none("", ""), dispatch::LoadedTable(t, "test.table", d)};
}

KernelConfig sm90_config(Layout layout) {
  for (const auto& inst : registry::instances())
    if (inst.config.family == Family::kSm90Ws && inst.config.layout == layout &&
        inst.config.accum == Accum::kF32 && inst.config.dtype == DType::kF16 &&
        inst.config.block_m == 128 &&
        inst.config.block_n == 128)
      return inst.config;
  ADD_FAILURE() << "no sm90 128x128 f32 instance";
  return {};
}

constexpr int64_t kAdvisedM = 3072, kAdvisedN = 2560, kAdvisedK = 1536;

TEST(DispatchTableEntry, CompiledLegalEntryRunsWithItsRuntimeArguments) {
  const DeviceInfo d = h100();
  KernelConfig advice = sm90_config(Layout::kTN);
  advice.raster = Raster::kAlongN;
  advice.group_size = 2;
  const Problem p{kAdvisedM, kAdvisedN, kAdvisedK, Layout::kTN, Accum::kF32};
  const OneEntryTables t = shipped_entry(p, advice, true, d);
  const dispatch::Decision c = dispatch::decide(p, stand_in_args(p), d, t.tables());
  EXPECT_EQ(c.config, advice) << c.config.name();
  EXPECT_EQ(c.instance, registry::find(advice));
  EXPECT_EQ(c.source, dispatch::Source::kShippedTable) << c.reason;
}

TEST(DispatchTableEntry, UncompiledOrIllegalEntryFallsBackToTheHeuristic) {
  const DeviceInfo d = h100();
  // A valid config that is not in the catalog.
  KernelConfig uncompiled = sm90_config(Layout::kNN);
  for (int stages = 2; stages <= 8; ++stages) {
    uncompiled.num_stages = stages;
    if (uncompiled.validate().ok() && registry::find(uncompiled) == nullptr) break;
  }
  ASSERT_TRUE(uncompiled.validate().ok()) << uncompiled.validate().message;
  ASSERT_EQ(registry::find(uncompiled), nullptr) << uncompiled.name();
  const Problem p{kAdvisedM, kAdvisedN, kAdvisedK, Layout::kNN, Accum::kF32};
  const OneEntryTables t = shipped_entry(p, uncompiled, true, d);
  const dispatch::Decision c = dispatch::decide(p, stand_in_args(p), d, t.tables());
  EXPECT_NE(c.config, uncompiled);
  EXPECT_NE(c.instance, nullptr);
  EXPECT_EQ(c.source, dispatch::Source::kHeuristic) << c.reason;
  EXPECT_NE(c.reason.find("cannot run"), std::string::npos) << c.reason;
}

TEST(DispatchTableEntry, EntryBlindToSplitKYieldsToAHeuristicSplit) {
  const DeviceInfo d = h100();
  const Problem p{256, 128, 16384 + 256, Layout::kTN, Accum::kF32};
  const KernelConfig advice = sm90_config(Layout::kTN);
  const OneEntryTables blind_tables = shipped_entry(p, advice, false, d);
  const dispatch::Decision blind =
      dispatch::decide(p, stand_in_args(p), d, blind_tables.tables());
  EXPECT_GT(blind.config.split_k, 1) << blind.config.name();
  EXPECT_EQ(blind.source, dispatch::Source::kHeuristic) << blind.reason;

  // The same entry from a search that did try split-K is taken.
  const OneEntryTables informed_tables = shipped_entry(p, advice, true, d);
  const dispatch::Decision informed =
      dispatch::decide(p, stand_in_args(p), d, informed_tables.tables());
  EXPECT_EQ(informed.config, advice) << informed.config.name();
}

TEST(DispatchTableEntry, UserEntryWinsOverShipped) {
  const DeviceInfo d = h100();
  const Problem p{kAdvisedM, kAdvisedN, kAdvisedK + 128, Layout::kTN, Accum::kF32};
  KernelConfig shipped = sm90_config(Layout::kTN), user = shipped;
  user.raster = Raster::kAlongN;
  OneEntryTables t = shipped_entry(p, shipped, true, d);
  OneEntryTables u = shipped_entry(p, user, true, d);
  const dispatch::Tables both{&u.shipped, &t.shipped};
  const dispatch::Decision c = dispatch::decide(p, stand_in_args(p), d, both);
  EXPECT_EQ(c.config, user) << c.config.name();
  EXPECT_EQ(c.source, dispatch::Source::kUserTable) << c.reason;

  // Only for its shape: another shape the shipped table lists keeps the shipped winner.
  const Problem q{kAdvisedM, kAdvisedN, kAdvisedK + 256, Layout::kTN, Accum::kF32};
  dispatch::Table shipped_two = *t.shipped.table();
  shipped_two.entries.push_back({q.m, q.n, q.k, q.layout, shipped, true});
  const dispatch::LoadedTable shipped_table(shipped_two, "shipped.table", d);
  const dispatch::Decision other =
      dispatch::decide(q, stand_in_args(q), d, {&u.shipped, &shipped_table});
  EXPECT_EQ(other.config, shipped) << other.config.name();
  EXPECT_EQ(other.source, dispatch::Source::kShippedTable) << other.reason;
}

TEST(DispatchTableEntry, TableOfAnotherDeviceIsNotUsed) {
  DeviceInfo d = h100();
  const Problem p{kAdvisedM, kAdvisedN, kAdvisedK + 192, Layout::kTN, Accum::kF32};
  KernelConfig advice = sm90_config(Layout::kTN);
  advice.raster = Raster::kAlongN;
  OneEntryTables t = shipped_entry(p, advice, true, d);
  d.sm_count = 114;
  const dispatch::LoadedTable other(*t.shipped.table(), "other.table", d);
  EXPECT_FALSE(other.usable());
  EXPECT_NE(other.status().find("114 SMs"), std::string::npos) << other.status();
  const dispatch::Decision c = dispatch::decide(p, stand_in_args(p), d, {&t.user, &other});
  EXPECT_EQ(c.source, dispatch::Source::kHeuristic) << c.reason;
}

// bf16: the tables hold fp16 winners, and a bf16 call runs the bf16 twin of the fp16 decision.
TEST(DispatchBf16, RunsTheTwinOfTheTablesFp16Winner) {
  const DeviceInfo d = h100();
  KernelConfig advice = sm90_config(Layout::kTN);
  advice.raster = Raster::kAlongN;
  const Problem f16{kAdvisedM, kAdvisedN, kAdvisedK, Layout::kTN, Accum::kF32};
  Problem bf16 = f16;
  bf16.dtype = DType::kBF16;
  const OneEntryTables t = shipped_entry(f16, advice, true, d);
  const dispatch::Decision c = dispatch::decide(bf16, stand_in_args(bf16), d, t.tables());
  KernelConfig twin = advice;
  twin.dtype = DType::kBF16;
  EXPECT_EQ(c.config, twin) << c.config.name();
  ASSERT_NE(c.instance, nullptr);
  EXPECT_EQ(c.instance->config.dtype, DType::kBF16);
  EXPECT_EQ(c.instance, registry::find(twin));
  EXPECT_EQ(c.source, dispatch::Source::kShippedTable) << c.reason;
  EXPECT_NE(c.reason.find("run in bf16"), std::string::npos) << c.reason;
}

TEST(DispatchBf16, EveryRuleAnswersWithItsFp16AnswersTwin) {
  const DeviceInfo d = h100();
  // The decode rule (M <= 16), the heuristic with and without split-K, both layouts.
  const Problem shapes[] = {{1, 4096, 4096, Layout::kTN, Accum::kF32},
                            {16, 8192, 2048, Layout::kNN, Accum::kF32},
                            {256, 128, 16384, Layout::kTN, Accum::kF32},
                            {4096, 4096, 4096, Layout::kNN, Accum::kF32},
                            {333, 8192, 28672, Layout::kTN, Accum::kF32}};
  for (const Problem& f16 : shapes) {
    Problem bf16 = f16;
    bf16.dtype = DType::kBF16;
    const dispatch::Decision a = dispatch::decide(f16, stand_in_args(f16), d, {});
    const dispatch::Decision b = dispatch::decide(bf16, stand_in_args(bf16), d, {});
    KernelConfig twin = a.config;
    twin.dtype = DType::kBF16;
    EXPECT_EQ(b.config, twin) << bf16.name() << ": " << b.config.name() << " vs " << a.config.name();
    ASSERT_NE(b.instance, nullptr) << bf16.name();
    EXPECT_EQ(b.instance->config.dtype, DType::kBF16) << bf16.name();
    EXPECT_EQ(b.source, a.source) << b.reason;
  }
}

TEST(DispatchBf16, NothingCompiledRunsWhatTmaCannotReadAndSelectSaysWhy) {
  const DeviceInfo d = h100();
  // K % 8 != 0: no TMA row stride, and the sm80 catalog that takes such fp16 calls is fp16 only.
  Problem p{512, 512, 70, Layout::kTN, Accum::kF32};
  EXPECT_EQ(dispatch::select(p, stand_in_args(p), d).config.family, Family::kSm80Mma);
  p.dtype = DType::kBF16;
  std::string why;
  EXPECT_EQ(dispatch::try_select(p, stand_in_args(p), d, &why), nullptr);
  EXPECT_NE(why.find("no compiled kernel implements"), std::string::npos) << why;
  try {
    dispatch::select(p, stand_in_args(p), d);
    ADD_FAILURE() << "select ran " << p.name();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), HGEMM_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(e.message(), why);
  }
  // The same shape with K % 8 == 0 runs on a bf16 kernel.
  p.k = 72;
  const dispatch::Decision* c = dispatch::try_select(p, stand_in_args(p), d, &why);
  ASSERT_NE(c, nullptr) << why;
  EXPECT_EQ(c->config.dtype, DType::kBF16) << c->config.name();
}

// Strided batches: the cost model over the sm90 kernels with every batch's tiles (the tables
// hold single-matrix winners), never decode or the sm80 catalog (one matrix each), never split.
TEST(DispatchBatches, TheCostModelPicksAnSm90KernelOverEveryBatchsTiles) {
  const DeviceInfo d = h100();
  for (const Problem& p : {Problem{128, 128, 64, Layout::kNN, Accum::kF32},
                           Problem{8, 4096, 4096, Layout::kTN, Accum::kF32},
                           Problem{128, 128, 16384, Layout::kTN, Accum::kF16}}) {
    GemmArgs args = stand_in_args(p);
    args.batch_count = 64;
    args.stride_a = p.m * p.k;
    args.stride_b = p.k * p.n;
    args.stride_c = p.m * p.n;
    const dispatch::Decision batched = dispatch::decide(p, args, d, {});
    EXPECT_EQ(batched.config.family, Family::kSm90Ws) << p.name() << ": " << batched.reason;
    EXPECT_EQ(batched.config.split_k, 1) << p.name();
    EXPECT_NE(batched.reason.find("64 batches"), std::string::npos) << batched.reason;
    // The same shape alone keeps its own rules (decode for M <= 16, split-K for long K).
    const dispatch::Decision one = dispatch::decide(p, stand_in_args(p), d, {});
    EXPECT_EQ(one.reason.find("batches"), std::string::npos) << one.reason;
  }
  // Batch strides TMA cannot step (not multiples of 8 elements): nothing compiled runs them.
  const Problem p{128, 128, 64, Layout::kTN, Accum::kF32};
  GemmArgs args = stand_in_args(p);
  args.batch_count = 3;
  args.stride_a = p.m * p.k + 4;
  args.stride_b = p.k * p.n;
  args.stride_c = p.m * p.n;
  std::string why;
  EXPECT_EQ(dispatch::try_select(p, args, d, &why), nullptr);
  EXPECT_NE(why.find("stride_a"), std::string::npos) << why;
}

// beta reads C, which of the sm90 kernels only the general flavour does: a call with beta runs on
// one of those or on the decode family, and the same shape without beta is not held to them
// (the decision cache tells the two apart).
TEST(DispatchEpilogue, BetaRunsOnKernelsThatReadC) {
  const DeviceInfo d = h100();
  auto reads_c = [](const KernelConfig& c) {
    return c.family == Family::kDecode ||
           (c.family == Family::kSm90Ws && sm90::has_general_flavour(sm90_variant(c)));
  };
  bool plain_elsewhere = false;
  for (const Problem& p : {Problem{1000, 1000, 1000, Layout::kTN, Accum::kF32},
                           Problem{333, 4096, 4096, Layout::kTN, Accum::kF32},
                           Problem{8, 4096, 4096, Layout::kNN, Accum::kF32},
                           Problem{4096, 4096, 4096, Layout::kNN, Accum::kF32}}) {
    GemmArgs args = stand_in_args(p);
    const dispatch::Decision plain = dispatch::decide(p, args, d, {});
    plain_elsewhere = plain_elsewhere || !reads_c(plain.config);
    args.epilogue.beta = 1.0f;
    const dispatch::Decision with_beta = dispatch::decide(p, args, d, {});
    EXPECT_TRUE(reads_c(with_beta.config)) << p.name() << ": " << with_beta.config.name();
    EXPECT_TRUE(registry::can_implement(p, with_beta.config, args, d).ok()) << p.name();
    if (reads_c(plain.config)) EXPECT_EQ(with_beta.config, plain.config) << with_beta.reason;
    // Asked again without beta, the cached decision is the plain one.
    EXPECT_EQ(dispatch::decide(p, stand_in_args(p), d, {}).config, plain.config) << p.name();
  }
  EXPECT_TRUE(plain_elsewhere) << "every plain pick reads C: the test checks nothing new";
}

// A column-major A runs on the kernels with a flavour for it, the general kernels' or a swap-AB
// tile's (the table's pick where it is one, else the cost model's), never split, and the decision
// is not the row-major call's cached one. With at most 16 rows in TN the decode kernels read it,
// as the row-major call's decode rule picks them (hgemmGemm runs them on it without a copy);
// they refuse columns that are no 16-byte strides.
TEST(DispatchGeneral, AColumnMajorAGoesToItsFlavours) {
  const DeviceInfo d = h100();
  // How many of `family`'s instances for p's layout, accumulation and element type refuse the
  // call, each saying `why`; every one of them must.
  auto refusals = [&](Family family, const Problem& p, const GemmArgs& args, const char* why) {
    int refused = 0;
    for (const auto& inst : registry::instances()) {
      if (inst.config.family != family || inst.config.layout != p.layout ||
          inst.config.accum != p.accum || inst.config.dtype != p.dtype)
        continue;
      const Status s = registry::can_implement(p, inst.config, args, d);
      EXPECT_EQ(s.code, HGEMM_ERROR_NOT_SUPPORTED) << inst.config.name();
      EXPECT_NE(s.message.find(why), std::string::npos) << s.message;
      ++refused;
    }
    return refused;
  };
  for (const Problem& p : {Problem{1024, 1024, 1024, Layout::kTN, Accum::kF32},
                           Problem{24, 4096, 4096, Layout::kNN, Accum::kF16},
                           Problem{4096, 4096, 65536, Layout::kTN, Accum::kF32}}) {
    const dispatch::Decision row = dispatch::decide(p, stand_in_args(p), d, {});
    GemmArgs args = stand_in_args(p);
    args.a_col_major = true;
    const dispatch::Decision col = dispatch::decide(p, args, d, {});
    EXPECT_EQ(col.config.family, Family::kSm90Ws) << p.name() << ": " << col.reason;
    EXPECT_TRUE(sm90::has_column_major_flavour(sm90_variant(col.config))) << col.config.name();
    EXPECT_EQ(col.config.split_k, 1) << col.config.name();
    EXPECT_TRUE(registry::can_implement(p, col.config, args, d).ok()) << col.config.name();
    EXPECT_EQ(dispatch::decide(p, stand_in_args(p), d, {}).config, row.config) << p.name();
  }
  // Calls whose row-major pick is a decode kernel (the swap-AB tile would split K).
  for (const Problem& p : {Problem{8, 2048, 8192, Layout::kTN, Accum::kF32},
                           Problem{3, 2048, 8192, Layout::kTN, Accum::kF16}}) {
    const dispatch::Decision row = dispatch::decide(p, stand_in_args(p), d, {});
    ASSERT_EQ(row.config.family, Family::kDecode) << p.name() << ": " << row.reason;
    GemmArgs args = stand_in_args(p);
    args.a_col_major = true;
    args.lda = 8;
    const dispatch::Decision col = dispatch::decide(p, args, d, {});
    EXPECT_EQ(col.config, row.config) << p.name() << ": " << col.reason;
    EXPECT_TRUE(registry::can_implement(p, col.config, args, d).ok()) << col.config.name();
    args.lda = 12;
    EXPECT_GT(refusals(Family::kDecode, p, args, "16-byte copies of A's columns"), 0) << p.name();
    const dispatch::Decision strided = dispatch::decide(p, args, d, {});
    EXPECT_EQ(strided.config.family, Family::kSm90Ws) << p.name() << ": " << strided.reason;
    EXPECT_TRUE(sm90::has_column_major_flavour(sm90_variant(strided.config)))
        << strided.config.name();
  }
  // The sm80 catalog refuses it by name.
  const Problem p{8, 2048, 8192, Layout::kTN, Accum::kF32};
  GemmArgs args = stand_in_args(p);
  args.a_col_major = true;
  EXPECT_GT(refusals(Family::kSm80Mma, p, args, "row-major"), 0);
}

// hgemmGemm runs a column-major A of at most 16 rows on the row-major call's decode pick without
// copying it into rows, only where that pick is a decode kernel that takes the A as stored (its
// columns 16-byte strides) and the route copies all of it in one block.
// A column-major A of m rows (leading dimension lda) times a B of `layout`'s order as hgemmGemm
// routes it: the route, the row-major call's pick on the copy of A in rows, and the call's own
// arguments (the A as stored).
struct ColumnMajorACall {
  GemmDesc desc;
  dispatch::GemmRoute route;
  dispatch::Decision row;
  GemmArgs as_stored;
};
ColumnMajorACall column_major_a_call(int64_t m, int64_t n, int64_t k, int64_t lda, Layout layout,
                                     const DeviceInfo& d) {
  ColumnMajorACall c;
  c.desc.m = m;
  c.desc.n = n;
  c.desc.k = k;
  c.desc.order_a = Order::kCol;
  c.desc.order_b = layout == Layout::kTN ? Order::kCol : Order::kRow;
  c.desc.lda = lda;
  c.route = dispatch::route(c.desc);
  if (!c.route.dispatch) return c;
  c.row = dispatch::decide(c.route.problem, stand_in_args(c.route.problem), d, {});
  const void* base = reinterpret_cast<const void*>(uintptr_t(1) << 16);
  c.as_stored =
      dispatch::route_args(c.desc, c.route, base, base, const_cast<void*>(base), nullptr);
  return c;
}

// The pick that reads the call's column-major A as stored (dispatch::column_major_a_as_stored),
// asking dispatch about the call as it is where the rule does; nullopt: the copy into rows.
std::optional<dispatch::Decision> reader_of(const ColumnMajorACall& c, const DeviceInfo& d) {
  std::optional<dispatch::Decision> own;
  return dispatch::column_major_a_as_stored(c.route, c.row, c.as_stored, d, [&] {
    return &own.emplace(dispatch::decide(c.route.problem, c.as_stored, d, {}));
  });
}

TEST(DispatchGeneral, TheDecodeKernelReadsASmallColumnMajorAAsStored) {
  const DeviceInfo d = h100();
  auto check = [&](int64_t m, int64_t lda, Layout layout, bool expected) {
    // 2048 x 8192: the swap-AB tile would split K below 12 tokens, so TN picks decode kernels.
    const ColumnMajorACall c = column_major_a_call(m, 2048, 8192, lda, layout, d);
    ASSERT_TRUE(c.route.dispatch) << c.route.reason;
    const std::optional<dispatch::Decision> reader = reader_of(c, d);
    EXPECT_EQ(reader.has_value(), expected)
        << c.desc.name() << " on " << c.row.config.name() << ": " << c.route.reason;
    if (reader) EXPECT_EQ(reader->config.family, Family::kDecode) << reader->config.name();
  };
  check(8, 8, Layout::kTN, true);    // the decode rule's pick reads it
  check(3, 8, Layout::kTN, true);    // three rows, their columns 16 bytes apart
  check(3, 3, Layout::kTN, false);   // columns 6 bytes apart: the copy
  check(12, 12, Layout::kTN, false);
  // NN's pick is the 8-token swap-AB tile, whose width no flavour for a column-major A takes.
  check(8, 8, Layout::kNN, false);
}

// Below 12 tokens in TN, where the row-major call runs the decode rule's swap-AB tile (unsplit,
// 64 CTAs or more; 8 or 16 tokens wide, which no flavour for a column-major A takes), hgemmGemm
// runs the decode family on a column-major A as stored instead of copying it into rows for the
// tile: dispatch on the call as it is answers with a decode kernel that takes it.
TEST(DispatchGeneral, BelowTwelveTokensInTnTheDecodeKernelsReadAColumnMajorAForTheTile) {
  const DeviceInfo d = h100();
  auto check = [&](int64_t m, int64_t lda, Layout layout, bool expected) {
    const ColumnMajorACall c = column_major_a_call(m, 4096, 4096, lda, layout, d);
    ASSERT_TRUE(c.route.dispatch) << c.route.reason;
    ASSERT_TRUE(c.row.config.swap_ab) << c.desc.name() << ": " << c.row.reason;
    EXPECT_EQ(dispatch::decode_rule_tile_in_tn(c.route.problem, c.row), expected)
        << c.desc.name();
    const std::optional<dispatch::Decision> reader = reader_of(c, d);
    EXPECT_EQ(reader.has_value(), expected) << c.desc.name() << " on " << c.row.config.name();
    if (reader)
      EXPECT_EQ(reader->config.family, Family::kDecode) << c.desc.name() << ": " << reader->reason;
  };
  check(8, 8, Layout::kTN, true);
  check(3, 8, Layout::kTN, true);
  check(11, 16, Layout::kTN, true);
  check(12, 16, Layout::kTN, false);  // from 12 tokens the tile runs on the copy, as before
  check(8, 8, Layout::kNN, false);    // NN's decode kernels transpose B in registers
}

// Up to 256 rows, where hgemmGemm would copy a column-major A into rows for the row-major call's
// pick, an unsplit swap-AB tile with a flavour for such an A (or a sibling of its tile with one)
// reads it as stored; a split pick, or a width that no flavour takes, keeps the copy, as does a
// leading dimension of 8 mod 16 (columns 16 bytes off a sector) or one TMA cannot step.
TEST(DispatchGeneral, ASwapAbTileReadsASmallColumnMajorAAsStored) {
  const DeviceInfo d = h100();
  int in_place = 0, copied = 0;
  for (const int64_t m : {24, 32, 48, 64, 96, 104, 160, 200, 256})
    for (const Layout layout : {Layout::kTN, Layout::kNN})
      for (const int64_t n : {2048, 7168})
        for (const int64_t pad : {0, 4, 8}) {
          const int64_t lda = m + pad;
          const bool aligned = lda % 16 == 0;
          const ColumnMajorACall c = column_major_a_call(m, n, 4096, lda, layout, d);
          ASSERT_TRUE(c.route.dispatch) << c.route.reason;
          ASSERT_TRUE(c.route.a_rows_first) << c.desc.name();
          const std::optional<dispatch::Decision> reader = reader_of(c, d);
          const KernelConfig& row = c.row.config;
          bool has_twin = false;
          for (const auto& inst : registry::instances())
            has_twin = has_twin || (inst.config.swap_ab && inst.config.block_m == row.block_m &&
                                    inst.config.block_n == row.block_n &&
                                    inst.config.num_consumer_wgs == row.num_consumer_wgs &&
                                    inst.config.layout == row.layout &&
                                    inst.config.accum == row.accum &&
                                    sm90::has_column_major_flavour(sm90_variant(inst.config)));
          const bool expected =
              aligned && row.family == Family::kSm90Ws && row.swap_ab && row.split_k == 1 &&
              has_twin;
          EXPECT_EQ(reader.has_value(), expected) << c.desc.name() << " on " << row.name();
          if (!reader) {
            ++copied;
            continue;
          }
          ++in_place;
          EXPECT_TRUE(reader->config.swap_ab) << reader->config.name();
          EXPECT_EQ(reader->config.block_m, row.block_m) << reader->config.name();
          EXPECT_EQ(reader->config.block_n, row.block_n) << reader->config.name();
          EXPECT_EQ(reader->config.split_k, 1) << reader->config.name();
          EXPECT_TRUE(
              registry::can_implement(c.route.problem, reader->config, c.as_stored, d).ok())
              << c.desc.name() << " on " << reader->config.name();
          EXPECT_NE(dispatch::a_as_stored_note(*reader).find("swap-AB"), std::string::npos);
        }
  EXPECT_GT(in_place, 0) << "no call read its A as stored: the test checks nothing";
  EXPECT_GT(copied, 0) << "every call read its A as stored: the copy's side is untested";
}

// The catalog's answer whether a tile has a sibling that reads a column-major A, which
// column_major_a_as_stored asks before the registry, agrees with the registry's instances.
TEST(DispatchGeneral, TheCatalogKnowsWhichTilesReadAColumnMajorA) {
  int with = 0, without = 0;
  for (const auto& inst : registry::instances()) {
    const KernelConfig& c = inst.config;
    if (c.family != Family::kSm90Ws) continue;
    bool sibling = false;
    for (const auto& other : registry::instances())
      sibling = sibling ||
                (other.config.family == Family::kSm90Ws && other.config.block_m == c.block_m &&
                 other.config.block_n == c.block_n && other.config.block_k == c.block_k &&
                 other.config.num_consumer_wgs == c.num_consumer_wgs &&
                 other.config.schedule == c.schedule && other.config.swap_ab == c.swap_ab &&
                 other.config.source == c.source &&
                 sm90::has_column_major_flavour(sm90_variant(other.config)));
    EXPECT_EQ(sm90::tile_has_column_major_flavour(sm90_variant(c)), sibling) << c.name();
    ++(sibling ? with : without);
  }
  EXPECT_GT(with, 0);
  EXPECT_GT(without, 0);
}

// A column-major A whose tuned tile has no flavour for it runs on that tile's twin that has one
// (another depth, epilogue or cluster), the advice's raster kept, not on the cost model's pick
// over every tile: a general kernel's, or a swap-AB tile's; with no such twin (a swap-AB width of
// 8 mod 16, or of 16-column chunks) the cost model decides.
TEST(DispatchGeneral, AColumnMajorAKeepsTheTunedTile) {
  const DeviceInfo d = h100();
  const Problem p{2048, 2048, 2048, Layout::kTN, Accum::kF32};
  KernelConfig advice = *KernelConfig::parse("sm90_ws_128x128x64_s7_c1x1_w2_m4_st_sk1_f32_tn");
  ASSERT_FALSE(sm90::has_general_flavour(sm90_variant(advice))) << "the case needs a plain row";
  const OneEntryTables t = shipped_entry(p, advice, true, d);
  GemmArgs args = stand_in_args(p);
  args.a_col_major = true;
  const dispatch::Decision col = dispatch::decide(p, args, d, t.tables());
  EXPECT_EQ(col.config.block_m, 128);
  EXPECT_EQ(col.config.block_n, 128);
  EXPECT_EQ(col.config.num_consumer_wgs, 2);
  EXPECT_FALSE(col.config.swap_ab);
  EXPECT_EQ(col.config.raster, advice.raster);
  EXPECT_EQ(col.config.group_size, 4);
  EXPECT_EQ(col.config.split_k, 1);
  EXPECT_EQ(col.source, dispatch::Source::kShippedTable) << col.reason;
  EXPECT_NE(col.reason.find("its tile runs it as " + col.config.name()), std::string::npos)
      << col.reason;
  EXPECT_TRUE(registry::can_implement(p, col.config, args, d).ok()) << col.config.name();
  // The row-major call takes the advice itself.
  EXPECT_EQ(dispatch::decide(p, stand_in_args(p), d, t.tables()).config, advice);

  const Problem small{384, 8192, 28672, Layout::kTN, Accum::kF32};
  const KernelConfig swapped =
      *KernelConfig::parse("sm90_ws_192x128x64_s5_c1x1_w2_m8_st_sk1_f32_tn_swap");
  ASSERT_FALSE(sm90::has_column_major_flavour(sm90_variant(swapped))) << "needs a twin";
  const OneEntryTables st = shipped_entry(small, swapped, true, d);
  GemmArgs small_args = stand_in_args(small);
  small_args.a_col_major = true;
  const dispatch::Decision twin = dispatch::decide(small, small_args, d, st.tables());
  EXPECT_EQ(twin.source, dispatch::Source::kShippedTable) << twin.reason;
  EXPECT_TRUE(twin.config.swap_ab) << twin.config.name();
  EXPECT_EQ(twin.config.block_m, 192) << twin.config.name();
  EXPECT_EQ(twin.config.block_n, 128) << twin.config.name();
  EXPECT_TRUE(sm90::has_column_major_flavour(sm90_variant(twin.config))) << twin.config.name();
  EXPECT_TRUE(registry::can_implement(small, twin.config, small_args, d).ok());

  const KernelConfig no_twin =
      *KernelConfig::parse("sm90_ws_104x128x64_s7_c1x1_w2_m8_st_sk1_f32_tn_swap");
  const OneEntryTables nt = shipped_entry(small, no_twin, true, d);
  const dispatch::Decision heuristic = dispatch::decide(small, small_args, d, nt.tables());
  EXPECT_EQ(heuristic.source, dispatch::Source::kHeuristic) << heuristic.reason;
  EXPECT_TRUE(registry::can_implement(small, heuristic.config, small_args, d).ok())
      << heuristic.config.name();
}

// The wave-fitting widths between 128 and 256 have general twins: a column-major A whose tuned
// tile is the three-stage 128x224 (or 128x192) runs the same width at four stages, not the cost
// model's 128x256; the 128x160 runs itself.
TEST(DispatchGeneral, AColumnMajorAKeepsAWaveFittingWidth) {
  const DeviceInfo d = h100();
  const Problem p{1024, 7168, 5120, Layout::kTN, Accum::kF32};
  for (const char* name : {"sm90_ws_128x224x64_s3_c2x1_w2_n8_tma_sk1_f32_tn",
                           "sm90_ws_128x192x64_s3_c2x1_w2_m8_tma_sk1_f32_tn",
                           "sm90_ws_128x160x64_s6_c1x1_w2_m4_st_sk1_f32_tn"}) {
    const KernelConfig advice = *KernelConfig::parse(name);
    const OneEntryTables t = shipped_entry(p, advice, true, d);
    GemmArgs args = stand_in_args(p);
    args.a_col_major = true;
    const dispatch::Decision col = dispatch::decide(p, args, d, t.tables());
    EXPECT_EQ(col.source, dispatch::Source::kShippedTable) << name << ": " << col.reason;
    EXPECT_EQ(col.config.block_m, advice.block_m) << name;
    EXPECT_EQ(col.config.block_n, advice.block_n) << name << " ran " << col.config.name();
    EXPECT_EQ(col.config.raster, advice.raster) << name;
    EXPECT_EQ(col.config.group_size, advice.group_size) << name;
    EXPECT_TRUE(sm90::has_general_flavour(sm90_variant(col.config))) << col.config.name();
    EXPECT_TRUE(registry::can_implement(p, col.config, args, d).ok()) << col.config.name();
  }
}

// A kernel without the general flavour refuses batches and beta by name.
TEST(DispatchEpilogue, KernelsWithoutAGeneralFlavourRefuseBetaAndBatches) {
  const DeviceInfo d = h100();
  const Problem p{1024, 1024, 1024, Layout::kTN, Accum::kF32};
  int checked = 0;
  for (const auto& inst : registry::instances()) {
    if (inst.config.family != Family::kSm90Ws || inst.config.layout != p.layout ||
        inst.config.accum != p.accum || inst.config.dtype != p.dtype ||
        sm90::has_general_flavour(sm90_variant(inst.config)))
      continue;
    GemmArgs args = stand_in_args(p);
    if (!registry::can_implement(p, inst.config, args, d).ok()) continue;
    args.epilogue.beta = 0.5f;
    const Status s = registry::can_implement(p, inst.config, args, d);
    EXPECT_EQ(s.code, HGEMM_ERROR_NOT_SUPPORTED) << inst.config.name();
    EXPECT_NE(s.message.find("general flavour"), std::string::npos) << s.message;
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

// An epilogue (alpha, bias, activation) rides on the kernel the plain call runs (outside the
// ping-pong rule's range, below); the sm80 catalog applies none, so where only it could run,
// nothing compiled runs the call.
TEST(DispatchEpilogue, TheFusingFamiliesRunItTheSm80CatalogRefusesIt) {
  const DeviceInfo d = h100();
  const Problem shapes[] = {{1, 4096, 4096, Layout::kTN, Accum::kF32},
                            {256, 128, 16384, Layout::kTN, Accum::kF32},
                            {333, 8192, 2048, Layout::kTN, Accum::kF32},
                            {4096, 4096, 4096, Layout::kNN, Accum::kF32}};
  for (const Problem& p : shapes) {
    GemmArgs args = stand_in_args(p);
    const dispatch::Decision plain = dispatch::decide(p, args, d, {});
    ASSERT_NE(plain.config.family, Family::kSm80Mma) << p.name();
    args.epilogue = {.alpha = 0.5f,
                     .bias = reinterpret_cast<const void*>(uintptr_t(0x40000)),
                     .activation = Activation::kGelu};
    const dispatch::Decision fused = dispatch::decide(p, args, d, {});
    EXPECT_EQ(fused.config, plain.config) << p.name() << ": " << fused.reason;
  }
  // The sm90 kernels fuse it with fp32 accumulators only; M <= 16 runs decode in either.
  {
    const Problem f16{333, 8192, 2048, Layout::kTN, Accum::kF16};
    GemmArgs args = stand_in_args(f16);
    args.epilogue.alpha = 2.0f;
    EXPECT_EQ(dispatch::try_select(f16, args, d, nullptr), nullptr);
    const Problem decode{8, 8192, 2048, Layout::kTN, Accum::kF16};
    args = stand_in_args(decode);
    args.epilogue.alpha = 2.0f;
    const dispatch::Decision* c = dispatch::try_select(decode, args, d, nullptr);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->config.family, Family::kDecode);
  }
  Problem odd{512, 512, 70, Layout::kTN, Accum::kF32};
  GemmArgs args = stand_in_args(odd);
  args.epilogue.activation = Activation::kRelu;
  const KernelConfig sm80 = dispatch::select(odd, stand_in_args(odd), d).config;
  ASSERT_EQ(sm80.family, Family::kSm80Mma);
  const Status refused = registry::can_implement(odd, sm80, args, d);
  EXPECT_NE(refused.message.find("applies no epilogue"), std::string::npos) << refused.message;
  std::string why;
  EXPECT_EQ(dispatch::try_select(odd, args, d, &why), nullptr);
  EXPECT_NE(why.find("no compiled kernel implements"), std::string::npos) << why;
}

}  // namespace

namespace {

using namespace hgemm;

// A raster that sweeps B once per band of tile rows reads it once per band when B does not fit
// in half the L2; the default (along M, group 8) covers a 37-row problem in one band.
TEST(DispatchRaster, ANarrowBandThatRereadsALargeOperandIsFlagged) {
  const DeviceInfo d = h100();
  auto config = [](const char* name) {
    const std::optional<KernelConfig> c = KernelConfig::parse(name);
    EXPECT_TRUE(c) << name;
    return c.value_or(KernelConfig{});
  };
  const KernelConfig m1 = config("sm90_ws_32x64x64_s12_c1x1_w2_m1_st_sk1_f32_nn_swap");
  const KernelConfig m8 = config("sm90_ws_32x64x64_s12_c1x1_w2_m8_st_sk1_f32_nn_swap");
  const KernelConfig m16 = config("sm90_ws_32x64x64_s12_c1x1_w2_m16_st_sk1_f32_nn_swap");
  const Problem decode_like{37, 8192, 8192, Layout::kNN, Accum::kF32};
  const double b = 2.0 * 8192 * 8192, a = 2.0 * 37 * 8192;
  EXPECT_DOUBLE_EQ(dispatch::raster_operand_bytes(decode_like, m1, d), a + 2 * b);
  EXPECT_DOUBLE_EQ(dispatch::raster_operand_bytes(decode_like, m8, d), a + b);
  EXPECT_TRUE(dispatch::raster_rereads(decode_like, m1, d));
  EXPECT_FALSE(dispatch::raster_rereads(decode_like, m8, d));
  EXPECT_FALSE(dispatch::raster_rereads(decode_like, m16, d));
  // B of 8 MB stays in the L2 whatever the order.
  EXPECT_FALSE(dispatch::raster_rereads({37, 2048, 2048, Layout::kNN, Accum::kF32}, m1, d));

  // Along M, B's re-reads matter while a band is narrow: at 128 rows by 4 they cost less than
  // the band's multiply-adds (0.82 of the threshold), by 1 four times more.
  KernelConfig tile = config("sm90_ws_128x128x64_s6_c1x1_w2_m1_st_sk1_f32_tn");
  const Problem wide{2048, 8192, 8192, Layout::kTN, Accum::kF32};
  EXPECT_TRUE(dispatch::raster_rereads(wide, tile, d));
  tile.group_size = 4;
  EXPECT_FALSE(dispatch::raster_rereads(wide, tile, d));
  // Along N the roles swap: A of 2048 rows is swept once per band of columns.
  tile.raster = Raster::kAlongN;
  tile.group_size = 1;
  EXPECT_TRUE(dispatch::raster_rereads(wide, tile, d));
}

// A tuned neighbour's raster is a launch argument settled at its shape: where it would re-read
// an operand here, the neighbour rule runs its tile with the default raster and says so; where
// it would not, the neighbour's raster stays.
TEST(DispatchRaster, TheNeighbourRuleDropsARasterThatRereadsHere) {
  const DeviceInfo d = h100();
  const std::optional<KernelConfig> winner =
      KernelConfig::parse("sm90_ws_128x128x64_s6_c1x1_w2_m1_st_sk1_f32_tn");
  ASSERT_TRUE(winner);
  ASSERT_NE(registry::find(*winner), nullptr) << winner->name();
  for (const int64_t nk : {2048, 8192}) {
    const Problem tuned{1024, nk, nk, Layout::kTN, Accum::kF32};
    const Problem p{1000, nk, nk, Layout::kTN, Accum::kF32};
    const OneEntryTables t = shipped_entry(tuned, *winner, true, d);
    const dispatch::Decision c = dispatch::decide(p, stand_in_args(p), d, t.tables());
    ASSERT_EQ(c.source, dispatch::Source::kNeighbors) << c.reason;
    // B of 8 MB stays in the L2; B of 128 MB is read once per band.
    const bool rereads = nk == 8192;
    EXPECT_EQ(c.config.group_size, rereads ? 8 : 1) << nk << ": " << c.config.name();
    EXPECT_EQ(c.config.raster, Raster::kAlongM) << c.config.name();
    EXPECT_EQ(c.reason.find("default raster") != std::string::npos, rereads) << c.reason;
  }
}

// With an epilogue at K <= 2048 and M x N >= 4096^2, a cooperative 128-row pick of 192 columns
// or more runs as the ping-pong 128x128 with its raster; elsewhere the plain call's kernel.
TEST(DispatchEpilogue, ShortKCooperativeWideTilesTakeThePingPongSibling) {
  const DeviceInfo d = h100();
  const Problem shapes[] = {{8192, 8192, 512, Layout::kTN, Accum::kF32},
                            {4096, 4096, 1024, Layout::kTN, Accum::kF32},
                            {2048, 16384, 768, Layout::kNN, Accum::kF32},
                            {4096, 14336, 2048, Layout::kTN, Accum::kF32},
                            {8192, 8192, 2048, Layout::kTN, Accum::kF32},
                            {8192, 8192, 1536, Layout::kNN, Accum::kF32},
                            {16384, 4096, 2048, Layout::kTN, Accum::kF32},
                            {4096, 8192, 2048, Layout::kNN, Accum::kF32},
                            {4096, 14336, 2048, Layout::kTN, Accum::kF32, DType::kBF16},
                            {8192, 8192, 512, Layout::kTN, Accum::kF32, DType::kBF16},
                            {4096, 4096, 4096, Layout::kTN, Accum::kF32},
                            {8192, 8192, 2056, Layout::kTN, Accum::kF32},
                            {2048, 2048, 1024, Layout::kTN, Accum::kF32}};
  int swapped = 0;
  for (const Problem& p : shapes) {
    GemmArgs args = stand_in_args(p);
    const dispatch::Decision plain = dispatch::decide(p, args, d, {});
    args.epilogue = {.bias = reinterpret_cast<const void*>(uintptr_t(0x40000)),
                     .activation = Activation::kGeluTanh};
    const dispatch::Decision fused = dispatch::decide(p, args, d, {});
    const KernelConfig& c = plain.config;
    const bool in_range = p.k <= 2048 && p.m * p.n >= int64_t(4096) * 4096 &&
                          c.family == Family::kSm90Ws &&
                          c.schedule == Schedule::kCooperative && c.block_m == 128 &&
                          c.block_n >= 192 && !c.swap_ab && c.split_k == 1;
    if (!in_range) {
      EXPECT_EQ(fused.config, plain.config) << p.name() << ": " << fused.reason;
      continue;
    }
    ++swapped;
    EXPECT_EQ(fused.config.schedule, Schedule::kPingPong) << p.name() << ": " << fused.config.name();
    EXPECT_EQ(fused.config.block_m, 128) << fused.config.name();
    EXPECT_EQ(fused.config.block_n, 128) << fused.config.name();
    EXPECT_EQ(fused.config.raster, c.raster) << fused.config.name();
    EXPECT_EQ(fused.config.group_size, c.group_size) << fused.config.name();
    EXPECT_EQ(fused.config.dtype, p.dtype) << fused.config.name();
    EXPECT_EQ(fused.config.layout, p.layout) << fused.config.name();
    ASSERT_NE(fused.instance, nullptr);
    EXPECT_EQ(registry::find(fused.config), fused.instance) << fused.config.name();
    EXPECT_TRUE(registry::can_implement(p, fused.config, args, d).ok()) << fused.config.name();
    EXPECT_NE(fused.reason.find("ping-pong sibling"), std::string::npos) << fused.reason;
  }
  // Without the table-less heuristic's cooperative picks at K 1536-2048 (five shapes, one bf16)
  // the rule would go untested here.
  EXPECT_GE(swapped, 5);
}

// narrow_unsplit_tile's bounds, each one a case that would change the pick if it were missing.
// 132 SMs; a split swap-AB pick of the kind the neighbours rule makes at these token counts.
TEST(DispatchNarrowUnsplit, TakesTheNarrowestTileOneRoundHoldsWithinItsBounds) {
  const DeviceInfo d = h100();
  const KernelConfig pick =
      *KernelConfig::parse("sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk4_f32_tn_swap");
  auto unsplit = [&](int64_t m, int64_t n, int64_t k, const KernelConfig& c) {
    const Problem p{m, n, k, Layout::kTN, Accum::kF32};
    return dispatch::narrow_unsplit_tile(p, c, stand_in_args(p), d);
  };
  // 64 rows of 4096 leave room for two token columns in a round: 72 tokens in two of 36, on the
  // narrowest compiled width that covers 36 (40), unsplit.
  std::optional<KernelConfig> u = unsplit(72, 4096, 7168, pick);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->block_m, 40);
  EXPECT_EQ(u->block_n, 64);
  EXPECT_EQ(u->split_k, 1);
  EXPECT_TRUE(u->swap_ab);
  EXPECT_EQ(u->layout, Layout::kTN);
  EXPECT_EQ(u->accum, Accum::kF32);
  // 80 rows of 5120: one column, so 56 tokens take a tile over 48 wide; it runs up to K = 16384
  // and keeps the split past it.
  u = unsplit(56, 5120, 16384, pick);
  ASSERT_TRUE(u.has_value());
  EXPECT_GT(u->block_m, 48);
  EXPECT_FALSE(unsplit(56, 5120, 16384 + 64, pick).has_value());
  // A tile up to 48 wide runs at any K: 40 tokens in two columns of 20 over 4096 rows.
  u = unsplit(40, 4096, 32768, pick);
  ASSERT_TRUE(u.has_value());
  EXPECT_LE(u->block_m, 48);
  // Outside the rule: more than 96 tokens, N under 4096, more 64-row tiles of N than SMs, an
  // unsplit pick, a pick that is not swap-AB.
  EXPECT_FALSE(unsplit(104, 4096, 7168, pick).has_value());
  EXPECT_FALSE(unsplit(72, 4096 - 64, 7168, pick).has_value());
  EXPECT_FALSE(unsplit(72, 133 * 64, 7168, pick).has_value());
  KernelConfig one = pick;
  one.split_k = 1;
  EXPECT_FALSE(unsplit(72, 4096, 7168, one).has_value());
  EXPECT_FALSE(unsplit(72, 4096, 7168,
                       *KernelConfig::parse("sm90_ws_64x128x64_s6_c1x1_w1_m8_st_sk4_f32_tn"))
                   .has_value());
}

}  // namespace
