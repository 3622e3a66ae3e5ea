// The dispatch model: gradient-boosted trees, fitted by scripts/fit-dispatch-model to every
// measurement of a tuning database, that predict an sm90 config's -log(speedup over cuBLASLt)
// at any shape. The transfer rule (neighbors.hpp) moves the times of configs measured at nearby
// shapes; where no tuned shape has the problem's N and K (a model whose layers the table never
// saw), those neighbours differ in N and K too, and the model ranks the whole catalog instead
// (docs/notes/2026-11-29-dispatch-model.md has the scores).
//
// The file sits beside its dispatch table (<slug>-<acc>.model next to <slug>-<acc>.table); only
// the fp32 table has one: with fp16 accumulation the model's picks lost 1% to transfer's in TN
// on llm-fresh, and no fp16 measurement over the whole catalog at new N, K exists to fit or
// judge it offline.
//
//   hgemm-dispatch-model 1
//   gpu NVIDIA H100 80GB HBM3
//   acc f32
//   sm_count 132                       the SM count the fit and its checks assumed
//   source nvidia-h100-80gb-hbm3-f32.jsonl.gz
//   source_bytes 6502065               the history's size as stored (a test compares them)
//   features 27 log2_m log2_n ...      the inputs, in model_features' order
//   layout tn trees 150 depth 6 base 0.41
//   F0 .. F62 | T0 .. T62 | L0 .. L63  a tree a line: node i's feature (-1: no split, go left)
//   ...                                and threshold (x >= T goes right, to 2i + 2; else 2i + 1),
//                                      then the leaves of the last level, left to right
//   check 19 2048 1408 CONFIG 0.497    predictions the fitting script computed: parse_model
//                                      refuses a model whose check this build's features and
//                                      walk do not reproduce (to 1e-9), so a feature changed on
//                                      one side only is an error, not a silently worse ranking
//
// Lines are '\n'-terminated; everything after a '#' on a line is a comment (text_lines.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::dispatch {

inline constexpr int kModelFormat = 1;
// The token counts where dispatch consults the model. Below 17 the decode rule answers (the model
// was fitted on M > 16 alone); from 1024 on (prefill) transfer's picks of the same shapes ran
// 0.7% faster in both layouts on llm-fresh, where below it the model's ran 0-4% faster
// (docs/notes/2026-11-29-dispatch-model.md).
inline constexpr int64_t kModelMinM = 17;
inline constexpr int64_t kModelMaxM = 1023;
// The widest swap-AB tiles the shipped models were fitted on: 224 tokens, 192 rows of N. Past
// them the trees extrapolate; ranking the wave rule's 232x128 and 96x256 (added after the fit),
// the model picked 96x256 split four ways at 94x4096x7168 NN (-15%) and unsplit at 450x5120x3072
// NN (-4%) (bench/results/2026-11-29-h200-swap-tma-store-8/wide).
inline constexpr int kModelMaxSwapTokens = 224;
inline constexpr int kModelMaxSwapRows = 192;
// Swap-AB tiles (tokens, rows of N) the catalog gained after that fit, inside its extent: the
// model ranks them with K unsplit only. Split, it picked 152x128 two ways at 150x5120x32768 NN
// (0.81 of the 80x192 split two ways it replaced) and 96x192 four ways at 96x5120x27648 TN
// (0.95); its unsplit picks of them gained up to 28% (96x5120x3072 TN)
// (bench/results/2026-11-30-h200-small-m-rounds).
inline constexpr std::pair<int, int> kModelUnsplitOnlySwapTiles[] = {{104, 64}, {152, 128},
                                                                     {96, 192}};
// The model was fitted on direct stores; an unsplit, unclustered swap-AB pick runs its TMA-store
// twin instead (store_through_tma), which ran 3.6% (fp32) and 3.4% (fp16) faster than the direct
// stores over twelve llm shapes (bench/results/2026-11-29-h200-swap-tma-store). Credited to such
// configs in the model's ranking (-log speedup), so that a split pick (which keeps its direct
// stores) wins only by more than that: llm-fresh's worst calls at 96-300 tokens are split swap
// picks where cuBLASLt runs an unsplit tile of the same CTA count 5-11% faster. Measured with
// the credit everywhere (bench/results/2026-11-30-h200-model-twin-credit): TN +4-11% on all
// five calls it changed, NN +13-14% on two, -19% on one that left 52 SMs idle (hence the fill
// bound), -7% on one at 500 tokens (hence below kWaveFitMinM, model_score). So bounded, it changes
// five suite calls, which ran +12%, +10%, +11%, +5% and -1% in that A/B.
inline constexpr double kModelTmaTwinCredit = 0.035;
// ... only where the unsplit tile's CTAs fill this much of the SMs (model_score).
inline constexpr double kModelTmaTwinCreditMinFill = 0.7;

// The model's inputs for an sm90 `config` at `problem`'s shape on `device` (its SM count), in the
// order of model_feature_names(); scripts/fit-dispatch-model computes the same, operation for
// operation.
std::vector<double> model_features(const Problem& problem, const KernelConfig& config,
                                   const DeviceInfo& device);
const std::vector<std::string>& model_feature_names();

struct DispatchModel {
  struct Tree {
    std::vector<int> feature;        // 2^depth - 1 nodes, level order
    std::vector<double> threshold;
    std::vector<double> leaf;        // 2^depth
  };
  struct Forest {
    bool present = false;
    int depth = 0;
    double base = 0;
    std::vector<Tree> trees;
  };
  struct Check {
    Problem problem;
    KernelConfig config;
    double value = 0;
  };

  std::string gpu;
  Accum accum = Accum::kF32;
  int sm_count = 0;
  std::string source;
  int64_t source_bytes = 0;
  Forest tn, nn;
  std::vector<Check> checks;

  bool has(Layout layout) const { return forest(layout).present; }
  // The predicted -log(speedup) of an sm90 config (lower is faster); nullopt without a forest
  // for the problem's layout or for another family.
  std::optional<double> predict(const Problem& problem, const KernelConfig& config,
                                const DeviceInfo& device) const;

 private:
  const Forest& forest(Layout layout) const { return layout == Layout::kTN ? tn : nn; }
};

// Throws hgemm::Error (HGEMM_ERROR_INTERNAL) naming `where`, the line and what is wrong.
DispatchModel parse_model(std::string_view text, const std::string& where);
DispatchModel load_model(const std::string& path);
// The model file that belongs to a dispatch table: "x.table" -> "x.model".
std::string model_path_for_table(const std::string& table_path);

}  // namespace hgemm::dispatch
