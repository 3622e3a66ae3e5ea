// The dispatch model (dispatch/model.hpp): the shipped model against the predictions its fitting
// script computed, the text form's errors, where transfer consults it and where not, and a model
// that does not belong to its table. Also transfer's wave rule (fit_waves), on the same synthetic
// tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "launch/launch.hpp"
#include "dispatch/cost.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/locate.hpp"
#include "dispatch/model.hpp"
#include "dispatch/neighbors.hpp"
#include "dispatch/table.hpp"
#include "registry/registry.hpp"
#include "temp_dir.hpp"
#include "tuner/space/space.hpp"

namespace {

using namespace hgemm;

const char* kH100 = "NVIDIA H100 80GB HBM3";

DeviceInfo h100() {
  DeviceInfo d = tuner::nominal_device(kH100, 132);
  d.ordinal = 0;
  return d;
}

std::string shipped_table(Accum acc) {
  return std::string(HGEMM_SOURCE_DIR) + "/data/tables/" + dispatch::table_file_name(kH100, acc);
}

// Feature names, as the file's "features" line spells them.
std::string features_line() {
  std::string line = "features " + std::to_string(dispatch::model_feature_names().size());
  for (const std::string& name : dispatch::model_feature_names()) line += " " + name;
  return line;
}

std::string header(const std::string& gpu = kH100) {
  return "hgemm-dispatch-model 1\ngpu " + gpu + "\nacc f32\nsm_count 132\nsource test\n"
         "source_bytes 1\n" + features_line() + "\n";
}

int feature_index(const std::string& name) {
  const auto& names = dispatch::model_feature_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return int(i);
  return -1;
}

// One tree of depth 1 per layout: swap-AB configs score `swap`, the others 0.
std::string swap_model(double swap = -1.0) {
  const std::string tree = std::to_string(feature_index("swap_ab")) + " | 0.5 | 0 " +
                           std::to_string(swap);
  return header() + "layout tn trees 1 depth 1 base 0\n" + tree +
         "\nlayout nn trees 1 depth 1 base 0\n" + tree + "\n";
}

// One tree of depth 1: `feature` at or below `threshold` scores `left`, above it `right`.
std::string stump(const char* feature, double threshold, double left, double right) {
  return std::to_string(feature_index(feature)) + " | " + std::to_string(threshold) + " | " +
         std::to_string(left) + " " + std::to_string(right) + "\n";
}

// A model of `count` depth-1 trees (`trees`, stump lines), the same for both layouts.
dispatch::DispatchModel stumps_model(const std::string& trees, int count, const char* name) {
  const std::string layout = " trees " + std::to_string(count) + " depth 1 base 0\n";
  return dispatch::parse_model(
      header() + "layout tn" + layout + trees + "layout nn" + layout + trees, name);
}

// A rule's scope over the compiled catalog on device `d` (which must outlive it): legal where a
// compiled instance can run the problem, nothing blocked.
dispatch::NeighborScope registry_scope(const DeviceInfo& d, const dispatch::DispatchModel* model) {
  return {&d,
          [&d](const Problem& p, const KernelConfig& c) {
            return registry::can_implement(p, c, stand_in_args(p), d).ok();
          },
          [](const KernelConfig&) { return false; }, nullptr, model};
}

void expect_parse_error(const std::string& text, const std::string& needle) {
  try {
    dispatch::parse_model(text, "t.model");
    ADD_FAILURE() << "parsed: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.model:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(DispatchModel, ShippedModelPredictsWhatItsFitComputed) {
  const std::string path = dispatch::model_path_for_table(shipped_table(Accum::kF32));
  const dispatch::DispatchModel model = dispatch::load_model(path);
  EXPECT_EQ(model.gpu, kH100);
  EXPECT_EQ(model.accum, Accum::kF32);
  // Fitted on the history as it is: a retuned history needs scripts/fit-dispatch-model again.
  const std::string history = std::string(HGEMM_SOURCE_DIR) + "/data/tuned/" + model.source;
  EXPECT_EQ(model.source, "nvidia-h100-80gb-hbm3-f32.jsonl.gz");
  EXPECT_EQ(int64_t(std::filesystem::file_size(history)), model.source_bytes)
      << history << " changed since the model was fitted: run scripts/fit-dispatch-model";
  EXPECT_TRUE(model.has(Layout::kTN));
  EXPECT_TRUE(model.has(Layout::kNN));
  // The script writes a dozen or more per layout: features or the walk drifting from the
  // script's moves these by far more than rounding.
  ASSERT_GE(model.checks.size(), 24u);
  int per_layout[2] = {0, 0};
  for (const auto& c : model.checks) {
    const std::optional<double> got = model.predict(c.problem, c.config, h100());
    ASSERT_TRUE(got) << c.config.name();
    EXPECT_NEAR(*got, c.value, 1e-9) << c.problem.name() << " " << c.config.name();
    ++per_layout[c.problem.layout == Layout::kTN ? 0 : 1];
  }
  EXPECT_GE(per_layout[0], 12);
  EXPECT_GE(per_layout[1], 12);
}

TEST(DispatchModel, FeaturesFollowTheCostModelsGrid) {
  const std::optional<KernelConfig> parsed =
      KernelConfig::parse("sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn");
  ASSERT_TRUE(parsed);
  KernelConfig c = *parsed;
  ASSERT_EQ(c.cluster_m, 2);
  const Problem p{1000, 5000, 4096, Layout::kTN, Accum::kF32};
  const DeviceInfo d = h100();
  const std::vector<double> x = dispatch::model_features(p, c, d);
  ASSERT_EQ(x.size(), dispatch::model_feature_names().size());
  auto at = [&](const std::string& name) { return x[size_t(feature_index(name))]; };
  // 8 x 20 tiles, 8 rows already a whole number of 2x1 clusters: 160 CTAs, two waves.
  EXPECT_DOUBLE_EQ(at("log2_ctas"), std::log2(160.0));
  EXPECT_DOUBLE_EQ(at("waves"), 2.0);
  EXPECT_DOUBLE_EQ(at("wave_fill"), 160.0 / 264.0);
  EXPECT_DOUBLE_EQ(at("m_fill"), 1000.0 / 1024.0);
  EXPECT_DOUBLE_EQ(at("n_fill"), 5000.0 / 5120.0);
  EXPECT_DOUBLE_EQ(at("log2_k_blocks_per_split"), 6.0);
  EXPECT_DOUBLE_EQ(at("rows_per_warpgroup"), 64.0);
  c.split_k = 4;
  EXPECT_DOUBLE_EQ(dispatch::model_features(p, c, d)[size_t(feature_index("log2_splits"))], 2.0);
  c.swap_ab = true;  // wgmma's rows are N's now: 256 over two warpgroups
  EXPECT_DOUBLE_EQ(dispatch::model_features(p, c, d)[size_t(feature_index("rows_per_warpgroup"))],
                   128.0);
}

TEST(DispatchModel, TextErrorsNameTheLine) {
  expect_parse_error("hgemm-dispatch-table 2\n", "not a dispatch model");
  expect_parse_error("hgemm-dispatch-model 7\n", "format 7");
  expect_parse_error("hgemm-dispatch-model 1\ngpu G\nacc f64\n", "unknown accumulation");
  expect_parse_error("hgemm-dispatch-model 1\ngpu G\nacc f32\nsource s\n",
                     "expected 'sm_count ...'");
  expect_parse_error("hgemm-dispatch-model 1\ngpu G\nacc f32\nsm_count 0\n", "not 1..1024");
  expect_parse_error("hgemm-dispatch-model 1\ngpu G\nacc f32\nsm_count 132\nsource s\n"
                     "features 2 a b\n",
                     "expected 'source_bytes ...'");
  expect_parse_error("hgemm-dispatch-model 1\ngpu G\nacc f32\nsm_count 132\nsource s\n"
                     "source_bytes 1\nfeatures 2 a b\n",
                     "features this build computes");
  std::string renamed = header();
  renamed.replace(renamed.find(" log2_n "), 8, " log2_x ");
  expect_parse_error(renamed, "this build computes 'log2_n'");
  expect_parse_error(header() + "layout tn trees 1 depth 2 base 0\n0 | 1 | 0 1\n", "depth 2 has 3");
  expect_parse_error(header() + "layout tn trees 1 depth 1 base 0\n99 | 1 | 0 1\n",
                     "out of range");
  expect_parse_error(header() + "layout tn trees 1 depth 1 base 0\n0 | x | 0 1\n",
                     "'x' is not a number");
  expect_parse_error(header() + "layout tn trees 2 depth 1 base 0\n0 | 1 | 0 1\n", "ends where");
  expect_parse_error(header() + "layout tt trees 1 depth 1 base 0\n", "unknown layout");
  expect_parse_error(swap_model() + "layout tn trees 1 depth 1 base 0\n0 | 1 | 0 1\n",
                     "a second forest");
  expect_parse_error(header() + "check 1 2 3 sm80_mma_128x128x32_s3_w2x2_sk1_f32_tn 0\n",
                     "not an sm90 config");
  // A check the model does not reproduce: a swap-AB config scores -1 in swap_model.
  const std::string swap = "sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk1_f32_tn_swap";
  EXPECT_NO_THROW(dispatch::parse_model(swap_model() + "check 80 4096 4096 " + swap + " -1\n", "t"));
  expect_parse_error(swap_model() + "check 80 4096 4096 " + swap + " -0.5\n",
                     "where the fit computed -0.5");
  expect_parse_error(header() + "check 80 4096 4096 " + swap + " -1\n",
                     "a check before the forest of its layout");
  expect_parse_error(header() + "trees\n", "unknown line 'trees ...'");
  EXPECT_EQ(dispatch::model_path_for_table("/a/b/x-f32.table"), "/a/b/x-f32.model");
}

// Tuned shapes that timed every compiled sm90 TN f32 tile, the plain ones faster than the
// swap-AB ones, which the test model prefers.
struct Points {
  std::vector<std::vector<dispatch::TimedConfig>> timed;
  std::vector<dispatch::TunedPoint> points;
  Points(std::initializer_list<Problem> shapes) {
    for (const Problem& p : shapes) {
      std::vector<dispatch::TimedConfig> t;
      for (const KernelInstance& inst : registry::instances())
        if (inst.config.family == Family::kSm90Ws && inst.config.layout == p.layout &&
            inst.config.accum == p.accum && inst.config.dtype == DType::kF16 &&
            inst.config.source.empty())
          t.push_back({inst.config, inst.config.swap_ab ? 20.0 : 10.0});
      std::stable_sort(t.begin(), t.end(), [](auto& a, auto& b) { return a.us < b.us; });
      timed.push_back(std::move(t));
    }
    size_t i = 0;
    for (const Problem& p : shapes) {
      const auto& t = timed[i++];
      points.push_back({p, t.front().config, 1.0, t});
    }
  }
};

TEST(DispatchModel, TransferConsultsItOnlyForNewLayersBetweenDecodeAndPrefill) {
  const DeviceInfo d = h100();
  const dispatch::DispatchModel model = dispatch::parse_model(swap_model(), "swap.model");
  dispatch::NeighborScope scope = registry_scope(d, &model);
  const Points tuned{{300, 4096, 4096, Layout::kTN, Accum::kF32},
                     {600, 4096, 4096, Layout::kTN, Accum::kF32},
                     {1200, 4096, 4096, Layout::kTN, Accum::kF32}};
  auto pick = [&](int64_t m, int64_t n, int64_t k) {
    return dispatch::predict_from_neighbors({m, n, k, Layout::kTN, Accum::kF32}, tuned.points,
                                            dispatch::NeighborRule::kTransfer, scope);
  };
  // A new N and K: the model's pick, a swap-AB tile.
  auto p = pick(200, 5120, 3072);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->modeled);
  EXPECT_TRUE(p->config.swap_ab) << p->config.name();
  EXPECT_EQ(p->config.raster, Raster::kAlongM);
  // The table's own N and K at another M: transfer's.
  p = pick(200, 4096, 4096);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->modeled);
  // Outside the token counts it was fitted and judged on.
  for (int64_t m : {dispatch::kModelMinM - 1, dispatch::kModelMaxM + 1}) {
    p = pick(m, 5120, 3072);
    ASSERT_TRUE(p);
    EXPECT_FALSE(p->modeled) << m;
  }
  EXPECT_TRUE(pick(dispatch::kModelMinM, 5120, 3072)->modeled);
  EXPECT_TRUE(pick(dispatch::kModelMaxM, 5120, 3072)->modeled);
  // No model: transfer everywhere.
  scope.model = nullptr;
  EXPECT_FALSE(pick(200, 5120, 3072)->modeled);
}

// The wave rules' measure of a tile at M x N, written out here rather than shared with the rules:
// rounds of tiles (clusters whole; a swap-AB tile's block_m spans M) over the SMs, and those
// times the tile's area, swap-AB charged kWaveFitSwapCost where it is smaller than
// kWaveFitTwinMinArea (below kWaveFitTwinAreaMinM tokens, kWaveFitMinArea), or stores C directly
// and the catalog has no twin that stores it through TMA; below kWaveFitTwinAreaMinM an
// uncharged twin's slot counts kWaveFitSmallTwinCost.
struct ExpectedSlots {
  int64_t rounds;
  double slots;
};

ExpectedSlots expected_slots(const DeviceInfo& d, int64_t m, int64_t n, const KernelConfig& c) {
  auto blocks = [](int64_t extent, int tile, int cluster) {
    return ((extent + tile - 1) / tile + cluster - 1) / cluster * cluster;
  };
  const int64_t tiles = blocks(m, c.block_m, c.cluster_m) * blocks(n, c.block_n, c.cluster_n);
  const int64_t rounds = (tiles + d.sm_count - 1) / d.sm_count;
  KernelConfig twin = c;
  twin.epilogue = Epilogue::kTmaStore;
  const bool tma = c.epilogue == Epilogue::kTmaStore ||
                   std::any_of(registry::instances().begin(), registry::instances().end(),
                               [&](const KernelInstance& inst) {
                                 KernelConfig t = inst.config;
                                 t.num_stages = twin.num_stages;
                                 return t == twin;
                               });
  const int twin_min_area = m < dispatch::kWaveFitTwinAreaMinM ? dispatch::kWaveFitMinArea
                                                                : dispatch::kWaveFitTwinMinArea;
  const bool charged = c.swap_ab && (c.block_m * c.block_n < twin_min_area || !tma);
  const double rate = charged ? dispatch::kWaveFitSwapCost
                      : c.swap_ab && m < dispatch::kWaveFitTwinAreaMinM
                          ? dispatch::kWaveFitSmallTwinCost
                          : 1.0;
  return {rounds, double(rounds) * c.block_m * c.block_n * rate};
}

// The wave rule (fit_waves): at an fp32 shape no table holds, transfer's cooperative pick of two
// or more warpgroups is replaced by the compiled candidate (at least kWaveFitMinArea and
// kWaveFitMinSide) whose rounds over the SMs cover the least area, where that is kWaveFitMargin
// less; not below kWaveFitMinM tokens, not where the pick runs more than kWaveFitMaxRounds
// rounds, not for fp16 accumulation.
TEST(DispatchWaves, TransferTakesTheTileThatFillsTheRounds) {
  const DeviceInfo d = h100();
  const dispatch::NeighborScope scope = registry_scope(d, nullptr);
  const Points tuned{{2048, 5120, 4096, Layout::kTN, Accum::kF32},
                     {4096, 5120, 4096, Layout::kTN, Accum::kF32},
                     {8192, 5120, 4096, Layout::kTN, Accum::kF32}};
  auto pick = [&](int64_t m) {
    return dispatch::predict_from_neighbors({m, 5120, 4096, Layout::kTN, Accum::kF32},
                                            tuned.points, dispatch::NeighborRule::kTransfer, scope);
  };
  auto rounds = [&](int64_t m, const KernelConfig& c) {
    return expected_slots(d, m, 5120, c).rounds;
  };
  auto slots = [&](int64_t m, const KernelConfig& c) {
    return expected_slots(d, m, 5120, c).slots;
  };
  auto measured = [](const KernelConfig& c) {
    return c.family == Family::kSm90Ws && c.schedule == Schedule::kCooperative &&
           c.num_consumer_wgs >= 2 && c.split_k == 1;
  };
  auto candidate = [&](const KernelConfig& c) {
    return measured(c) && c.block_m * c.block_n >= dispatch::kWaveFitMinArea &&
           std::min(c.block_m, c.block_n) >= dispatch::kWaveFitMinSide;
  };
  // Over token counts of no table: wherever the final pick is such a tile running at most
  // kWaveFitMaxRounds rounds, no compiled rival takes the margin's share fewer slots; a replaced
  // pick takes the default raster; and the rule replaced some.
  int replaced = 0;
  for (int64_t m = dispatch::kWaveFitMinM; m <= 7000; m += 76) {
    const Problem problem{m, 5120, 4096, Layout::kTN, Accum::kF32};
    const auto p = pick(m);
    ASSERT_TRUE(p) << m;
    if (p->wave_fit) {
      ++replaced;
      EXPECT_EQ(p->config.raster, Raster::kAlongM) << m;
      EXPECT_TRUE(candidate(p->config)) << p->config.name();
    }
    if (!measured(p->config) || rounds(m, p->config) > dispatch::kWaveFitMaxRounds) continue;
    for (const KernelInstance& inst : registry::instances()) {
      const KernelConfig& c = inst.config;
      if (!candidate(c) || !c.source.empty() || c.layout != Layout::kTN ||
          c.accum != Accum::kF32 || c.dtype != DType::kF16 ||
          !registry::can_implement(problem, c, stand_in_args(problem), d).ok())
        continue;
      EXPECT_GE(slots(m, c), slots(m, p->config) * (1.0 - dispatch::kWaveFitMargin) * 0.999999)
          << m << ": " << c.name() << " fills the rounds better than " << p->config.name();
    }
  }
  EXPECT_GT(replaced, 3);
  // In NN a replacement reads B in whole 64-column chunks (or is swap-AB, whose B is the call's
  // K-major A).
  const Points tuned_nn{{2048, 5120, 4096, Layout::kNN, Accum::kF32},
                        {4096, 5120, 4096, Layout::kNN, Accum::kF32}};
  int replaced_nn = 0;
  for (int64_t m = dispatch::kWaveFitMinM; m <= 3300; m += 76) {
    const auto p = dispatch::predict_from_neighbors({m, 5120, 4096, Layout::kNN, Accum::kF32},
                                                    tuned_nn.points,
                                                    dispatch::NeighborRule::kTransfer, scope);
    ASSERT_TRUE(p) << m;
    if (!p->wave_fit) continue;
    ++replaced_nn;
    EXPECT_TRUE(p->config.swap_ab || p->config.block_n % 64 == 0) << m << ": " << p->config.name();
  }
  EXPECT_GT(replaced_nn, 3);
  // Below kWaveFitMinM tokens, with fp16 accumulation, and where the pick runs more than
  // kWaveFitMaxRounds rounds (32768 tokens: 128x256 makes 5120 tiles, 39 rounds), transfer's
  // pick stands.
  EXPECT_FALSE(pick(dispatch::kWaveFitMinM - 1)->wave_fit);
  const auto many = pick(32768);
  ASSERT_TRUE(many);
  EXPECT_GT(rounds(32768, many->config), dispatch::kWaveFitMaxRounds) << many->config.name();
  EXPECT_FALSE(many->wave_fit) << many->config.name();
  const Points tuned16{{2048, 5120, 4096, Layout::kTN, Accum::kF16}};
  const auto p16 =
      dispatch::predict_from_neighbors({1100, 5120, 4096, Layout::kTN, Accum::kF16},
                                       tuned16.points, dispatch::NeighborRule::kTransfer, scope);
  ASSERT_TRUE(p16);
  EXPECT_FALSE(p16->wave_fit) << p16->config.name();
}

// Below kWaveFitTwinAreaMinM tokens the twins under 128x128 go uncharged: at 450x4096x4096, 4 x 32
// tiles of 120 tokens over 128 rows take one round of 15360-element slots where 128x128 takes
// 16384, and the 120x128 twin runs; at 600 tokens (5 x 32 of 120 against 5 x 32 of 128, both two
// rounds) the 128x128 stays ahead of the charged twin.
TEST(DispatchWaves, BelowFiveHundredTwelveTokensSmallerTwinsFillTheRounds) {
  const DeviceInfo d = h100();
  const dispatch::NeighborScope scope = registry_scope(d, nullptr);
  const Points tuned{{2048, 4096, 4096, Layout::kTN, Accum::kF32},
                     {4096, 4096, 4096, Layout::kTN, Accum::kF32}};
  auto pick = [&](int64_t m) {
    return dispatch::predict_from_neighbors({m, 4096, 4096, Layout::kTN, Accum::kF32},
                                            tuned.points, dispatch::NeighborRule::kTransfer, scope);
  };
  ASSERT_LT(450, dispatch::kWaveFitTwinAreaMinM);
  const auto p = pick(450);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->wave_fit && p->config.swap_ab && p->config.block_m == 120 &&
              p->config.block_n == 128 && p->config.epilogue == Epilogue::kTmaStore)
      << p->config.name();
  const auto p600 = pick(600);
  ASSERT_TRUE(p600);
  EXPECT_FALSE(p600->config.swap_ab && p600->config.block_m == 120) << p600->config.name();
}

// The wave rule over 64-row swap-AB tiles (fit_narrow_swap): at fp32 shapes of no table with
// kWaveFitMinM to kNarrowSwapMaxM tokens and N up to kNarrowSwapMaxN, no compiled swap-AB tile of
// one warpgroup over 64 rows of N that stores C through TMA and runs one round takes kWaveFitMargin
// fewer slots than the final pick, whatever its kind; the rule replaced some picks and their twins
// store through TMA; past its bounds it replaces none.
TEST(DispatchWaves, NarrowLayersTakeTheSixtyFourRowSwapTileThatFillsTheRounds) {
  const DeviceInfo d = h100();
  const dispatch::NeighborScope scope = registry_scope(d, nullptr);
  auto pick = [&](int64_t m, int64_t n, int64_t k, Layout layout) {
    const Points tuned{{2048, n, k, layout, Accum::kF32}, {4096, n, k, layout, Accum::kF32}};
    const auto p = dispatch::predict_from_neighbors({m, n, k, layout, Accum::kF32}, tuned.points,
                                                    dispatch::NeighborRule::kTransfer, scope);
    EXPECT_TRUE(p) << m << "x" << n << "x" << k;
    return p;
  };
  auto narrow = [](const KernelConfig& c) {
    return c.swap_ab && c.num_consumer_wgs == 1 && c.block_n == 64 &&
           c.block_m >= dispatch::kWaveFitMinSide && c.cluster_m == 1 && c.cluster_n == 1 &&
           c.split_k == 1;
  };
  int replaced = 0;
  for (const Layout layout : {Layout::kTN, Layout::kNN})
    for (const int64_t n : {1536, 2048, 2816, 3072})
      for (int64_t m = dispatch::kWaveFitMinM; m <= dispatch::kNarrowSwapMaxM; m += 58) {
        const Problem problem{m, n, 2048, layout, Accum::kF32};
        const auto p = pick(m, n, 2048, layout);
        if (!p) continue;
        if (p->narrow_swap_fit) {
          ++replaced;
          EXPECT_TRUE(narrow(p->config) && p->config.epilogue == Epilogue::kTmaStore)
              << problem.name() << ": " << p->config.name();
        }
        if (p->config.family != Family::kSm90Ws || p->config.split_k != 1) continue;
        const auto [rounds, own] = expected_slots(d, m, n, p->config);
        if (rounds > dispatch::kWaveFitMaxRounds) continue;
        for (const KernelInstance& inst : registry::instances()) {
          const KernelConfig& c = inst.config;
          if (!narrow(c) || c.epilogue != Epilogue::kTmaStore || !c.source.empty() ||
              c.layout != layout || c.accum != Accum::kF32 || c.dtype != DType::kF16 ||
              !registry::can_implement(problem, c, stand_in_args(problem), d).ok())
            continue;
          const auto [c_rounds, c_slots] = expected_slots(d, m, n, c);
          if (c_rounds != 1) continue;
          EXPECT_GE(c_slots, own * (1.0 - dispatch::kWaveFitMargin) * 0.999999)
              << problem.name() << ": " << c.name() << " fills the rounds better than "
              << p->config.name();
        }
      }
  EXPECT_GT(replaced, 3);
  // Past the bounds in M and N, below kWaveFitMinM, and with fp16 accumulation: none.
  for (const auto& [m, n] : {std::pair<int64_t, int64_t>{dispatch::kNarrowSwapMaxM + 50, 2048},
                             {640, dispatch::kNarrowSwapMaxN + 1024},
                             {dispatch::kWaveFitMinM - 12, 2048}}) {
    const auto p = pick(m, n, 2048, Layout::kTN);
    ASSERT_TRUE(p);
    EXPECT_FALSE(p->narrow_swap_fit) << m << "x" << n << ": " << p->config.name();
  }
  const Points tuned16{{2048, 2048, 2048, Layout::kTN, Accum::kF16}};
  const auto p16 =
      dispatch::predict_from_neighbors({640, 2048, 2048, Layout::kTN, Accum::kF16},
                                       tuned16.points, dispatch::NeighborRule::kTransfer, scope);
  ASSERT_TRUE(p16);
  EXPECT_FALSE(p16->narrow_swap_fit) << p16->config.name();
}

// The weight-sharing rule (share_weights): a swap-AB pick whose token tiles pair up, at
// weights of kShareWeightsMinElements or more, becomes its twin that multicasts the weight tile
// to each pair (cluster_m 2), in either layout, with either accumulation; not where the pairs
// would pad a token tile, not for smaller weights.
// Depth-1 trees that make 80 tokens over 128 rows of N, unsplit and without a cluster, the
// model's one fastest config.
dispatch::DispatchModel tokens80_model() {
  const std::string trees = stump("block_m", 80, 0, -1) + stump("block_m", 88, 0, 1) +
                            stump("swap_ab", 0.5, 0, -1) + stump("block_n", 128, 1, 0) +
                            stump("block_n", 160, 0, 1) + stump("cluster_size", 2, 0, 1) +
                            stump("log2_splits", 0.5, 0, 1);
  return stumps_model(trees, 7, "tokens80.model");
}

TEST(DispatchShareWeights, ASwapPickWithPairedTokenTilesMulticastsItsWeights) {
  const DeviceInfo d = h100();
  const dispatch::DispatchModel model = tokens80_model();
  const dispatch::NeighborScope scope = registry_scope(d, &model);
  auto pick = [&](int64_t m, int64_t n, int64_t k, Layout layout) {
    const Points tuned{{300, 4096, 4096, layout, Accum::kF32},
                       {600, 4096, 4096, layout, Accum::kF32}};
    const auto p = dispatch::predict_from_neighbors({m, n, k, layout, Accum::kF32}, tuned.points,
                                                    dispatch::NeighborRule::kTransfer, scope);
    EXPECT_TRUE(p && p->modeled) << m << "x" << n << "x" << k;
    return p;
  };
  // 150 and 300 tokens: two and four tiles of 80, over 10240 x 8192 weights (84M).
  for (Layout layout : {Layout::kTN, Layout::kNN})
    for (int64_t m : {150, 300}) {
      const auto p = pick(m, 10240, 8192, layout);
      ASSERT_TRUE(p);
      EXPECT_TRUE(p->shared_weights) << m << ": " << p->config.name();
      EXPECT_TRUE(p->config.swap_ab && p->config.block_m == 80 && p->config.block_n == 128 &&
                  p->config.cluster_m == 2 && p->config.cluster_n == 1 &&
                  p->config.split_k == 1 && p->config.layout == layout)
          << m << ": " << p->config.name();
    }
  // Three tiles of 80 (a pair would pad one), weights below the bound: the model's own pick.
  ASSERT_LT(int64_t(5120) * 6144, dispatch::kShareWeightsMinElements);
  for (const auto& [m, n, k, layout] :
       {std::tuple{int64_t(230), int64_t(10240), int64_t(8192), Layout::kTN},
        std::tuple{int64_t(150), int64_t(5120), int64_t(6144), Layout::kTN},
        std::tuple{int64_t(150), int64_t(5120), int64_t(6144), Layout::kNN}}) {
    const auto p = pick(m, n, k, layout);
    ASSERT_TRUE(p);
    EXPECT_FALSE(p->shared_weights) << m << "x" << n << "x" << k << ": " << p->config.name();
    EXPECT_EQ(p->config.cluster_m, 1) << p->config.name();
    EXPECT_EQ(p->config.block_m, 80) << p->config.name();
  }
  const Points tuned16{{300, 4096, 4096, Layout::kTN, Accum::kF16}};
  const auto p16 =
      dispatch::predict_from_neighbors({150, 10240, 8192, Layout::kTN, Accum::kF16},
                                       tuned16.points, dispatch::NeighborRule::kTransfer, scope);
  ASSERT_TRUE(p16);
  EXPECT_TRUE(p16->shared_weights && p16->config.swap_ab && p16->config.block_m == 80 &&
              p16->config.cluster_m == 2 && p16->config.accum == Accum::kF16)
      << p16->config.name();
}

// The split-round rule (fit_split_round): from kSplitRoundMinM to kSplitRoundMaxM tokens, the
// narrowest swap-AB tile over 128 rows that holds every token, K split as many ways as its tiles
// fit the SMs once (kSplitRoundMinSplits or more, kSplitRoundMinKBlocks k-blocks each), through
// TMA stores; in either layout and accumulation, over whatever the other rules picked.
TEST(DispatchSplitRound, OneTokenTileSplitsKToFillARound) {
  const DeviceInfo d = h100();
  const dispatch::DispatchModel model = tokens80_model();
  const dispatch::NeighborScope scope = registry_scope(d, &model);
  auto pick = [&](int64_t m, int64_t n, int64_t k, Layout layout, Accum accum) {
    const Points tuned{{300, 4096, 4096, layout, accum}, {600, 4096, 4096, layout, accum}};
    return dispatch::predict_from_neighbors({m, n, k, layout, accum}, tuned.points,
                                            dispatch::NeighborRule::kTransfer, scope);
  };
  // 40 tiles of 128 rows: three splits (120 CTAs of 132); 36: three (108); 32: four (128).
  for (const auto& [m, n, k, tokens, splits] :
       {std::tuple{int64_t(150), int64_t(5120), int64_t(32768), 152, 3},
        std::tuple{int64_t(129), int64_t(5120), int64_t(13824), 144, 3},
        std::tuple{int64_t(150), int64_t(4608), int64_t(36864), 152, 3},
        std::tuple{int64_t(208), int64_t(4096), int64_t(16384), 208, 4}})
    for (Layout layout : {Layout::kTN, Layout::kNN})
      for (Accum accum : {Accum::kF32, Accum::kF16}) {
        const auto p = pick(m, n, k, layout, accum);
        ASSERT_TRUE(p) << m << "x" << n << "x" << k;
        const KernelConfig& c = p->config;
        EXPECT_TRUE(p->split_round_fit && !p->shared_weights) << m << "x" << n << ": " << c.name();
        EXPECT_TRUE(c.swap_ab && c.block_m == tokens && c.block_n == 128 &&
                    c.split_k == splits && c.epilogue == Epilogue::kTmaStore &&
                    c.cluster_m == 1 && c.cluster_n == 1 && c.layout == layout &&
                    c.accum == accum)
            << m << "x" << n << "x" << k << ": " << c.name();
        EXPECT_TRUE(registry::compiled_ahead(c)) << c.name();
      }
  // Short K (32 k-blocks a split), two splits (64 tiles), one (462), past 208 tokens, 128.
  for (const auto& [m, n, k] : {std::tuple{int64_t(150), int64_t(5120), int64_t(6144)},
                                std::tuple{int64_t(150), int64_t(8192), int64_t(29568)},
                                std::tuple{int64_t(150), int64_t(59136), int64_t(8192)},
                                std::tuple{int64_t(209), int64_t(4096), int64_t(16384)},
                                std::tuple{int64_t(128), int64_t(5120), int64_t(32768)}}) {
    const auto p = pick(m, n, k, Layout::kTN, Accum::kF32);
    ASSERT_TRUE(p) << m << "x" << n << "x" << k;
    EXPECT_FALSE(p->split_round_fit) << m << "x" << n << "x" << k << ": " << p->config.name();
  }
}

// The model ranks a config whose TMA-store twin will run in its place (swap-AB, direct stores,
// unsplit, unclustered, twin compiled) kModelTmaTwinCredit faster than the forest's score, from
// kSmallMFitMinM tokens below kWaveFitMinM and where its CTAs fill kModelTmaTwinCreditMinFill of
// the SMs: a split pick (which keeps its direct stores) must beat the twin by more.
TEST(DispatchModel, UnsplitSwapTilesAreCreditedTheirTmaTwin) {
  const DeviceInfo d = h100();
  const dispatch::DispatchModel model = dispatch::parse_model(swap_model(), "swap.model");
  const dispatch::NeighborScope scope = registry_scope(d, &model);
  auto config = [](const char* name) {
    const std::optional<KernelConfig> c = KernelConfig::parse(name);
    EXPECT_TRUE(c) << name;
    return c.value_or(KernelConfig{});
  };
  auto credit = [&](const Problem& p, const KernelConfig& c) {
    const std::optional<double> forest = model.predict(p, c, d);
    const std::optional<double> ranked = dispatch::model_score(p, c, scope);
    EXPECT_TRUE(forest && ranked) << c.name();
    return forest && ranked ? *forest - *ranked : -1.0;
  };
  const Problem at150{150, 8192, 16384, Layout::kNN, Accum::kF32};
  const KernelConfig twin_direct = config("sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk1_f32_nn_swap");
  EXPECT_NEAR(credit(at150, twin_direct), dispatch::kModelTmaTwinCredit, 1e-12);
  // Split, clustered, already TMA stores, no compiled twin (48x64), not swap-AB, or below
  // kSmallMFitMinM tokens: the forest's score as it is.
  KernelConfig split = twin_direct;
  split.split_k = 2;
  for (const KernelConfig& c :
       {split, config("sm90_ws_80x128x64_s7_c1x1_w2_m8_tma_sk1_f32_nn_swap"),
        config("sm90_ws_48x64x64_s12_c1x1_w1_m8_st_sk1_f32_nn_swap"),
        config("sm90_ws_128x128x64_s7_c1x1_w2_m8_st_sk1_f32_nn")})
    EXPECT_EQ(credit(at150, c), 0.0) << c.name();
  const Problem at150_tn{150, 8192, 16384, Layout::kTN, Accum::kF32};
  EXPECT_EQ(credit(at150_tn, config("sm90_ws_80x128x64_s8_c2x1_w2_m8_st_sk1_f32_tn_swap")), 0.0);
  EXPECT_NEAR(credit(at150_tn, config("sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk1_f32_tn_swap")),
              dispatch::kModelTmaTwinCredit, 1e-12);
  const Problem at60{dispatch::kSmallMFitMinM - 20, 8192, 16384, Layout::kNN, Accum::kF32};
  EXPECT_EQ(credit(at60, twin_direct), 0.0);
  // From kWaveFitMinM tokens the wave rules weigh the twins, not the credit.
  const Problem at_waves{dispatch::kWaveFitMinM, 8192, 16384, Layout::kNN, Accum::kF32};
  EXPECT_EQ(credit(at_waves, twin_direct), 0.0);
  EXPECT_NEAR(credit({at_waves.m - 1, 8192, 16384, Layout::kNN, Accum::kF32}, twin_direct),
              dispatch::kModelTmaTwinCredit, 1e-12);
  // 2 x 40 tiles of 80x128 fill 80 of 132 SMs, under kModelTmaTwinCreditMinFill; 2 x 64 fill 128.
  ASSERT_LT(80, dispatch::kModelTmaTwinCreditMinFill * d.sm_count);
  ASSERT_GE(128, dispatch::kModelTmaTwinCreditMinFill * d.sm_count);
  EXPECT_EQ(credit({150, 5120, 32768, Layout::kNN, Accum::kF32}, twin_direct), 0.0);
  EXPECT_NEAR(credit({150, 8192, 29568, Layout::kNN, Accum::kF32}, twin_direct),
              dispatch::kModelTmaTwinCredit, 1e-12);
  // Without a model there is no score.
  dispatch::NeighborScope bare = scope;
  bare.model = nullptr;
  EXPECT_FALSE(dispatch::model_score(at150, twin_direct, bare));
}

TEST(DispatchStoreThroughTma, AnUnclusteredSwapPickStoresCThroughItsTmaTwin) {
  const DeviceInfo d = h100();
  const dispatch::DispatchModel model = tokens80_model();
  const dispatch::NeighborScope scope = registry_scope(d, &model);
  const Points tuned{{300, 4096, 4096, Layout::kTN, Accum::kF32},
                     {300, 4096, 4096, Layout::kNN, Accum::kF32},
                     {300, 4096, 4096, Layout::kTN, Accum::kF16}};
  auto pick = [&](int64_t m, int64_t n, int64_t k, Layout layout, Accum accum) {
    const auto p = dispatch::predict_from_neighbors({m, n, k, layout, accum}, tuned.points,
                                                    dispatch::NeighborRule::kTransfer, scope);
    EXPECT_TRUE(p && p->modeled) << m << "x" << n << "x" << k;
    return p;
  };
  // The model's 80x128 with direct stores, in both layouts and accumulations: its twin, the
  // deepest compiled ring, the rest of the config kept.
  for (const auto& [layout, accum] : {std::pair{Layout::kTN, Accum::kF32},
                                      std::pair{Layout::kNN, Accum::kF32},
                                      std::pair{Layout::kTN, Accum::kF16}}) {
    const auto p = pick(230, 5120, 6144, layout, accum);
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->tma_store) << p->config.name();
    EXPECT_TRUE(p->config.swap_ab && p->config.block_m == 80 && p->config.block_n == 128 &&
                p->config.epilogue == Epilogue::kTmaStore && p->config.num_stages == 7 &&
                p->config.split_k == 1 && p->config.cluster_m == 1 &&
                p->config.layout == layout && p->config.accum == accum)
        << p->config.name();
    EXPECT_TRUE(registry::compiled_ahead(p->config)) << p->config.name();
  }
  // Where the weight-sharing twin multicasts (a cluster), the stores stay direct.
  const auto shared = pick(150, 10240, 8192, Layout::kTN, Accum::kF32);
  ASSERT_TRUE(shared);
  EXPECT_TRUE(shared->shared_weights && !shared->tma_store &&
              shared->config.epilogue == Epilogue::kDirect)
      << shared->config.name();
}

TEST(DispatchModel, RanksOnlyTheSwapTilesItWasFittedOn) {
  const DeviceInfo d = h100();
  // Trees that make the widest swap tiles fastest: past 224 tokens, or past 192 rows of N.
  for (const auto& [feature, bound] :
       {std::pair{"block_m", dispatch::kModelMaxSwapTokens},
        std::pair{"block_n", dispatch::kModelMaxSwapRows}}) {
    const dispatch::DispatchModel model = stumps_model(
        stump("swap_ab", 0.5, 0, -1) + stump(feature, bound, 0, -2), 2, "widest.model");
    const dispatch::NeighborScope scope = registry_scope(d, &model);
    const Points tuned{{300, 4096, 4096, Layout::kNN, Accum::kF32}};
    // The catalog has such tiles (232 x 128 and 96 x 256), so the rule is what keeps them out.
    EXPECT_TRUE(std::any_of(registry::instances().begin(), registry::instances().end(),
                            [&](const KernelInstance& inst) {
                              const KernelConfig& c = inst.config;
                              return c.swap_ab && c.layout == Layout::kNN &&
                                     c.accum == Accum::kF32 &&
                                     (std::string(feature) == "block_m" ? c.block_m : c.block_n) >
                                         bound;
                            }))
        << feature;
    const auto p = dispatch::predict_from_neighbors({450, 5120, 3072, Layout::kNN, Accum::kF32},
                                                    tuned.points, dispatch::NeighborRule::kTransfer,
                                                    scope);
    ASSERT_TRUE(p && p->modeled) << feature;
    EXPECT_TRUE(p->config.swap_ab) << p->config.name();
    EXPECT_LE(p->config.block_m, dispatch::kModelMaxSwapTokens) << p->config.name();
    EXPECT_LE(p->config.block_n, dispatch::kModelMaxSwapRows) << p->config.name();
  }
}

TEST(DispatchModel, RanksTheTilesAddedAfterItsFitWithKUnsplitOnly) {
  const DeviceInfo d = h100();
  // Trees that favour swap tiles, K split, and 152 tokens most of all.
  const dispatch::DispatchModel model = stumps_model(
      stump("swap_ab", 0.5, 0, -1) + stump("log2_splits", 0.5, 0, -2) +
          stump("block_m", 151.5, 0, -1) + stump("block_m", 152.5, 0, 1),
      4, "split152.model");
  const dispatch::NeighborScope scope = registry_scope(d, &model);
  const Points tuned{{300, 4096, 4096, Layout::kNN, Accum::kF32}};
  // Two splits of 128-row tiles fill the SMs here, short of fit_split_round's three: the pick is
  // the model's.
  const Problem problem{150, 8192, 32768, Layout::kNN, Accum::kF32};
  KernelConfig split152 =
      *KernelConfig::parse("sm90_ws_152x128x64_s6_c1x1_w2_m8_st_sk1_f32_nn_swap");
  ASSERT_TRUE(registry::compiled_ahead(split152));
  split152.split_k = 2;
  ASSERT_TRUE(scope.allows(problem, split152));
  const auto p = dispatch::predict_from_neighbors(problem, tuned.points,
                                                  dispatch::NeighborRule::kTransfer, scope);
  ASSERT_TRUE(p && p->modeled && !p->split_round_fit);
  // The trees' favourite, 152 tokens split two ways, is left out; the pick is another split.
  EXPECT_GT(p->config.split_k, 1) << p->config.name();
  for (const auto& [tokens, rows] : dispatch::kModelUnsplitOnlySwapTiles)
    EXPECT_FALSE(p->config.block_m == tokens && p->config.block_n == rows) << p->config.name();
}

TEST(DispatchSmallM, TheCostModelsSwapTileOverAnyHeightReplacesAPickItFindsDearer) {
  const DeviceInfo d = h100();
  const dispatch::DispatchModel model = tokens80_model();
  const dispatch::NeighborScope scope = registry_scope(d, &model);
  const Points tuned{{300, 4096, 4096, Layout::kTN, Accum::kF32},
                     {300, 4096, 4096, Layout::kTN, Accum::kF16}};
  auto pick = [&](int64_t m, Accum accum) {
    const auto p = dispatch::predict_from_neighbors({m, 4096, 7168, Layout::kTN, accum},
                                                    tuned.points, dispatch::NeighborRule::kTransfer,
                                                    scope);
    EXPECT_TRUE(p && p->modeled) << m;
    return p;
  };
  // 94 tokens over 4096 x 7168 weights: the model's 80x128 makes 2 x 32 tiles for 132 SMs;
  // cuBLASLt's 48 tokens over 64 rows makes 2 x 64, and the cost model prefers it by more than
  // the margin. It then stores through its TMA twin where the catalog has one (not at 48).
  const auto p = pick(94, Accum::kF32);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->small_m_fit) << p->config.name();
  EXPECT_TRUE(p->config.swap_ab && p->config.block_m == 48 && p->config.block_n == 64 &&
              p->config.cluster_m == 1 && p->config.split_k == 1)
      << p->config.name();
  KernelConfig modeled = p->config;
  modeled.block_m = 80;
  modeled.block_n = 128;
  modeled.num_consumer_wgs = 2;
  modeled.num_stages = 8;
  const Problem problem{94, 4096, 7168, Layout::kTN, Accum::kF32};
  EXPECT_LT(dispatch::estimate_cost(problem, p->config, d),
            (1.0 - dispatch::kSmallMFitMargin) * dispatch::estimate_cost(problem, modeled, d));
  // Below kSmallMFitMinM tokens, and with fp16 accumulation, the model's pick stands.
  for (const auto& [m, accum] : {std::pair{dispatch::kSmallMFitMinM - 1, Accum::kF32},
                                 std::pair{int64_t(94), Accum::kF16}}) {
    const auto q = pick(m, accum);
    ASSERT_TRUE(q);
    EXPECT_FALSE(q->small_m_fit) << m << " " << q->config.name();
    EXPECT_EQ(q->config.block_m, 80) << q->config.name();
  }
}

TEST(DispatchSmallM, NoTileNarrowerThanItsMinimumTokens) {
  const DeviceInfo d = h100();
  // The model picks no swap tile; the formula then ranks 32 tokens over 64 rows first at
  // 256 x 576 x 7168, cheaper than the pick by more than the margin, and only the minimum width
  // keeps it out (it ran 0.83 of the pick there).
  const dispatch::DispatchModel model = dispatch::parse_model(swap_model(1.0), "noswap.model");
  const dispatch::NeighborScope scope = registry_scope(d, &model);
  const Points tuned{{300, 4096, 4096, Layout::kNN, Accum::kF32}};
  const Problem problem{256, 576, 7168, Layout::kNN, Accum::kF32};
  const KernelConfig narrow =
      *KernelConfig::parse("sm90_ws_32x64x64_s12_c1x1_w2_m8_st_sk1_f32_nn_swap");
  ASSERT_TRUE(registry::compiled_ahead(narrow));
  ASSERT_LT(narrow.block_m, dispatch::kSmallMFitMinTokens);
  const auto p = dispatch::predict_from_neighbors(problem, tuned.points,
                                                  dispatch::NeighborRule::kTransfer, scope);
  ASSERT_TRUE(p && p->modeled);
  EXPECT_LT(dispatch::estimate_cost(problem, narrow, d),
            (1.0 - dispatch::kSmallMFitMargin) * dispatch::estimate_cost(problem, p->config, d))
      << p->config.name();
  if (p->config.swap_ab) EXPECT_GE(p->config.block_m, dispatch::kSmallMFitMinTokens);
}

TEST(DispatchStoreThroughTma, NoTwinForATileWithoutOneOrASplitPick) {
  const DeviceInfo d = h100();
  const dispatch::NeighborScope scope = registry_scope(d, nullptr);
  // A tuned shape whose winner is a swap tile with no twin in the catalog (168 wide), or split.
  KernelConfig c168 = *KernelConfig::parse("sm90_ws_168x64x64_s7_c1x1_w1_m8_st_sk1_f32_tn_swap");
  KernelConfig c112_split =
      *KernelConfig::parse("sm90_ws_112x128x64_s7_c1x1_w2_m8_st_sk2_f32_tn_swap");
  for (const KernelConfig& winner : {c168, c112_split}) {
    dispatch::Prediction p{winner, {}, false, false, false};
    dispatch::store_through_tma({300, 4096, 4096, Layout::kTN, Accum::kF32}, &p, scope);
    EXPECT_FALSE(p.tma_store) << winner.name();
    EXPECT_EQ(p.config, winner) << p.config.name();
  }
  // The same 112-wide tile unsplit does take its twin, and 104 wide (8 mod 16) its twin at the
  // one ring that stages its whole tile, a stage shallower.
  KernelConfig c112 = c112_split;
  c112.split_k = 1;
  dispatch::Prediction p{c112, {}, false, false, false};
  dispatch::store_through_tma({300, 4096, 4096, Layout::kTN, Accum::kF32}, &p, scope);
  EXPECT_TRUE(p.tma_store && p.config.epilogue == Epilogue::kTmaStore) << p.config.name();
  const KernelConfig c104 =
      *KernelConfig::parse("sm90_ws_104x128x64_s7_c1x1_w2_m8_st_sk1_f32_nn_swap");
  dispatch::Prediction q{c104, {}, false, false, false};
  dispatch::store_through_tma({900, 4096, 4096, Layout::kNN, Accum::kF32}, &q, scope);
  EXPECT_TRUE(q.tma_store) << q.config.name();
  EXPECT_EQ(q.config.name(), "sm90_ws_104x128x64_s6_c1x1_w2_m8_tma_sk1_f32_nn_swap");
}

TEST(DispatchModel, AModelOfAnotherTableIsNotUsed) {
  TempDir dir;
  const std::string table = dir.file("x-f32.table");
  {
    std::ifstream in(shipped_table(Accum::kF32), std::ios::binary);
    std::ofstream out(table, std::ios::binary);
    out << in.rdbuf();
  }
  {
    std::ofstream out(dispatch::model_path_for_table(table));
    out << swap_model();
  }
  const DeviceInfo d = h100();
  {
    const dispatch::LoadedTable loaded(dispatch::load_table(table), table, d);
    ASSERT_TRUE(loaded.usable());
    ASSERT_NE(loaded.model(), nullptr) << loaded.model_status();
  }
  {
    std::ofstream out(dispatch::model_path_for_table(table));
    std::string text = swap_model();
    text.replace(text.find(kH100), std::string(kH100).size(), "NVIDIA H200");
    out << text;
  }
  {
    const dispatch::LoadedTable loaded(dispatch::load_table(table), table, d);
    EXPECT_TRUE(loaded.usable());
    EXPECT_EQ(loaded.model(), nullptr);
    EXPECT_NE(loaded.model_status().find("not used"), std::string::npos) << loaded.model_status();
  }
  {
    std::ofstream out(dispatch::model_path_for_table(table));
    out << "hgemm-dispatch-model 1\ngpu";
  }
  const dispatch::LoadedTable loaded(dispatch::load_table(table), table, d);
  EXPECT_TRUE(loaded.usable());
  EXPECT_EQ(loaded.model(), nullptr);
  EXPECT_NE(loaded.model_status().find("x-f32.model:"), std::string::npos)
      << loaded.model_status();
}

}  // namespace
