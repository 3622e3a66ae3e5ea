#include "dispatch/neighbors.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "core/kernel_variant.hpp"
#include "dispatch/cost.hpp"
#include "registry/registry.hpp"

namespace hgemm::dispatch {

std::string_view to_string(NeighborRule rule) {
  switch (rule) {
    case NeighborRule::kNearest: return "nearest";
    case NeighborRule::kCost: return "cost";
    case NeighborRule::kScaled: return "scaled";
    case NeighborRule::kSiblings: return "siblings";
    case NeighborRule::kTransfer: return "transfer";
  }
  return "?";
}

std::optional<NeighborRule> parse_neighbor_rule(std::string_view name) {
  for (NeighborRule r : {NeighborRule::kNearest, NeighborRule::kCost, NeighborRule::kScaled,
                         NeighborRule::kSiblings, NeighborRule::kTransfer})
    if (name == to_string(r)) return r;
  return std::nullopt;
}

double shape_distance(const Problem& a, const Problem& b) {
  auto log_ratio = [](int64_t x, int64_t y) { return std::log2(double(x) / double(y)); };
  const double dm = log_ratio(a.m, b.m), dn = log_ratio(a.n, b.n), dk = log_ratio(a.k, b.k);
  return dm * dm + dn * dn + dk * dk;
}

std::string pooled_key(const KernelConfig& config) {
  KernelConfig key = config.instance();
  key.split_k = config.split_k;
  return key.name();
}

const std::vector<int>& swap_block_m_values() {
  static const std::vector<int> widths{32,  40,  48,  64,  72,  80,  104, 112, 128, 136,
                                       144, 160, 168, 176, 192, 208, 224, 256};
  return widths;
}

const std::vector<int>& block_n_values(Family family) {
  // sm90: the catalog compiles a few of these; the JIT (launch/sm90_jit) builds any other.
  static const std::vector<int> sm90{64, 96, 112, 128, 160, 192, 224, 256};
  static const std::vector<int> sm80{32, 64, 128, 256};
  static const std::vector<int> decode{8, 16, 32, 64, 128};
  return family == Family::kSm90Ws ? sm90 : family == Family::kDecode ? decode : sm80;
}

FittedEfficiency::FittedEfficiency(Layout layout, Accum accum,
                                   const std::vector<TunedPoint>& points, const DeviceInfo& device,
                                   const Problem* leave_out) {
  double formula_log = 0;
  int formula_n = 0;
  for (const TunedPoint& point : points) {
    const Problem& at = point.problem;
    if (at.layout != layout || at.accum != accum) continue;
    if (leave_out && at.m == leave_out->m && at.n == leave_out->n && at.k == leave_out->k)
      continue;
    for (const TimedConfig& t : point.timed) {
      if (t.config.family != Family::kSm90Ws || t.config.split_k != 1 || !(t.us > 0)) continue;
      const double formula = estimate_cost(at, t.config, device);
      if (!(formula > 0)) continue;
      const double full = formula * formula_tile_efficiency(t.config);
      Sum& sum = sums_[key(t.config)];
      sum.log += std::log(full / t.us);
      ++sum.n;
      formula_log += std::log(formula / t.us);
      ++formula_n;
    }
  }
  units_log_ = formula_n > 0 ? formula_log / formula_n : 0;
}

double FittedEfficiency::cost(const Problem& problem, const KernelConfig& config,
                              const DeviceInfo& device) const {
  if (config.family == Family::kSm90Ws) {
    auto it = sums_.find(key(config));
    if (it != sums_.end() && it->second.n >= kMinSamples) {
      // Half way (in log) between the formula and the measurements: the measured mean alone
      // scored worse under `hgemm db loo` on the dev set (0.929 against the formula's 0.936);
      // a tile is timed where it was among a shape's fastest, which flatters the rarely fast.
      const double measured = std::exp(it->second.log / it->second.n - units_log_);
      return estimate_cost_at(problem, config, device,
                              std::sqrt(formula_tile_efficiency(config) * measured));
    }
  }
  return estimate_cost(problem, config, device);
}

uint64_t FittedEfficiency::key(const KernelConfig& c) {
  // An sm90 config's instance() within one layout and accumulation (the fit's filter), packed:
  // not the launch arguments (raster, group, split). NOTE: not KernelConfigHash, whose hash()
  // formats the config's name: with name strings a fit took about 7 ms (`hgemm db predict` over
  // the held-out suite, a fit per shape: 2.5-3.0 s against 1.5).
  return uint64_t(c.block_m) | uint64_t(c.block_n) << 10 | uint64_t(c.block_k) << 20 |
         uint64_t(c.num_stages) << 30 | uint64_t(c.num_consumer_wgs) << 36 |
         uint64_t(c.cluster_m) << 39 | uint64_t(c.cluster_n) << 43 |
         uint64_t(c.epilogue) << 47 | uint64_t(c.schedule) << 49 | uint64_t(c.swap_ab) << 51 |
         uint64_t(c.dtype) << 52;
}

namespace {

double cost(const Problem& problem, const KernelConfig& config, const NeighborScope& scope) {
  return scope.fitted ? scope.fitted->cost(problem, config, *scope.device)
                      : estimate_cost(problem, config, *scope.device);
}

// The ring depths the catalog compiles for `tile`, shallowest first.
std::vector<int> compiled_depths(KernelConfig tile) {
  std::vector<int> depths;
  for (int stages : kSm90Stages) {
    tile.num_stages = stages;
    if (registry::compiled_ahead(tile)) depths.push_back(stages);
  }
  return depths;
}

// The ring depths at which `tile` competes: those the catalog compiles for it, or, for a tile
// only the JIT builds, the deepest one the scope allows. NOTE: not every legal depth: the cost
// model charges a tile its ring's depth (the fill term), so with the JIT on, where every depth
// is legal, it chose the shallowest: 1000x576x2048 ran a 72-wide swap-AB tile with 3 stages,
// 15.0 us, where the catalog's 112-wide with 8 takes 8.9 (bench/results/2026-11-24-h100-clusters,
// c-1000x576x2048.csv). Without the JIT only compiled depths are legal, so nothing changes there.
std::vector<int> ring_depths(const Problem& problem, KernelConfig tile,
                             const NeighborScope& scope) {
  std::vector<int> depths = compiled_depths(tile);
  if (!depths.empty()) return depths;
  for (auto it = std::rbegin(kSm90Stages); it != std::rend(kSm90Stages); ++it) {
    tile.num_stages = *it;
    if (scope.allows(problem, tile)) return {*it};
  }
  return depths;
}

// A pick and the alternatives offered to it: an alternative that can run here and the cost model
// finds strictly cheaper than the best so far replaces it (ties keep the earlier).
class Cheapest {
 public:
  Cheapest(const Problem& problem, Prediction* pick, const NeighborScope& scope)
      : problem_(problem), pick_(pick), scope_(scope),
        best_cost_(cost(problem, pick->config, scope)) {}
  void consider(const KernelConfig& alternative) {
    if (!scope_.allows(problem_, alternative)) return;
    const double c = cost(problem_, alternative, scope_);
    if (c < best_cost_) {
      best_cost_ = c;
      pick_->config = alternative;
      pick_->sibling = true;
    }
  }

 private:
  const Problem& problem_;
  Prediction* pick_;
  const NeighborScope& scope_;
  double best_cost_;
};

// A width whose N-major B (NN) the kernel stages in 16-column chunks: the swizzle spans tile
// the width exactly (core/smem_budget.hpp), so 112 = 64 + 48 takes seven of 32 bytes each, and
// ran 1.3-1.7x slower than the 128-wide pick it would replace (256x7168x16384 NN: 93 -> 163 us),
// where in TN it ran 3-5% faster. The cost model does not see the chunks; a tuned table may
// still time such a tile.
bool narrow_b_chunks(const KernelConfig& config) {
  if (config.family != Family::kSm90Ws) return false;
  const Sm90Geometry g = sm90_geometry(sm90_variant(config));
  return !g.b_k_major && g.b_chunk < 32;
}

// The siblings rule's variation of a pick, kept where the cost model finds it strictly cheaper:
// the pick's block_n siblings; for a swap-AB tile every compiled width; where the pick's cluster
// pads this shape's tiles, the same tile without a cluster and its block_n siblings.
void vary(const Problem& problem, Prediction* pick, const NeighborScope& scope) {
  const KernelConfig winner = pick->config;
  Cheapest cheapest(problem, pick, scope);
  if (winner.swap_ab) {
    // A swap-AB tile's width is M's: the neighbour's M was another one, so every compiled
    // width (each with the ring depth its row compiles) competes for this M.
    for (int block_m : swap_block_m_values()) {
      KernelConfig sibling = winner;
      sibling.block_m = block_m;
      for (int stages : ring_depths(problem, sibling, scope)) {
        if (block_m == winner.block_m && stages == winner.num_stages) continue;
        sibling.num_stages = stages;
        cheapest.consider(sibling);
      }
    }
    return;
  }
  // A neighbour's cluster fits its own tile count; where this shape's count along the cluster
  // is odd the last cluster runs a CTA on nothing (8192x576 in 128-wide tiles, 1x2: 6 tiles
  // for 5), so the same tile without a cluster, at each compiled schedule, ring depth and
  // epilogue, competes too, and each base's block_n siblings after it.
  std::vector<KernelConfig> bases{winner};
  if (winner.family == Family::kSm90Ws && cluster_pads_tiles(problem, winner))
    for (Schedule schedule : {Schedule::kCooperative, Schedule::kPingPong})
      for (Epilogue epilogue : {Epilogue::kDirect, Epilogue::kTmaStore}) {
        KernelConfig plain = winner;
        plain.cluster_m = plain.cluster_n = 1;
        plain.schedule = schedule;
        plain.epilogue = epilogue;
        for (int stages : ring_depths(problem, plain, scope)) {
          plain.num_stages = stages;
          if (!scope.allows(problem, plain)) continue;
          bases.push_back(plain);
          cheapest.consider(plain);
        }
      }
  for (const KernelConfig& base : bases)
    for (int block_n : block_n_values(base.family)) {  // ties keep the pick, then axis order
      if (block_n == base.block_n) continue;
      KernelConfig sibling = base;
      sibling.block_n = block_n;
      if (narrow_b_chunks(sibling)) continue;
      cheapest.consider(sibling);
    }
}

// A 64- or 128-row tile pads M to its multiple (M = 80 in 128 rows, 448 in 512); a swap-AB tile
// puts M on wgmma's N in steps of 16 (80 in one 80-wide tile, 448 in two of 224). Neighbours
// rarely carry the width this M needs (their M was another), so for a pick that is not swap-AB,
// every compiled swap-AB tile (the catalog's ring depth and warpgroups, the pick's split) whose
// tiles cover less padded M x N area than the pick's competes, and the cost model keeps the
// cheapest where it is cheaper than the pick. The area, not M alone: at N = 576 a swapped tile of
// 72 tokens over 192 rows of N makes 3 columns where 64x128 makes 4.5, though 72 pads M = 3000
// more than 64 does (3000x576x7168 f16: 0.57 -> 1.02 of cublaslt-best,
// docs/notes/2026-11-25-swap-area.md). On 42 token counts of no table, measured over the whole
// space, the M-only version moved dispatch from 0.917 to 0.935 of the space's best (f32, TN;
// docs/notes/2026-11-24-dev-set.md), the area 0.951 -> 0.962 by speedup (f32, f16 level).
void fit_m_with_swap(const Problem& problem, Prediction* pick, const NeighborScope& scope) {
  const KernelConfig base = pick->config;
  if (base.family != Family::kSm90Ws || base.swap_ab) return;
  auto padded = [](int extent, int tile) { return (extent + tile - 1) / tile * int64_t(tile); };
  const int64_t base_area = padded(problem.m, base.block_m) * padded(problem.n, base.block_n);
  Cheapest cheapest(problem, pick, scope);
  for (int width : swap_block_m_values()) {
    for (int rows : {64, 128, 192}) {
      if (padded(problem.m, width) * padded(problem.n, rows) >= base_area) continue;
      KernelConfig swap{};
      swap.family = Family::kSm90Ws;
      swap.swap_ab = true;
      swap.block_m = width;
      swap.block_n = rows;
      swap.block_k = 64;
      swap.num_consumer_wgs = rows / 64;
      swap.epilogue = Epilogue::kDirect;
      swap.split_k = base.split_k;
      swap.layout = base.layout;
      swap.accum = base.accum;
      for (int stages : ring_depths(problem, swap, scope)) {
        swap.num_stages = stages;
        cheapest.consider(swap);
      }
    }
  }
}

// A swap-AB tile that stores C through TMA: the twin store_through_tma gives a direct-store
// pick, never a candidate of its own where the rules rank tiles (the dispatch model was fitted
// before these existed, and the wave rule would weigh the twins' shallower rings).
bool swap_tma_twin(const KernelConfig& c) {
  return c.family == Family::kSm90Ws && c.swap_ab && c.epilogue == Epilogue::kTmaStore;
}

// A catalog sm90 instance (not a promoted rewrite) built for the problem's layout, accumulation
// and element type, other than a swap-AB TMA-store twin: what the dispatch model and the wave
// rule choose among.
bool catalog_sm90_for(const KernelConfig& c, const Problem& problem) {
  return c.family == Family::kSm90Ws && c.source.empty() && c.layout == problem.layout &&
         c.accum == problem.accum && c.dtype == problem.dtype && !swap_tma_twin(c);
}

// `c` storing C through TMA at the deepest ring compiled for that twin that `scope` allows here;
// nullopt where none is.
std::optional<KernelConfig> tma_store_twin(const Problem& problem, KernelConfig c,
                                           const NeighborScope& scope) {
  c.epilogue = Epilogue::kTmaStore;
  const std::vector<int> depths = compiled_depths(c);
  for (auto it = depths.rbegin(); it != depths.rend(); ++it) {
    c.num_stages = *it;
    if (scope.allows(problem, c)) return c;
  }
  return std::nullopt;
}

struct WaveSlots {
  int64_t rounds;
  double slots;  // rounds x tile area, swap-AB charged kWaveFitSwapCost (see wave_slots)
};

// The picks store_through_tma turns into their TMA-store twin (where one is compiled): sm90
// swap-AB with direct stores, K unsplit, no cluster.
bool takes_tma_twin(const KernelConfig& c) {
  return c.family == Family::kSm90Ws && c.swap_ab && c.epilogue == Epilogue::kDirect &&
         c.split_k == 1 && c.cluster_m == 1 && c.cluster_n == 1;
}

// Whether the tile stores C through TMA, or has a compiled twin that does (at any ring depth):
// the twin store_through_tma runs in its place where it can.
bool stores_through_tma(KernelConfig c) {
  if (c.epilogue == Epilogue::kTmaStore) return true;
  c.epilogue = Epilogue::kTmaStore;
  return !compiled_depths(c).empty();
}

// The wave rules' measure of an unsplit sm90 tile at `problem` (wave_slots: of a cooperative tile
// of two or three warpgroups, fit_waves' kind): the rounds of tiles the SMs run (tile_waves:
// clusters padded whole) times the tile's area, swap-AB tiles charged kWaveFitSwapCost more unless
// they store C through TMA (or have a twin that does) and cover at least kWaveFitTwinMinArea
// (below kWaveFitTwinAreaMinM tokens, kWaveFitMinArea).
// nullopt for any other tile.
std::optional<WaveSlots> tile_slots(const Problem& problem, const KernelConfig& c,
                                    const DeviceInfo& device) {
  if (c.family != Family::kSm90Ws || c.split_k != 1 || device.sm_count <= 0) return std::nullopt;
  const int64_t rounds = int64_t(tile_waves(problem, c, device).waves);
  const bool small_m = problem.m < kWaveFitTwinAreaMinM;
  const int twin_min_area = small_m ? kWaveFitMinArea : kWaveFitTwinMinArea;
  const bool charged =
      c.swap_ab && (c.block_m * c.block_n < twin_min_area || !stores_through_tma(c));
  const double rate = charged                  ? kWaveFitSwapCost
                      : c.swap_ab && small_m ? kWaveFitSmallTwinCost
                                             : 1.0;
  return WaveSlots{rounds, double(rounds) * c.block_m * c.block_n * rate};
}

std::optional<WaveSlots> wave_slots(const Problem& problem, const KernelConfig& c,
                                    const DeviceInfo& device) {
  if (c.schedule != Schedule::kCooperative || c.num_consumer_wgs < 2) return std::nullopt;
  return tile_slots(problem, c, device);
}

// The tiles the wave rule may choose: at least kWaveFitMinArea and kWaveFitMinSide. From a few
// hundred tokens on these all run at about the same rate per tile slot (within 4-6% at 600-3300
// tokens, TN and NN; swap-AB ~6% below), so the one that pads least into its last round is
// fastest. In NN only widths of whole 64-column chunks of the N-major B: 96, 112 and 160 ran
// 10-30% below the others there.
bool wave_candidate(const KernelConfig& c) {
  return c.block_m * c.block_n >= kWaveFitMinArea &&
         std::min(c.block_m, c.block_n) >= kWaveFitMinSide &&
         (c.layout != Layout::kNN || c.swap_ab || c.block_n % 64 == 0);
}

// A shape without a table entry, fp32 accumulation, M >= kWaveFitMinM: transfer's pick was the
// winner at tuned shapes of other token counts, whose tiles filled those shapes' rounds (the
// model's, the fastest by a fit that does not count rounds); here another width may fill them
// better. Among the compiled candidates (wave_candidate), the one with the fewest slots (ties to
// the larger tile, then the deeper ring) replaces the pick, at the default raster, where it
// takes kWaveFitMargin fewer than the pick's own and the pick runs at most kWaveFitMaxRounds
// rounds. A pick that wave_slots does not measure stays. On eighteen TN shapes of 1100-3300 tokens
// that no suite holds (six llm-fresh layers; every pick at most four rounds), dispatch went from
// 0.937 to 0.959 of cublaslt-best, the best of 28 tiles per shape being 0.965
// (bench/results/2026-11-29-h200-general-twins/prefill-probe,
// docs/notes/2026-11-29-prefill-waves.md); validated on 50 others, 0.965 -> 0.972
// (bench/results/2026-11-29-h200-prefill-waves).
// Probes of TN at 600-980 tokens and NN at 1100-3300 (bench/results/2026-11-29-h200-waves-wider)
// widened it to both layouts from 512.
void fit_waves(const Problem& problem, Prediction* pick, const NeighborScope& scope) {
  if (problem.m < kWaveFitMinM || problem.accum != Accum::kF32) return;
  const DeviceInfo& device = *scope.device;
  const std::optional<WaveSlots> own = wave_slots(problem, pick->config, device);
  if (!own || own->rounds > kWaveFitMaxRounds) return;
  std::optional<KernelConfig> best;
  double best_slots = own->slots * (1.0 - kWaveFitMargin);
  for (const KernelInstance& inst : registry::instances()) {
    const KernelConfig& c = inst.config;
    if (!catalog_sm90_for(c, problem)) continue;
    const std::optional<WaveSlots> w = wave_slots(problem, c, device);
    if (!w || !wave_candidate(c)) continue;
    // Ties go to the larger tile, then to the deeper ring: the three-stage 128x192 ran 8% below
    // the four-stage one per slot in both probes, and in the first A/B, picked by the catalog's
    // order, 4-9% below the pick it replaced at 900 tokens.
    const bool fewer =
        w->slots < best_slots ||
        (best && w->slots == best_slots &&
         std::pair(c.block_m * c.block_n, c.num_stages) >
             std::pair(best->block_m * best->block_n, best->num_stages));
    if (!fewer || !scope.allows(problem, c)) continue;
    best = c;
    best_slots = w->slots;
  }
  if (!best) return;
  pick->config = *best;
  pick->wave_fit = true;
}

// The wave rule over swap-AB tiles of one warpgroup and 64 rows of N, where N is narrow
// (kNarrowSwapMaxN) and M from kWaveFitMinM to kNarrowSwapMaxM tokens, fp32: there 4-5 such tiles
// per 64 rows fill one round of the SMs with a width that covers M closely (cuBLASLt runs 64x136 at
// 520x2048, 64x200 at 780x2048). The compiled one that stores C through TMA (or has the twin that
// does), at least kWaveFitMinSide tokens wide, that runs one round and takes kWaveFitMargin fewer
// slots (tile_slots) than the pick, whatever the pick's kind, replaces it (ties to the wider). Over
// the 90 probed calls (llm-tune's narrow layers at 520-1050 tokens) it changes 15 picks; with the
// six suite calls it changes, all 21 ran faster, interleaved against main over three rounds: NN
// +15-17%, TN +11-12%, 0.91 -> 1.04 of cublaslt-best (bench/results/2026-11-30-h200-narrow-swap,
// docs/notes/2026-11-30-narrow-swap.md). Two rounds of narrower tiles ran well below one round of
// wider ones there (at 780x2048x4096 TN 104 tokens in two rounds 0.80, 176 0.53, 232 in one 0.92,
// 200 through the JIT 1.03); without the margin, or with the 64-row tiles uncharged, the rule took
// 144x128 twins' places at 1050 tokens and lost up to 8%.
void fit_narrow_swap(const Problem& problem, Prediction* pick, const NeighborScope& scope) {
  if (problem.m < kWaveFitMinM || problem.m > kNarrowSwapMaxM || problem.n > kNarrowSwapMaxN ||
      problem.accum != Accum::kF32)
    return;
  const DeviceInfo& device = *scope.device;
  const std::optional<WaveSlots> own = tile_slots(problem, pick->config, device);
  if (!own || own->rounds > kWaveFitMaxRounds) return;
  std::optional<KernelConfig> best;
  double best_slots = own->slots * (1.0 - kWaveFitMargin);
  for (const KernelInstance& inst : registry::instances()) {
    const KernelConfig& c = inst.config;
    if (!catalog_sm90_for(c, problem) || !c.swap_ab || c.num_consumer_wgs != 1 ||
        c.block_n != 64 || c.block_m < kWaveFitMinSide || c.cluster_m != 1 ||
        c.cluster_n != 1 || c.split_k != 1 || !stores_through_tma(c))
      continue;
    const std::optional<WaveSlots> w = tile_slots(problem, c, device);
    if (!w || w->rounds != 1) continue;
    const bool fewer = w->slots < best_slots ||
                       (best && w->slots == best_slots && c.block_m > best->block_m);
    if (!fewer || !scope.allows(problem, c)) continue;
    best = c;
    best_slots = w->slots;
  }
  if (!best) return;
  pick->config = *best;
  pick->wave_fit = false;  // what runs is this rule's tile, not fit_waves'
  pick->narrow_swap_fit = true;
}

// Below the wave rule's token counts (kSmallMFitMinM <= M < kWaveFitMinM), fp32 accumulation: the
// cost model's cheapest compiled swap-AB tile with direct stores, no cluster and K unsplit, over
// every width from kSmallMFitMinTokens and every height of N, replaces the pick where it costs
// kSmallMFitMargin less.
// The dispatch model was fitted on direct-store times and ranks the swap tiles' widths at a
// fixed height; cuBLASLt's choice at llm-fresh's worst such calls (48x64 at 94x4096x7168, 104x64
// at 300x2560x4096, 80x64 at 150x3072x8192, all unsplit) ran level with it through the JIT with
// TMA stores where dispatch's ran 0.80-0.91, and the formula ranks those first
// (bench/results/2026-11-29-h200-swap-tma-store-8/probe-cublas-tiles). Unsplit: where the
// formula chose a split, the two such picks the H100 history measured (`hgemm db loo`) ran 2-4%
// below transfer's.
void fit_small_m(const Problem& problem, Prediction* pick, const NeighborScope& scope) {
  // A pick that multicasts its weights (share_weights) stays: the cost model does not see the
  // L2 traffic that saves.
  if (problem.m < kSmallMFitMinM || problem.m >= kWaveFitMinM || problem.accum != Accum::kF32 ||
      pick->config.family != Family::kSm90Ws || pick->shared_weights)
    return;
  std::optional<KernelConfig> best;
  double best_cost = cost(problem, pick->config, scope) * (1.0 - kSmallMFitMargin);
  for (const KernelInstance& inst : registry::instances()) {
    const KernelConfig& base = inst.config;
    if (!catalog_sm90_for(base, problem) || !base.swap_ab || base.epilogue != Epilogue::kDirect ||
        base.cluster_m != 1 || base.cluster_n != 1 || base.block_m < kSmallMFitMinTokens)
      continue;
    if (!scope.allows(problem, base)) continue;
    const double c_cost = cost(problem, base, scope);
    if (c_cost < best_cost) {
      best = base;
      best_cost = c_cost;
    }
  }
  if (!best) return;
  pick->config = *best;
  pick->small_m_fit = true;
}

// Weight streams with few rows of N and long K (kSplitRoundMinM <= M <= kSplitRoundMaxM): the
// narrowest swap-AB tile over 128 rows of N that holds every token, K split as many ways as its
// tiles fit the SMs in one round (at least kSplitRoundMinSplits, each split kSplitRoundMinKBlocks
// k-blocks or more), storing through TMA where that twin is compiled. Each weight byte is then
// read once, by one CTA, and the round fills the SMs; the picks it replaces either re-read the
// weights per token tile or leave a third of the SMs idle. cuBLASLt's pick at 150x5120x32768 (152
// tokens over 128 rows, split three ways) ran 1.00-1.10 of cublaslt-best at six calls of 150
// tokens over 4608-5120 rows and K of 13824-36864, both layouts, where dispatch ran 0.90-0.95, and
// split two or four ways 0.65-0.99 (bench/results/2026-11-30-h200-split-round/probe). The
// dispatch model ranks only power-of-two splits, and two ways of 152x128 it had picked ran 0.81
// there. The bounds are where the A/B lost (neighbors.hpp).
void fit_split_round(const Problem& problem, Prediction* pick, const NeighborScope& scope) {
  if (problem.m < kSplitRoundMinM || problem.m > kSplitRoundMaxM ||
      pick->config.family != Family::kSm90Ws)
    return;
  constexpr int kRows = 128;   // of N, the tile's height
  constexpr int kBlockK = 64;  // the candidates' k-block
  const int64_t tiles = (problem.n + kRows - 1) / kRows;
  const int64_t splits = scope.device->sm_count / tiles;
  const int64_t k_blocks = (problem.k + kBlockK - 1) / kBlockK;
  if (splits < kSplitRoundMinSplits || splits > kMaxSplitK ||
      k_blocks / splits < kSplitRoundMinKBlocks)
    return;
  std::optional<KernelConfig> best;
  for (const KernelInstance& inst : registry::instances()) {
    const KernelConfig& base = inst.config;
    if (!catalog_sm90_for(base, problem) || !base.swap_ab || base.block_n != kRows ||
        base.block_k != kBlockK || base.block_m < problem.m ||
        base.epilogue != Epilogue::kDirect || base.cluster_m != 1 || base.cluster_n != 1 ||
        (best && base.block_m >= best->block_m))
      continue;
    KernelConfig c = base;
    c.split_k = int(splits);
    if (scope.allows(problem, c)) best = c;
  }
  if (!best) return;
  pick->config = tma_store_twin(problem, *best, scope).value_or(*best);
  pick->wave_fit = pick->narrow_swap_fit = pick->small_m_fit = pick->shared_weights = false;
  pick->split_round_fit = true;
}

// A swap-AB pick without a cluster whose token tiles pair up exactly, where the weights are
// at least kShareWeightsMinElements: the same tile with its weight tile multicast to each pair
// of token tiles (problem cluster_m 2), where that is compiled, for either layout and
// accumulation. Each weight byte then crosses L2 once per pair instead of once per token tile,
// which is what a weight-streaming swap tile is short of against cuBLASLt's clusters (its L2 hit
// rate 16% where ours was 45%, docs/notes/2026-11-29-dispatch-model.md). Measured through the
// JIT at 96-300 tokens, both 80-token tiles
// (bench/results/2026-11-29-h200-wait-hint-and-clusters/clusters): at N x K of 38-484M weights
// +0.3 to +11%, at 10-31M -9 to +3.4% (why the short kernels lose was not measured). Over
// llm-fresh it takes the twin at two calls: 150x8192x8192 +3.5% and 150x10240x8192 +6.5% over
// the untwinned pick, and with fp16 accumulation +1-6% at four
// (bench/results/2026-11-29-h200-weight-sharing, ab/, tiles/, f16-rule/). Offering a pair of
// 80-token tiles to picks that have no such twin lost 3-9% on six of nine calls there (its
// pairs/). In NN, where each CTA loads half of every M-major weight chunk's k-rows, 80x128 in
// pairs ran 1.00 of cublaslt-best at 150x8192x{8192,29568} against 0.90-0.92 alone, and 0.95
// alike at 150x6144x5120 (31M weights) (bench/results/2026-11-30-h200-nn-weight-multicast/probe);
// the 55 NN calls it then changed: fp32 0.913 -> 0.949, fp16 1.118 -> 1.226 (its ab/).
void share_weights(const Problem& problem, Prediction* pick, const NeighborScope& scope) {
  const KernelConfig& base = pick->config;
  if (base.family != Family::kSm90Ws || !base.swap_ab ||
      base.split_k != 1 || base.cluster_m != 1 || base.cluster_n != 1 ||
      int64_t(problem.n) * problem.k < kShareWeightsMinElements)
    return;
  KernelConfig twin = base;
  twin.cluster_m = 2;
  if (cluster_pads_tiles(problem, twin) || !scope.allows(problem, twin)) return;
  pick->config = twin;
  pick->shared_weights = true;
}

// The tuned shapes of `problem`'s layout and accumulation with their distances, nearest first
// (ties by the winner's name, then by shape, so the answer does not depend on the order of
// `points`).
using Near = std::vector<std::pair<double, const TunedPoint*>>;

Near nearest_first(const Problem& problem, const std::vector<TunedPoint>& points,
                   bool leave_out_self) {
  Near near;
  near.reserve(points.size());
  for (const TunedPoint& point : points) {
    const Problem& at = point.problem;
    if (at.layout != problem.layout || at.accum != problem.accum) continue;
    if (leave_out_self && at.m == problem.m && at.n == problem.n && at.k == problem.k) continue;
    near.push_back({shape_distance(at, problem), &point});
  }
  std::sort(near.begin(), near.end(), [](const auto& x, const auto& y) {
    const Problem& a = x.second->problem;
    const Problem& b = y.second->problem;
    if (x.first != y.first) return x.first < y.first;
    const std::string an = x.second->config.name(), bn = y.second->config.name();
    if (an != bn) return an < bn;
    return std::tie(a.m, a.n, a.k) < std::tie(b.m, b.n, b.k);
  });
  return near;
}

// A config's times at the nearest shapes, carried here (the transfer rule's evidence). Configs
// that differ only in raster order and group size (launch arguments whose effect is mostly
// within the measurements' noise) pool their times: each shape contributes its fastest such
// variant once.
class Transferred {
 public:
  Transferred(const Problem& problem, const Near& near, const NeighborScope& scope) {
    // Weights fall with the squared log2 distance; the offset keeps a neighbour at distance 0
    // along all but one small step from outweighing the rest.
    constexpr double kDistanceOffset = 0.05;
    for (size_t i = 0; i < near.size() && i < size_t(kNeighbors); ++i) {
      const auto& [distance, point] = near[i];
      std::set<std::string> seen;  // timed is fastest first: a key's first variant is its best
      for (const TimedConfig& t : point->timed) {
        if (!(t.us > 0) || !scope.allows(problem, t.config)) continue;
        const std::string key = pooled_key(t.config);
        if (!seen.insert(key).second) continue;
        const double there = estimate_cost(point->problem, t.config, *scope.device);
        const double here = estimate_cost(problem, t.config, *scope.device);
        if (!(there > 0) || !(here > 0)) continue;
        Sum& s = sums_[key];
        if (s.times++ == 0) s.first = {t.config, point->problem, false, true};
        const double w = 1.0 / (distance + kDistanceOffset);
        s.weight += w;
        s.log_us += w * std::log(t.us * here / there);
      }
    }
  }

  // The fastest prediction among the keys timed at `min_times` shapes or more, with the variant
  // timed at the nearest of them; nullopt when there is none.
  std::optional<std::pair<Prediction, double>> fastest(int min_times) const {
    std::optional<std::pair<Prediction, double>> best;
    for (const auto& [key, s] : sums_)  // by key: ties never depend on the order of `points`
      if (s.times >= min_times && (!best || s.log_us / s.weight < best->second))
        best = {{s.first, s.log_us / s.weight}};
    return best;
  }

  // The predicted log time of `config` (its key's), nullopt when no neighbour timed it.
  std::optional<double> log_us(const KernelConfig& config) const {
    auto it = sums_.find(pooled_key(config));
    if (it == sums_.end()) return std::nullopt;
    return it->second.log_us / it->second.weight;
  }

 private:
  struct Sum {
    Prediction first;  // the variant timed at the nearest shape that timed the key
    double weight = 0, log_us = 0;
    int times = 0;
  };
  std::map<std::string, Sum> sums_;
};

// Whether a tuned shape of `near` has the problem's N and K: its neighbours' times then come
// from the same layers at other token counts, which transfer carries well; otherwise they
// differ in N and K too, and the model ranks better (docs/notes/2026-11-29-dispatch-model.md).
bool shares_n_k(const Problem& problem, const Near& near) {
  return std::any_of(near.begin(), near.end(), [&](const auto& entry) {
    return entry.second->problem.n == problem.n && entry.second->problem.k == problem.k;
  });
}

// The dispatch model's fastest config among the compiled sm90 configs of the problem's layout,
// accumulation and element type, within the swap-AB tiles it was fitted on (kModelMaxSwapTokens,
// kModelMaxSwapRows), each at the power-of-two splits split_candidates allows (the tuner's split
// axis, what the model was fitted on) and the default raster; ties keep the catalog's order.
// Ranked by model_score. nullopt where none is legal.
std::optional<Prediction> model_pick(const Problem& problem, const NeighborScope& scope) {
  std::optional<Prediction> best;
  double best_score = std::numeric_limits<double>::infinity();
  for (const KernelInstance& inst : registry::instances()) {
    const KernelConfig& base = inst.config;
    if (!catalog_sm90_for(base, problem)) continue;
    if (base.swap_ab && (base.block_m > kModelMaxSwapTokens || base.block_n > kModelMaxSwapRows))
      continue;
    const bool unsplit_only =
        base.swap_ab && std::any_of(std::begin(kModelUnsplitOnlySwapTiles),
                                    std::end(kModelUnsplitOnlySwapTiles), [&](auto tile) {
                                      return tile == std::pair{base.block_m, base.block_n};
                                    });
    for (int split : split_candidates(problem, base, *scope.device)) {
      if ((split & (split - 1)) != 0 || (unsplit_only && split > 1)) continue;
      KernelConfig c = base;
      c.split_k = split;
      if (!scope.allows(problem, c)) continue;
      const std::optional<double> score = model_score(problem, c, scope);
      if (score && *score < best_score) {
        best_score = *score;
        best = Prediction{c, problem, false, false, true};
      }
    }
  }
  return best;
}

// The rules that fit the model's or transfer's pick to this problem, in their order: rounds of the
// SMs (from kWaveFitMinM tokens; then 64-row swap-AB tiles at narrow N), the weights multicast to
// paired token tiles, the cost model's swap-AB tile (below kWaveFitMinM), one token tile split to
// fill a round (129-208 tokens, long K, few rows of N), then the TMA-store twin of what remains.
void fit_to_problem(const Problem& problem, Prediction* pick, const NeighborScope& scope) {
  fit_waves(problem, pick, scope);
  fit_narrow_swap(problem, pick, scope);
  share_weights(problem, pick, scope);
  fit_small_m(problem, pick, scope);
  fit_split_round(problem, pick, scope);
  store_through_tma(problem, pick, scope);
}

// predict_from_neighbors over `near` (nearest_first's answer), so that a rule built on another
// (transfer on siblings on cost) does not scan and sort the table again.
std::optional<Prediction> predict(const Problem& problem, const Near& near, NeighborRule rule,
                                  const NeighborScope& scope) {
  const DeviceInfo& device = *scope.device;
  if (rule == NeighborRule::kTransfer && scope.model && problem.m >= kModelMinM &&
      problem.m <= kModelMaxM && scope.model->has(problem.layout) && !shares_n_k(problem, near))
    if (std::optional<Prediction> pick = model_pick(problem, scope)) {
      fit_to_problem(problem, &*pick, scope);
      return pick;
    }
  if (rule == NeighborRule::kTransfer) {
    // One time is one shape's quirk (a wave that happens to fit); three agree on a trend (two
    // scored 1% worse under `hgemm db loo`, one 1.5%).
    constexpr int kMinTimes = 3;
    // The siblings pick stays unless the evidence says another config is faster by more than
    // the run-to-run spread of one measurement. Without this margin transfer lost 1% on the
    // held-out fifth, where neighbours are farther than in loo (docs/notes/2026-11-24-transfer.md).
    const double kMargin = std::log(1.0 - 0.05);
    std::optional<Prediction> sibling = predict(problem, near, NeighborRule::kSiblings, scope);
    const Transferred transferred(problem, near, scope);
    auto best = transferred.fastest(kMinTimes);
    std::optional<Prediction> pick = sibling;
    if (best) {
      // A sibling pick no neighbour timed (a width or block_n variation) cannot be compared.
      const std::optional<double> sibling_log_us =
          sibling ? transferred.log_us(sibling->config) : std::nullopt;
      if (!sibling || (sibling_log_us && best->second < *sibling_log_us + kMargin)) {
        vary(problem, &best->first, scope);
        pick = best->first;
      }
    }
    if (pick) {
      fit_m_with_swap(problem, &*pick, scope);
      fit_to_problem(problem, &*pick, scope);
    }
    return pick;
  }
  if (rule == NeighborRule::kSiblings) {
    // Only the cost rule's pick is varied: over all the neighbours' winners and their siblings
    // the model's stage term preferred shallow rings, which lost up to 44% on decode shapes.
    std::optional<Prediction> pick = predict(problem, near, NeighborRule::kCost, scope);
    if (pick) vary(problem, &*pick, scope);
    return pick;
  }
  const int k = rule == NeighborRule::kNearest ? 1 : kNeighbors;
  std::optional<Prediction> best;
  double best_score = -std::numeric_limits<double>::infinity();
  int considered = 0;
  for (const auto& [distance, point] : near) {
    if (considered == k) break;
    if (!scope.legal(problem, point->config)) continue;
    ++considered;
    double score = 0;
    if (rule == NeighborRule::kCost) {
      score = -cost(problem, point->config, scope);
    } else if (rule == NeighborRule::kScaled) {
      // The neighbour's measured speedup, carried over by the cost model's change in
      // efficiency (ideal work over estimated cost) from the neighbour's shape to this one.
      const Problem& at = point->problem;
      const double work_here = double(problem.m) * problem.n * problem.k;
      const double work_there = double(at.m) * at.n * at.k;
      const double eff_here = work_here / estimate_cost(problem, point->config, device);
      const double eff_there = work_there / estimate_cost(at, point->config, device);
      score = point->speedup * eff_here / eff_there;
    }
    if (!best || score > best_score) {
      best_score = score;
      best = Prediction{point->config, point->problem, false};
    }
  }
  return best;
}

}  // namespace

// The model knows the direct stores only. Not where the tile's CTAs fill less than
// kModelTmaTwinCreditMinFill of the SMs: there the unsplit tile leaves SMs idle over all of K,
// which the forest does not see (150x5120x32768 NN: 80x128 in 80 CTAs ran 19% below the split
// it replaced). Below kSmallMFitMinM tokens the credit would trade
// splits for unsplit 40-token tiles of 48-80 CTAs over K of 8192-32768 (40x3072x8192,
// 40x5120x32768 in llm-fresh), where the model's error, not the stores, decides. From
// kWaveFitMinM the wave rules weigh the twins by their rounds: the credit there swapped 128x160
// for the 176x128 twin at 500x4608x3584 NN, 7% slower in both A/Bs.
std::optional<double> model_score(const Problem& problem, const KernelConfig& config,
                                  const NeighborScope& scope) {
  if (!scope.model) return std::nullopt;
  std::optional<double> score = scope.model->predict(problem, config, *scope.device);
  if (score && problem.m >= kSmallMFitMinM && problem.m < kWaveFitMinM && takes_tma_twin(config) &&
      stores_through_tma(config) &&
      tile_waves(problem, config, *scope.device).ctas >=
          kModelTmaTwinCreditMinFill * scope.device->sm_count)
    *score -= kModelTmaTwinCredit;
  return score;
}

// An unsplit swap-AB pick with direct stores and no cluster: the same tile storing C through TMA
// (the deepest ring compiled for it), where that is compiled and can run here. Against the
// direct stores, interleaved over twelve llm shapes of 15-1200 tokens, the twins ran 1.036 (fp32)
// and 1.034 (fp16) as fast, 1.19-1.21 at 300x50264x768 where C is large against K, none below
// 0.976 (bench/results/2026-11-29-h200-swap-tma-store, docs/notes/2026-11-29-swap-tma-store.md).
// Split picks keep their stores (their reduction's stores were not timed with the twin), and so
// do clustered ones (the weight-sharing twins have none).
void store_through_tma(const Problem& problem, Prediction* pick, const NeighborScope& scope) {
  if (!takes_tma_twin(pick->config)) return;
  const std::optional<KernelConfig> twin = tma_store_twin(problem, pick->config, scope);
  if (!twin) return;
  pick->config = *twin;
  pick->tma_store = true;
}

std::optional<Prediction> predict_from_neighbors(const Problem& problem,
                                                 const std::vector<TunedPoint>& points,
                                                 NeighborRule rule, const NeighborScope& scope,
                                                 bool leave_out_self) {
  const Near near = nearest_first(problem, points, leave_out_self);
  std::optional<Prediction> pick;
  if (scope.fitted) {
    pick = predict(problem, near, rule, scope);
  } else {
    const FittedEfficiency fitted(problem.layout, problem.accum, points, *scope.device,
                                  leave_out_self ? &problem : nullptr);
    NeighborScope fitted_scope = scope;
    fitted_scope.fitted = &fitted;
    pick = predict(problem, near, rule, fitted_scope);
  }
  // Raster order and group size are launch arguments the tuner settled at the neighbour's shape;
  // one that sweeps a large operand once per narrow band there can read it several times here
  // (37x8192x8192 NN, tuned on the H100: 32x64 swap-AB along M by one row, 0.55 of the same tile
  // by eight).
  if (pick && raster_rereads(problem, pick->config, *scope.device)) {
    const KernelConfig plain = with_default_raster(pick->config);
    if (scope.legal(problem, plain)) {
      pick->config = plain;
      pick->default_raster = true;
    }
  }
  return pick;
}

}  // namespace hgemm::dispatch
