// The rule for shapes the table lacks: borrow the winners of the nearest tuned shapes. Dispatch
// runs the default rule on the dispatch table; the tuner's TunedTable runs any of them on a JSONL
// history (`hgemm db predict/loo --rule`). One implementation serves both, so what the tools score
// offline is what dispatch does.
//
//   cost     among the winners of the kNeighbors nearest, the one the cost model
//            (estimate_cost) finds cheapest for this shape (on the LLM suite it ran 0.963 of
//            cuBLASLt in graph mode against nearest's 0.959, 0.986 against 0.975 offline;
//            bench/results/2026-11-23-h100-86bd4cd). Here and wherever a rule lets the model rank
//            different tiles, each tile's efficiency is fitted to the points' times
//            (FittedEfficiency, below)
//   nearest  the winner of the nearest tuned shape, which carries that shape's wave quantization
//            along (64x64 fills one wave at 128x4096 and two at 128x5120)
//   scaled   among the same winners, the highest neighbour speedup times the cost model's ratio
//            of efficiencies, this shape over the neighbour's (its waves, tile fill, split)
//   siblings the cost rule's pick or one of its block_n siblings (the pick with
//            another legal block_n of its family's axis), whichever the cost model prefers: the
//            grid's power-of-two shapes rarely let a tile such as 128x224 win, yet at N = 3584 it
//            fills the last wave that 128x256 leaves 61% empty. Where the pick's cluster does
//            not divide this shape's tile count, the same tile without a cluster (any compiled
//            schedule, ring depth, epilogue) and its block_n siblings compete as well
//   transfer (the default) the siblings pick, unless a config's own times predict it faster by
//            more than 5% (the run-to-run spread of one measurement). Each config timed at the
//            kNeighbors nearest tuned shapes (raster and group variants pooled) gets a predicted
//            time here: its times there, each carried over by the cost model's ratio for that
//            same config (this shape's cost over the neighbour's), weighted by closeness. Only
//            configs timed at three or more of them compete; the winner is varied as siblings
//            varies its pick. The cost model then only moves one tile between shapes (waves,
//            padding, split) and never ranks different tiles against each other, which is where
//            it errs. Held-out fifth, graph mode against cublaslt-best: 0.926 -> 0.932 (f32),
//            1.037 -> 1.045 (f16); without the 5% margin it lost 1% there while winning 1-2.5%
//            under `hgemm db loo` (docs/notes/2026-11-24-transfer.md). A table without times
//            (format 1) gives the siblings pick. Last, a pick that is not swap-AB meets every
//            compiled swap-AB tile that pads M x N less than it does, at its split, and
//            the cost model keeps the cheaper: neighbours carry their own M's width, so without
//            this a new M rarely reached a swap tile (42 untuned token counts measured over the
//            whole space: 0.917 -> 0.935 of the space's best; held-out fifth f32 0.933 -> 0.938,
//            f16 1.040 -> 1.050; docs/notes/2026-11-24-dev-set.md). Where no tuned shape of the
//            layout has the problem's N and K (the layers of a model the table never saw) and
//            the scope has a dispatch model (model.hpp) and 16 < M < 1024, the model's fastest
//            catalog config instead: every compiled sm90 config of the layout, accumulation and
//            element type, at each power-of-two split cost.hpp allows, default raster. On thirty
//            such shapes measured over the whole catalog: 0.942 -> 0.973 of the best
//            (docs/notes/2026-11-29-dispatch-model.md). From kWaveFitMinM tokens with fp32
//            accumulation, where the pick (transfer's or the model's) is a cooperative tile of
//            two or more warpgroups that runs at most kWaveFitMaxRounds rounds, the compiled
//            tile of that kind whose rounds over the SMs cover the least area (fit_waves in
//            neighbors.cpp) replaces it; to kNarrowSwapMaxM tokens at N up to
//            kNarrowSwapMaxN, the same over 64-row swap-AB tiles against any unsplit pick
//            (fit_narrow_swap). Then a swap-AB pick whose token tiles pair up and whose weights
//            hold kShareWeightsMinElements or more becomes its compiled twin that multicasts the
//            weight tile to each pair (share_weights in neighbors.cpp); from kSmallMFitMinM to
//            below kWaveFitMinM tokens with fp32 accumulation, the cost model's swap-AB tile where
//            it costs kSmallMFitMargin less (fit_small_m); from
//            kSplitRoundMinM to kSplitRoundMaxM tokens, where 128-row tiles of N fill at most a
//            third of the SMs and K is long, one swap-AB tile of every token with K split to fill
//            one round (fit_split_round). Last, an unsplit swap-AB pick with direct stores
//            becomes its compiled twin that stores C through TMA (store_through_tma)
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/device.hpp"
#include "dispatch/model.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::dispatch {

enum class NeighborRule { kNearest, kCost, kScaled, kSiblings, kTransfer };
inline constexpr NeighborRule kDefaultNeighborRule = NeighborRule::kTransfer;
inline constexpr int kNeighbors = 8;
// How many of a tuned shape's measured configs (fastest first) the tables carry for `transfer`.
// Eight scored no better than siblings under `hgemm db loo`; 32 as well as all of them (a
// shape's search measures 15 in the median).
inline constexpr int kCarriedConfigs = 32;
// The wave rule (fit_waves): from this many tokens, among cooperative tiles of at least this
// area (128 x 96) and side (72-token tiles ran 5-14% below the others per slot), swap-AB ones
// that store C directly charged this much more per slot (they ran ~6% below the others per tile
// at 1100-3300 tokens; any charge from 0.90 to 1.0 chose within 0.6% as well there). Swap-AB
// tiles with a TMA-store twin, which runs in their place, are not charged from
// kWaveFitTwinMinArea: at 600-1150 tokens those twins ran level with the cooperative tiles per
// slot or better (bench/results/2026-11-30-h200-mid-m-probe), and uncharged they ran 3.7% faster
// over the 47 calls whose pick they took (bench/results/2026-11-30-h200-wave-swap-twins). The
// 112x128 twin lost 0-5% in all six calls it took uncharged there while its C staging came in
// double-buffered 16-row chunks; staged whole, it and 120x128 go uncharged from 112x128: the 34
// calls that changed ran 1-2% faster against cublaslt-best, none more than 4% slower
// (bench/results/2026-11-30-h200-wave-rules-widened/ta). The twins of 144, 176 and 208 tokens
// over 128 rows were charged too while staged in double-buffered 16-row chunks (5-15% below
// 152x128 per slot, bench/results/2026-11-30-h200-odd-width-charge); staged whole they are not:
// uncharged, the 45 calls that changes ran 1.4% faster against cublaslt-best, eight 2-6% slower
// (bench/results/2026-11-30-h200-whole-16-twins/nc). Only where the pick runs at
// most kWaveFitMaxRounds rounds, and only for a tile that takes kWaveFitMargin fewer slots. Up
// to eight rounds with that margin the 72 calls it changed ran 2.2% faster against main but eight
// lost 3-13% (176x128 at 2800x8192x2048, 144x128 at 7000x2048x2048), while the 176- and 208-token
// twins were still double-buffered (bench/results/2026-11-30-h200-waves-to-eight-rounds), and a
// 4% margin past four rounds kept them out until the twins staged whole
// (docs/notes/2026-11-30-whole-16-twins.md). Up to 32 rounds with those two margins, the 33
// calls that changed past eight rounds (9-26: 192x192 and 208x192 of three warpgroups,
// 128x224-256 in 2x1 clusters giving way to twins of 96-224 tokens) ran 4.8% faster, one 3%
// slower (bench/results/2026-11-30-h200-wave-rules-widened/r64). With one margin at any number
// of rounds since, the 70 calls that changed ran 1.6% faster, six 2.6-6.7% slower
// (bench/results/2026-11-30-h200-one-margin). From 384 tokens: the probes
// behind the rule ran from 520, but at 384-450 tokens the five calls it changed ran 2-8% faster
// but one (-2.5%, within the spread) (bench/results/2026-11-30-h200-waves-from-384); fit_small_m
// had fired on no suite call there.
inline constexpr int64_t kWaveFitMinM = 384;
inline constexpr int kWaveFitMinArea = 128 * 96;
inline constexpr int kWaveFitMinSide = 96;
inline constexpr double kWaveFitSwapCost = 1.0 / 0.95;
inline constexpr int kWaveFitTwinMinArea = 112 * 128;
// ... from this many tokens: below it, where 3-5 token tiles cover M, the twins of 96-120 tokens
// over 128 rows ran 2-9% faster than the cooperative tiles of as many slots or more
// (bench/results/2026-11-30-h200-probe-400), and any twin of kWaveFitMinArea goes uncharged.
inline constexpr int64_t kWaveFitTwinAreaMinM = 512;
// ... and there an uncharged twin's slot counts this much: at 450-480 tokens the 96x128 twin ran
// 4-15% faster than 128x96 with direct stores in as many slots
// (bench/results/2026-11-30-h200-probe-400), which the 2% margin left in place; the twenty calls
// it changed at 400-480 tokens gained 1.9% (TN) and 6.7% (NN)
// (bench/results/2026-11-30-h200-twin-ties-below-512).
inline constexpr double kWaveFitSmallTwinCost = 0.96;
inline constexpr int64_t kWaveFitMaxRounds = 32;
inline constexpr double kWaveFitMargin = 0.02;
// fit_narrow_swap: the wave rule over 64-row swap-AB tiles, up to these token counts and N (the
// probe's range: 520-1050 tokens, N 1536-3072).
inline constexpr int64_t kNarrowSwapMaxM = 1050;
inline constexpr int64_t kNarrowSwapMaxN = 3072;
// fit_small_m: from this many tokens (the probe's calls ran 94 and more; below, the cost model
// prefers 8- and 16-token tiles that re-read the weights, unmeasured), below kWaveFitMinM, where
// the cost model's swap-AB tile costs this much less than the pick.
inline constexpr int64_t kSmallMFitMinM = 80;
inline constexpr double kSmallMFitMargin = 0.10;
// Its narrowest tile: 32 tokens over 64 rows, which the formula ranked first at 256x576x7168 NN,
// ran 0.83 of the 64x128 split four ways it replaced, and at 96x5120x5120 NN 0.71 of the 104x64
// that replaced it (bench/results/2026-11-30-h200-small-m-rounds).
inline constexpr int kSmallMFitMinTokens = 48;
// fit_split_round: from kSplitRoundMinM to kSplitRoundMaxM tokens, at least kSplitRoundMinSplits
// splits of at least kSplitRoundMinKBlocks k-blocks each. Measured at 96-232 tokens over 4608-8192
// rows (bench/results/2026-11-30-h200-split-round/ab): at 150 and 200 tokens split three ways
// +1 to +33%, at 96-128 (the narrower tiles' calls) -8 to +7%, at 230 (the 232-token tile, three
// stages deep) -15 to +7%, split two ways (N 7168-8192) -22 to +3%.
inline constexpr int64_t kSplitRoundMinM = 129;
inline constexpr int64_t kSplitRoundMaxM = 208;
inline constexpr int64_t kSplitRoundMinSplits = 3;
inline constexpr int64_t kSplitRoundMinKBlocks = 64;
// The weight-sharing rule (share_weights): weights of at least this many elements (N x K, 64 MiB
// of fp16), where a swap-AB tile's weight multicast measured faster.
inline constexpr int64_t kShareWeightsMinElements = int64_t(32) << 20;
// "nearest", "cost", "scaled", "siblings", "transfer"; parse_neighbor_rule: nullopt for another name.
std::string_view to_string(NeighborRule rule);
std::optional<NeighborRule> parse_neighbor_rule(std::string_view name);

// A config without its raster order and group size, launch arguments whose effect is mostly
// within the measurements' noise: `transfer` pools the variants of one key, and a table carries
// only the fastest variant of each (kCarriedConfigs distinct tiles and splits, not raster
// variants of a few). Where a raster would re-read an operand at the new shape,
// predict_from_neighbors runs the default instead (raster_rereads).
std::string pooled_key(const KernelConfig& config);

// A config's mean measured time at one tuned shape.
struct TimedConfig {
  KernelConfig config;
  double us = 0;
};

// One tuned shape and its winner. `speedup` (over the reference) only matters to `scaled`;
// `timed` (at most kCarriedConfigs, fastest first; empty in a table without times) to `transfer`.
// It views the owner's list (a dispatch table's entry, a TunedEntry): a table's points are only
// valid while the table lives, and the tables that own them cannot be copied.
struct TunedPoint {
  Problem problem;
  KernelConfig config;
  double speedup = 0;
  std::span<const TimedConfig> timed;
};

// Each sm90 tile's throughput as measured in tuned points, in place of the cost model's formula
// (operand reuse alone), wherever the rules rank different tiles against each other (the cost
// rule, the siblings' and the swap widths' variations). The formula rates a 48-wide swap-AB tile
// at 0.57 of 128x256 and a 136-wide one at 0.71, so at 129x4608x3584 it preferred three 48-wide
// tiles in two waves to one 136-wide in one: measured, 21.7 us against 16.7. A tile's measured
// efficiency is the geometric mean, over its unsplit times in the points of one layout and
// accumulation, of the work the model counts at full efficiency per microsecond, in the
// formula's units (its own geomean over the same times); a tile timed at fewer than kMinSamples
// shapes keeps the formula's. docs/notes/2026-11-24-fitted-tile-efficiency.md has the scores.
class FittedEfficiency {
 public:
  static constexpr int kMinSamples = 3;
  // `leave_out`: a problem whose own times do not count (`hgemm db loo`).
  FittedEfficiency(Layout layout, Accum accum, const std::vector<TunedPoint>& points,
                   const DeviceInfo& device, const Problem* leave_out = nullptr);
  // estimate_cost with the tile's fitted efficiency where it has one.
  double cost(const Problem& problem, const KernelConfig& config, const DeviceInfo& device) const;

 private:
  static uint64_t key(const KernelConfig& config);
  struct Sum {
    double log = 0;
    int n = 0;
  };
  std::unordered_map<uint64_t, Sum> sums_;
  double units_log_ = 0;
};

// What a rule may pick: `legal` says whether a config can run a problem (compiled, fits the
// device, the shape's constraints); `blocked` whether a config failed somewhere (never a sibling).
struct NeighborScope {
  const DeviceInfo* device = nullptr;
  std::function<bool(const Problem&, const KernelConfig&)> legal;
  std::function<bool(const KernelConfig&)> blocked;
  // The points' fitted efficiencies, where the caller keeps them (dispatch fits once per table);
  // null: predict_from_neighbors fits the points it is given.
  const FittedEfficiency* fitted = nullptr;
  // The table's dispatch model (model.hpp), which `transfer` consults where no point has the
  // problem's N and K; null: none.
  const DispatchModel* model = nullptr;

  // Whether a rule may offer `config` for `problem`: it can run there and is not blocked.
  bool allows(const Problem& problem, const KernelConfig& config) const {
    return legal(problem, config) && !blocked(config);
  }
};

struct Prediction {
  KernelConfig config;
  Problem neighbor;    // the tuned shape whose winner it is (or whose winner it is a sibling of);
                       // for transfer's own pick, the nearest shape that timed it
  bool sibling = false;
  bool transferred = false;  // chosen by its times at the neighbours, not as a neighbour's winner
  bool modeled = false;      // the dispatch model's fastest catalog config (no point had N, K)
  bool wave_fit = false;     // replaced by the wave rule's tile, which fills the rounds better
  bool narrow_swap_fit = false;  // replaced by a 64-row swap-AB tile that fills the rounds better
  bool small_m_fit = false;  // replaced by the cost model's swap-AB tile below kWaveFitMinM
  bool split_round_fit = false;  // replaced by one token tile over 128 rows split to fill a round
  bool shared_weights = false;  // its cluster twin that multicasts the weight tile (share_weights)
  bool tma_store = false;       // its swap-AB twin that stores C through TMA (store_through_tma)
  // The pick's raster order and group size were a neighbour's, which would re-read an operand
  // here (raster_rereads): they are the defaults instead.
  bool default_raster = false;
};

// What the dispatch model ranks `config` by at `problem` (lower is faster): scope.model's
// -log(speedup), less kModelTmaTwinCredit where the config's TMA-store twin will run in its
// place, from kSmallMFitMinM tokens to below kWaveFitMinM. nullopt without a model or a forest
// for the layout.
std::optional<double> model_score(const Problem& problem, const KernelConfig& config,
                                  const NeighborScope& scope);

// The rule's pick for `problem` among `points` of the same layout and accumulation, nullopt when
// no neighbour's winner is legal. `leave_out_self`: ignore the problem's own entry, as if it had
// never been tuned (how `hgemm db loo` scores the rules on measured problems).
std::optional<Prediction> predict_from_neighbors(const Problem& problem,
                                                 const std::vector<TunedPoint>& points,
                                                 NeighborRule rule, const NeighborScope& scope,
                                                 bool leave_out_self = false);

// An unsplit, unclustered swap-AB pick with direct stores becomes the same tile storing C
// through TMA, where that twin is compiled and `scope` allows it (pick->tma_store says so); any
// other pick stays. The last step of the transfer rule (neighbors.cpp says what it measured).
void store_through_tma(const Problem& problem, Prediction* pick, const NeighborScope& scope);

// How far apart two problems' shapes are for borrowing tuned winners: squared log2 distance over
// M, N and K (layout and accumulation are the caller's to match).
double shape_distance(const Problem& a, const Problem& b);

// The block_n values of a family's search axis: the siblings rule's alternatives, and the tuner's
// block_n axis.
const std::vector<int>& block_n_values(Family family);

// The M widths of sm90 swap-AB tiles (block_m under swap_ab): the siblings rule's alternatives for
// a swap-AB winner, and the tuner's block_m axis beside 64, 128 and 256.
const std::vector<int>& swap_block_m_values();

// The sm90 ring depths of the search space's stages axis.
inline constexpr int kSm90Stages[] = {3, 4, 5, 6, 7, 8, 10, 12, 13, 16};

}  // namespace hgemm::dispatch
