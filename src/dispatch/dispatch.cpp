#include "dispatch/dispatch.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/decode_variant.hpp"
#include "core/error.hpp"
#include "dispatch/cost.hpp"
#include "dispatch/decode_rule.hpp"
#include "dispatch/locate.hpp"
#include "dispatch/rules.hpp"
#include "launch/sm90_catalog.hpp"
#include "launch/sm90_jit.hpp"
#include "launch/sm90_launch.hpp"
#include "registry/registry.hpp"

namespace hgemm::dispatch {
namespace {

std::string shape(const Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + " " +
         std::string(to_string(p.layout));
}

// Compiled, or buildable by the JIT when it is on; the JIT is never invoked here, so a decision
// never waits for a compiler.
bool runnable(const KernelConfig& config) {
  return registry::compiled_ahead(config) ||
         (config.family == Family::kSm90Ws && jit::enabled());
}

// One warning per process: the first table problem is the one worth reading; `hgemm info` and
// hgemmGetDispatchInfo report every table's state.
void warn_once(const std::string& message) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true))
    std::fprintf(stderr, "hgemm: warning: %s; dispatch uses the cost heuristic there\n",
                 message.c_str());
}

// Which pointers are 16-byte aligned, whether the call has an epilogue, whether it reads C (beta:
// only the sm90 kernels' general flavour does), whether its batch strides are whole 16-byte
// steps and whether C is the library's padded copy (GemmArgs::c_rows_padded): the properties of
// the arguments can_implement looks at beside the sizes, leading dimensions and batch count the
// key holds.
int align_class(const GemmArgs& args) {
  auto aligned = [](const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; };
  const bool whole_strides = args.stride_a % 8 == 0 && args.stride_b % 8 == 0 &&
                             args.stride_c % 8 == 0 && args.stride_c != 0;
  return (aligned(args.a) ? 1 : 0) | (aligned(args.b) ? 2 : 0) | (aligned(args.c) ? 4 : 0) |
         (args.epilogue.plain() ? 0 : 8) | (whole_strides ? 16 : 0) |
         (args.epilogue.beta != 0.0f ? 32 : 0) | (args.a_col_major ? 64 : 0) |
         (args.c_rows_padded ? 128 : 0);
}

// Bumped by reload_tables(): tables and decisions are keyed by it, so a reload never frees what
// a concurrent call holds.
std::atomic<int> g_generation{0};

struct DispatchKey {
  int64_t m, n, k, lda, ldb, ldc, batch_count;
  int layout, accum, dtype, device, align_class, generation;
  bool operator==(const DispatchKey&) const = default;
};

struct DispatchKeyHash {
  size_t operator()(const DispatchKey& k) const {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t v : {uint64_t(k.m), uint64_t(k.n), uint64_t(k.k), uint64_t(k.lda),
                       uint64_t(k.ldb), uint64_t(k.ldc), uint64_t(k.batch_count),
                       uint64_t(k.layout),
                       uint64_t(k.accum), uint64_t(k.dtype), uint64_t(k.device),
                       uint64_t(k.align_class), uint64_t(k.generation)}) {
      h ^= v;
      h *= 1099511628211ull;
    }
    return size_t(h);
  }
};

// A table's (or the rule's) preferred config before it is checked against the call.
struct Advice {
  KernelConfig config;
  Source source;
  std::string reason;
  bool searched_split_k = true;
};

}  // namespace

std::string_view to_string(Source source) {
  switch (source) {
    case Source::kUserTable: return "user table";
    case Source::kShippedTable: return "shipped table";
    case Source::kNeighbors: return "neighbours";
    case Source::kHeuristic: return "heuristic";
    case Source::kSafetyNet: return "safety net";
    case Source::kDecode: return "decode rule";
  }
  return "?";
}

namespace {

// Whether every config `table` names runs on `device`'s architecture: the sm90 kernels need sm_90
// itself, the others sm_80 or later.
bool runs_on_architecture(const Table& table, const DeviceInfo& device) {
  auto runs = [&](const KernelConfig& c) {
    return c.family == Family::kSm90Ws ? device.is_sm90() : device.cc() >= 80;
  };
  for (const TableEntry& e : table.entries) {
    if (!runs(e.config)) return false;
    for (const TimedConfig& t : e.timed)
      if (!runs(t.config)) return false;
  }
  return true;
}

}  // namespace

LoadedTable::LoadedTable(Table table, std::string path, const DeviceInfo& device)
    : table_(std::move(table)), path_(std::move(path)) {
  const std::string tuned_on = table_->gpu + " (" + std::to_string(table_->sm_count) + " SMs)";
  const std::string here = device.name + " (" + std::to_string(device.sm_count) + " SMs)";
  // Another GPU of the same architecture and SM count (the H200 and H800 beside the H100) has
  // the same tiles per wave and the same instruction rates; its memory bandwidth may differ, so
  // the table is a prior there, said so, and beaten by a user table tuned on the device itself.
  const bool same_sms = table_->sm_count == device.sm_count;
  const bool same_gpu = same_sms && table_->gpu == device.name;
  if (!same_gpu && !(same_sms && runs_on_architecture(*table_, device))) {
    status_ = path_ + " was tuned on " + tuned_on + ", this device is " + here +
              (same_sms ? ", whose architecture cannot run its kernels" : "") + ": not used";
    return;
  }
  usable_ = true;
  status_ = same_gpu ? "loaded"
                     : "loaded: tuned on " + tuned_on + ", used on " + here +
                           ", a GPU of the same architecture and SM count ('hgemm tune' tunes "
                           "this device's own shapes into the user table)";
  const std::vector<TableEntry>& entries = table_->entries;
  points_.reserve(entries.size());
  for (const TableEntry& e : entries)
    points_.push_back({Problem{e.m, e.n, e.k, e.layout, table_->accum}, e.config, 0.0, e.timed});
  by_shape_.resize(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) by_shape_[i] = i;
  auto key = [&](size_t i) {
    return std::tie(entries[i].m, entries[i].n, entries[i].k, entries[i].layout);
  };
  std::sort(by_shape_.begin(), by_shape_.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  std::sort(table_->blocked.begin(), table_->blocked.end());
  device_ = device;
}

const LoadedTable::LazyModel* LoadedTable::loaded_model() const {
  if (!usable_ || !model_) return nullptr;  // none, or moved from
  std::call_once(model_->once, [&] {
    const std::string path = model_path_for_table(path_);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return;
    try {
      DispatchModel model = load_model(path);
      if (model.accum != table_->accum || model.gpu != table_->gpu)
        model_->status = path + " was fitted for " + model.gpu + " (" +
                         std::string(to_string(model.accum)) + "), not this table's " +
                         table_->gpu + " (" + std::string(to_string(table_->accum)) +
                         "): not used";
      else
        model_->model = std::make_unique<const DispatchModel>(std::move(model));
    } catch (const std::exception& e) {
      model_->status = std::string(e.what()) + ": the dispatch model is not used";
    }
    if (!model_->status.empty()) warn_once(model_->status);
  });
  return model_.get();
}

const DispatchModel* LoadedTable::model() const {
  const LazyModel* lazy = loaded_model();
  return lazy ? lazy->model.get() : nullptr;
}

const std::string& LoadedTable::model_status() const {
  static const std::string none;
  const LazyModel* lazy = loaded_model();
  return lazy ? lazy->status : none;
}

const FittedEfficiency* LoadedTable::fitted(Layout layout) const {
  if (!usable_ || !fitted_tn_ || !fitted_nn_) return nullptr;  // none, or moved from
  LazyFit& lazy = layout == Layout::kTN ? *fitted_tn_ : *fitted_nn_;
  std::call_once(lazy.once, [&] {
    lazy.fit = std::make_unique<FittedEfficiency>(layout, table_->accum, points_, device_);
  });
  return lazy.fit.get();
}

LoadedTable LoadedTable::none(std::string path, std::string status) {
  LoadedTable t;
  t.path_ = std::move(path);
  t.status_ = std::move(status);
  return t;
}

const TableEntry* LoadedTable::find(const Problem& problem) const {
  if (!usable_ || problem.accum != table_->accum) return nullptr;
  const std::vector<TableEntry>& entries = table_->entries;
  const auto wanted = std::tie(problem.m, problem.n, problem.k, problem.layout);
  auto it = std::lower_bound(by_shape_.begin(), by_shape_.end(), wanted, [&](size_t i, const auto& w) {
    return std::tie(entries[i].m, entries[i].n, entries[i].k, entries[i].layout) < w;
  });
  if (it == by_shape_.end()) return nullptr;
  const TableEntry& e = entries[*it];
  return std::tie(e.m, e.n, e.k, e.layout) == wanted ? &e : nullptr;
}

bool LoadedTable::blocked(const KernelConfig& config) const {
  return table_ && std::binary_search(table_->blocked.begin(), table_->blocked.end(), config.name());
}

namespace {

// Loads one table for `device` and `accum`; problems become the table's status.
LoadedTable load_for(const std::string& path, const DeviceInfo& device, Accum accum,
                     bool missing_is_normal) {
  std::error_code ec;
  if (missing_is_normal && !std::filesystem::exists(path, ec)) return LoadedTable::none(path, "");
  try {
    Table table = load_table(path);
    if (table.accum != accum)
      return LoadedTable::none(path, path + " holds a " + std::string(to_string(table.accum)) +
                                         " table, not " + std::string(to_string(accum)));
    return LoadedTable(std::move(table), path, device);
  } catch (const std::exception& e) {
    return LoadedTable::none(path, e.what());
  }
}

}  // namespace

Tables tables_for(const DeviceInfo& device, Accum accum) {
  struct Slot {
    LoadedTable user, shipped;
  };
  static std::mutex mutex;
  static std::map<std::tuple<int, int, std::string, int, int>, std::unique_ptr<Slot>> slots;
  std::lock_guard lock(mutex);
  auto& slot = slots[{g_generation.load(std::memory_order_acquire), device.ordinal, device.name,
                      device.sm_count, int(accum)}];
  if (!slot) {
    slot = std::make_unique<Slot>();
    if (const std::string user = user_table_path(device.name, accum); !user.empty()) {
      slot->user = load_for(user, device, accum, /*missing_is_normal=*/true);
      if (!slot->user.usable() && !slot->user.status().empty())
        warn_once("user table not used: " + slot->user.status());
    }
    const TableLocation shipped = locate_shipped_table(device.name, accum);
    if (!shipped.path.empty()) {
      slot->shipped = load_for(shipped.path, device, accum, /*missing_is_normal=*/false);
    } else {
      slot->shipped = LoadedTable::none("", shipped.problem);
      for (const std::string& path : other_gpus_tables(device.name, accum))
        if (LoadedTable other = load_for(path, device, accum, false); other.usable()) {
          slot->shipped = std::move(other);
          break;
        }
    }
    if (!slot->shipped.usable()) warn_once(slot->shipped.status());
  }
  return {&slot->user, &slot->shipped};
}

namespace {

// Strided batches: the tables hold one matrix's winners, chosen for one matrix's tile count,
// which a batch multiplies; so the cost model over the kernels with a general flavour (the others
// refuse such calls), its waves counted over every batch's tiles (batched calls do not split K:
// launch/sm90_launch.cu).
Decision decide_batched(const Problem& problem, const GemmArgs& args, const DeviceInfo& device) {
  Decision best;
  double best_cost = std::numeric_limits<double>::infinity();
  std::string refusal;
  for (const auto& inst : registry::instances()) {
    const Status s = registry::can_implement(problem, inst.config, args, device);
    if (!s.ok()) {
      if (refusal.empty() && inst.config.family == Family::kSm90Ws &&
          layout_accum_mismatch(problem, inst.config).empty())
        refusal = s.message;
      continue;
    }
    const double cost = estimate_cost(problem, inst.config, device, args.batch_count);
    if (cost < best_cost) {
      best_cost = cost;
      best.instance = &inst;
      best.config = inst.config;
    }
  }
  const std::string what = std::to_string(args.batch_count) + " batches of " + shape(problem) +
                           (args.a_col_major ? " with A column-major" : "");
  if (!best.instance)
    HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED,
                "no compiled kernel runs " + what +
                    (refusal.empty() ? std::string() : " (" + refusal + ")"));
  best.source = Source::kHeuristic;
  best.reason = what + ": lowest estimated cost over the kernels with a general flavour, " +
                "every batch's tiles counted (the tables hold single-matrix winners)";
  return best;
}

// `inst`'s kernel with `pick`'s launch arguments (raster and group size), where that runs the
// call: a sibling of the pick, K unsplit (the instance's own split).
std::optional<KernelConfig> sibling_that_runs(const KernelInstance& inst, const KernelConfig& pick,
                                              const Problem& problem, const GemmArgs& args,
                                              const DeviceInfo& device) {
  KernelConfig config = inst.config;
  config.raster = pick.raster;
  config.group_size = pick.group_size;
  if (!registry::can_implement(problem, config, args, device).ok()) return std::nullopt;
  return config;
}

}  // namespace

// The tile an advice names, for a call only a flavour runs (column-major A, beta * C) where the
// advised config has none or splits K (a column-major A never does): the same tile at another
// depth, epilogue or cluster that runs it, nearest in stages, then the same cluster; the advice's
// raster carries over, K unsplit. Column-major A on an H200: 2048^3 0.96 -> 0.99 and
// 1024x4096x4096 0.97 -> 1.00 of the row-major call's speed, where the cost model over every
// tile took 128x256 (docs/notes/2026-11-29-epilogue-cost-and-column-major-a.md).
std::optional<Decision> runnable_twin(const Problem& problem, const KernelConfig& advised,
                                      const GemmArgs& args, const DeviceInfo& device) {
  if (advised.family != Family::kSm90Ws) return std::nullopt;
  auto same_tile = [&](const KernelConfig& c) {
    return c.family == advised.family && c.block_m == advised.block_m &&
           c.block_n == advised.block_n && c.block_k == advised.block_k &&
           c.num_consumer_wgs == advised.num_consumer_wgs && c.schedule == advised.schedule &&
           c.swap_ab == advised.swap_ab && c.layout == advised.layout &&
           c.accum == advised.accum && c.dtype == advised.dtype && c.source == advised.source;
  };
  auto distance = [&](const KernelConfig& c) {
    const bool same_cluster = c.cluster_m == advised.cluster_m && c.cluster_n == advised.cluster_n;
    return std::pair(std::abs(c.num_stages - advised.num_stages), !same_cluster);
  };
  std::optional<Decision> best;
  for (const auto& inst : registry::instances()) {
    if (!same_tile(inst.config)) continue;
    const std::optional<KernelConfig> config =
        sibling_that_runs(inst, advised, problem, args, device);
    if (!config || (best && distance(*config) >= distance(best->config))) continue;
    best = Decision{&inst, *config, Source::kHeuristic, ""};
  }
  if (best)
    best->reason = "runs it as " + best->config.name() + " (" +
                   std::to_string(best->config.num_stages) + " stages, cluster " +
                   std::to_string(best->config.cluster_m) + "x" +
                   std::to_string(best->config.cluster_n) + ")";
  return best;
}

namespace {

// The decode rule's swap-AB tile: NN calls of at most 16 tokens (the decode kernels transpose B
// in registers there and ran 1.6-3x slower, docs/notes/2026-11-25-nn-swap-ab.md) and TN calls of
// 12-16 (where a decode CTA re-reads A's M rows through L2 for every block_n columns it streams,
// at 16 rows over 32 columns half of B's bytes again). The tile: 64 rows of N and the fewest
// tokens that hold M in one tile (8 up to 8 tokens, else 16), its two consumer warpgroups taking
// the k-blocks in turn, or 128 rows of N (16 tokens) where 64-row CTAs would leave a nearly empty
// last wave. Measured on an H200 over llm-tune's 42 (N, K) pairs against cublaslt-best, f32
// graph, best split of each (bench/results/2026-11-29-h200-swap-64-rows): at M = 12 TN the 16x64
// tile 1.012, 16x128 0.959, 32x64 0.971; NN 0.998, 0.938, 0.952; at M = 1 and 8 in NN the 8x64
// tile 1.025, where 16 tokens over 64 rows ran 0.95-0.96 and over 128 rows 0.90-0.92; but at
// N = 10240 (160 CTAs of 64 rows, 80 of 128) 128 rows ran 14-17% faster. Below 12 tokens TN runs
// the tile where it runs unsplit on kStreamSms CTAs or more, and the decode kernels where it splits
// K: measured on an H200 at 1, 2, 3, 5, 7, 8 and 10 tokens over llm-tune's 49 (N, K) pairs, two
// rounds alternated with main (bench/results/2026-12-01-h200-tn-decode-tile), the unsplit 8x64 and
// 16x64 tiles ran 8% faster than the decode rule's kernels (0.93-1.37 times their speed, every
// token count alike), the 16x128 4%, but the split tiles only 2% (32 calls, 0.89-1.14; on
// llm-fresh's five 0.96): there the split's second pass costs what the decode kernels, which split
// K inside a CTA, do not pay. (The probe above, the tile at its best split against cublaslt-best,
// had put the decode kernels ahead at M = 1 and 8: 1.07-1.11 against the tile's 1.03.) In TN at 12
// to kTnDecodeUnderGridMaxM tokens the decode kernels run where the tile's grid, split included,
// has fewer than kStreamSms CTAs: by the model's own terms such a grid cannot pull B at the DRAM
// rate, while the decode kernels spread B over N / 8-64 CTAs and split K inside each. Probed on an
// H200 over llm-tune's 49 (N, K) pairs at 12, 13 and 15 tokens, every TN decode kernel against the
// tile (bench/results/2026-11-30-h200-decode-12-16): of the 30 calls under 64 CTAs (N 576-3584 in
// f32) the decode rule's kernel ran 10% faster (0.65-1.05 of the tile's time, the slower ones at N
// 2816-3584); at 64 CTAs and more the tile was level or faster but at 3584x4096 (112 CTAs, split
// two ways; decode 0.95). Checked on 7 shapes of other pairs at 12-16 tokens, three rounds: at
// 12-15 tokens 1.5-5.5% faster in graph mode but 15x3072x2048 (2-5% slower), at 16 tokens level in
// f16 and 12-13% slower in f32 (the decode kernel took 8.4 us at 16x2880x2880 against 7.3 at 14
// tokens), so 16 keeps the tile; one call's latency 11% lower (no tensor maps to encode).
//
// Which tile and split: a stream model. The call reads B once; its CTAs run in waves, one after
// another, and a wave of c CTAs of R rows over Ks of K takes R Ks max(c / kStreamSms, 1): B's bytes
// at the DRAM rate, but no faster than one SM pulls its CTA's rows (at most 1 / kStreamSms of that
// rate). A split costs kSplitCost more (the partials' pass) and must leave each part
// kMinKPerStreamSplit of K. The 128-row tile, one warpgroup, must come out kWideTileMargin faster:
// where the model had it 2.6% ahead (N = 27648-28672, several waves) it ran 2-7% behind. Of equal
// times the fewer splits, then 64 rows. On the probe the rule came within 0.3-1% of the best
// tile and split per shape.
constexpr int kTnUnsplitOnlyBelowM = 12;
constexpr int kTnDecodeUnderGridMaxM = 15;
constexpr double kStreamSms = 64;
constexpr double kSplitCost = 0.03;
constexpr double kWideTileMargin = 0.05;
constexpr int64_t kMinKPerStreamSplit = 2048;

std::optional<Decision> small_m_swap_tile(const Problem& problem, const GemmArgs& args,
                                          const DeviceInfo& device) {
  // A column-major A of at most 16 rows reaches dispatch as it is only where hgemmGemm asks
  // whether a decode kernel reads it as stored (column_major_a_as_stored, dispatch/gemm_route.hpp);
  // the tile's flavour for such an A runs where the row-major call's pick is that tile.
  if (args.a_col_major) return std::nullopt;
  // The compiled tile of `rows` rows of N that runs the call with the fewest tokens that hold M;
  // of equal widths the one with more warpgroups.
  auto covering = [&](int rows) {
    auto narrower = [](const KernelConfig& a, const KernelConfig& b) {
      return std::pair(a.block_m, -a.num_consumer_wgs) < std::pair(b.block_m, -b.num_consumer_wgs);
    };
    const KernelInstance* tile = nullptr;
    for (const auto& inst : registry::instances())
      if (inst.config.swap_ab && inst.config.block_n == rows && inst.config.block_m >= problem.m &&
          (!tile || narrower(inst.config, tile->config)) &&
          registry::can_implement(problem, inst.config, args, device).ok())
        tile = &inst;
    return tile;
  };
  struct Candidate {
    const KernelInstance* instance;
    KernelConfig config;
    TileWaves grid;
    double time;
  };
  auto rank = [](const Candidate& c) { return std::pair(c.config.split_k, c.config.block_n); };
  std::optional<Candidate> best;
  for (const int rows : {64, 128}) {
    const KernelInstance* tile = covering(rows);
    // The measured tiles were 8 and 16 tokens wide, 32 before them; wider would pad more than
    // it streams.
    if (!tile || tile->config.block_m > 2 * kDecodeMaxM) continue;
    for (const int split : split_candidates(problem, tile->config, device)) {
      if (split != 1 && (split > 4 || problem.k / split < kMinKPerStreamSplit)) continue;
      KernelConfig config = tile->config;
      config.split_k = split;
      if (split > 1 && !registry::can_implement(problem, config, args, device).ok()) continue;
      const TileWaves w = tile_waves(problem, config, device);
      const double last = w.ctas - (w.waves - 1) * w.slots;
      const double wave_units = (w.waves - 1) * std::max(w.slots / kStreamSms, 1.0) +
                                std::max(last / kStreamSms, 1.0);
      const double time = wave_units * config.block_n * w.per_split * config.block_k *
                          (split > 1 ? 1 + kSplitCost : 1.0) *
                          (rows > 64 ? 1 + kWideTileMargin : 1.0);
      const Candidate c{tile, config, w, time};
      if (!best || time < best->time * (1 - 1e-9) ||
          (time <= best->time * (1 + 1e-9) && rank(c) < rank(*best)))
        best = c;
    }
  }
  if (!best) return std::nullopt;
  const TileWaves& w = best->grid;
  Decision d{best->instance, best->config, Source::kDecode, {}};
  d.reason = "M=" + std::to_string(problem.m) +
             (problem.layout == Layout::kNN ? " in NN" : " in TN") + ": the swap-AB tile " +
             std::to_string(best->config.block_m) + "x" + std::to_string(best->config.block_n) +
             ", split-K " + std::to_string(best->config.split_k) + " (" +
             std::to_string(int64_t(w.ctas)) + " CTAs in " + std::to_string(int64_t(w.waves)) +
             (w.waves == 1 ? " wave" : " waves") +
             "), the least time by the stream model (waves in turn, each B's bytes at the DRAM "
             "rate or an SM's CTA at 1/" +
             std::to_string(int(kStreamSms)) + " of it)";
  return d;
}

// decide() for tables whose configs have the problem's element type.
Decision decide_in_tables(const Problem& problem, const GemmArgs& args, const DeviceInfo& device,
                          const Tables& tables) {
  if (args.batch_count > 1) return decide_batched(problem, args, device);
  auto usable = [&](const LoadedTable* t) { return t && t->usable(); };
  // The advice: an exact entry (user first), else the neighbour rule over the shipped table.
  std::optional<Advice> advice;
  std::string no_advice = "no table is used";
  if (usable(tables.user))
    if (const TableEntry* e = tables.user->find(problem)) {
      const KernelConfig& c = e->config;
      if (runnable(c) && registry::can_implement(problem, c, args, device).ok())
        advice = Advice{c, Source::kUserTable,
                        "tuned winner of " + shape(problem) + " in " + tables.user->path(),
                        e->searched_split_k};
    }
  if (!advice && usable(tables.shipped))
    if (const TableEntry* e = tables.shipped->find(problem))
      advice = Advice{e->config, Source::kShippedTable,
                      "tuned winner of " + shape(problem) + " on " + tables.shipped->table()->gpu,
                      e->searched_split_k};
  // What the decode rule's answers add to their reason: why no table answered.
  auto untabled = [&] {
    return usable(tables.user) || usable(tables.shipped) ? "no table entry for " + shape(problem)
                                                         : no_advice;
  };
  // An untabled M <= 16 call streams B once: the decode family's rule, not a neighbour's tile: a
  // narrow swap-AB tile (small_m_swap_tile); the decode kernels in TN where the tile's grid is
  // too small to stream B at the DRAM rate, below kTnUnsplitOnlyBelowM tokens in TN where the tile
  // splits K, and where no such tile runs the call.
  std::optional<Decision> swap_tile;
  std::string swap_declined;
  if (!advice && problem.m <= kDecodeMaxM)
    if (swap_tile = small_m_swap_tile(problem, args, device); swap_tile) {
      swap_tile->reason += "; " + untabled();
      const double ctas = tile_waves(problem, swap_tile->config, device).ctas;
      const bool few_ctas = problem.m <= kTnDecodeUnderGridMaxM && ctas < kStreamSms;
      const bool split_below = problem.m < kTnUnsplitOnlyBelowM && swap_tile->config.split_k > 1;
      if (problem.layout == Layout::kNN || (!few_ctas && !split_below)) return *swap_tile;
      swap_declined = "; the swap-AB tile " + swap_tile->config.name() +
                      (few_ctas ? " would run " + std::to_string(int64_t(ctas)) +
                                      " CTAs, under the " + std::to_string(int(kStreamSms)) +
                                      " that stream B at the DRAM rate"
                                : " splits K in two kernels below " +
                                      std::to_string(kTnUnsplitOnlyBelowM) +
                                      " tokens, where the decode kernels split it inside a CTA");
    }
  std::string decode_refusal;
  if (!advice && problem.m <= kDecodeMaxM) {
    std::vector<const KernelInstance*> runnable;
    std::vector<KernelConfig> configs;
    for (const auto& inst : registry::instances()) {
      if (inst.config.family != Family::kDecode) continue;
      const Status s = registry::can_implement(problem, inst.config, args, device);
      if (s.ok()) {
        runnable.push_back(&inst);
        configs.push_back(inst.config);
      } else if (decode_refusal.empty() && inst.config.layout == problem.layout &&
                 inst.config.accum == problem.accum) {
        decode_refusal = s.message;
      }
    }
    if (auto choice = choose_decode(problem, configs, device))
      return Decision{runnable[choice->index], configs[choice->index], Source::kDecode,
                      choice->reason + swap_declined + "; " + untabled()};
    if (swap_tile) return *swap_tile;
  }
  if (!advice) {
    const LoadedTable* source = usable(tables.shipped) ? tables.shipped
                                : usable(tables.user)  ? tables.user
                                                       : nullptr;
    if (source) {
      NeighborScope scope{&device,
                          [&](const Problem& p, const KernelConfig& c) {
                            return legal(p, c, device, runnable(c));
                          },
                          [&](const KernelConfig& c) { return source->blocked(c); },
                          source->fitted(problem.layout), source->model()};
      if (auto pick = predict_from_neighbors(problem, source->points(), kDefaultNeighborRule,
                                             scope)) {
        const std::string nearest = std::to_string(kNeighbors) + " nearest tuned shapes";
        const std::string why =
            pick->modeled
                ? "no tuned shape has N=" + std::to_string(problem.n) + " and K=" +
                      std::to_string(problem.k) + ": the fastest compiled config by the " +
                      "dispatch model " + model_path_for_table(source->path())
            : pick->transferred
                ? "the fastest by its times at the " + nearest + ", carried here by the cost " +
                      "model (timed at " + shape(pick->neighbor) + ")" +
                      (pick->sibling ? ", or a sibling the model prefers" : "")
                : "the cost model's pick among the winners of the " + nearest + ", " +
                      (pick->sibling ? "a sibling of the winner of " : "the winner of ") +
                      shape(pick->neighbor);
        const std::string shared =
            pick->shared_weights
                ? "; its twin that multicasts each weight tile to a pair of token tiles"
            : pick->tma_store ? "; its twin that stores C through TMA"
                              : "";
        const std::string raster =
            pick->wave_fit
                ? "; replaced by the wave rule's tile, whose rounds over the SMs cover less "
                  "area (default raster)"
            : pick->narrow_swap_fit
                ? "; replaced by a swap-AB tile over 64 rows of N whose rounds over the SMs cover "
                  "less area (default raster)"
            : pick->small_m_fit
                ? "; replaced by the cost model's swap-AB tile over any height of N, cheaper by "
                  "more than its margin (default raster)"
            : pick->split_round_fit
                ? "; replaced by one swap-AB tile of every token over 128 rows of N, K split to "
                  "fill one round of the SMs (default raster)"
            : pick->default_raster
                ? "; the default raster (m8): the neighbour's would re-read an operand here"
                : "";
        advice = Advice{pick->config, Source::kNeighbors,
                        std::string(to_string(kDefaultNeighborRule)) + " rule: " + why + raster +
                            shared,
                        source->table()->measured_split_k};
      } else {
        no_advice = "no tuned shape's winner can run " + shape(problem);
      }
    }
  }
  Decision advised;
  std::string advice_refused;
  if (advice) {
    const KernelInstance* inst = registry::find(advice->config);
    const Status s = inst ? registry::can_implement(problem, advice->config, args, device)
                          : Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                                            registry::not_found(advice->config));
    if (s.ok())
      advised = {inst, advice->config, advice->source,
                 advice->reason + (decode_refusal.empty()
                                       ? std::string()
                                       : "; the decode family cannot run it (" + decode_refusal +
                                             ")")};
    else
      advice_refused = std::string(to_string(advice->source)) + " advised " +
                       advice->config.name() + ", which cannot run it (" + s.message + ")";
    if (!advised.instance && sm90_needs_flavour(args))
      if (std::optional<Decision> twin = runnable_twin(problem, advice->config, args, device))
        advised = {twin->instance, twin->config, advice->source,
                   advice_refused + "; its tile " + twin->reason};
  }
  const bool blind_to_split = advice && !advice->searched_split_k && advice->config.split_k == 1;
  if (advised.instance && !blind_to_split) return advised;

  // The heuristic: needed without usable advice, or to see whether it would split K where the
  // advice never could have.
  Decision heuristic;
  double best_cost = std::numeric_limits<double>::infinity();
  int sm90_runnable = 0;
  std::string sm90_refusal;
  for (const auto& inst : registry::instances()) {
    const Status s = registry::can_implement(problem, inst.config, args, device);
    if (inst.config.family == Family::kSm90Ws) {
      if (s.ok()) ++sm90_runnable;
      else if (sm90_refusal.empty() && layout_accum_mismatch(problem, inst.config).empty())
        sm90_refusal = s.message;
    }
    if (!s.ok()) continue;
    // A column-major A never splits (launch/sm90_launch.cu).
    const SplitChoice choice =
        args.a_col_major ? SplitChoice{inst.config, estimate_cost(problem, inst.config, device)}
                         : cheapest_split(problem, inst.config, device);
    if (choice.cost < best_cost) {
      best_cost = choice.cost;
      heuristic.instance = &inst;
      heuristic.config = choice.config;
    }
  }
  if (advised.instance) {
    if (!heuristic.instance || heuristic.config.split_k == 1) return advised;
    heuristic.source = Source::kHeuristic;
    heuristic.reason = "split-K " + std::to_string(heuristic.config.split_k) + " by the cost model: " +
                       std::string(to_string(advised.source)) + " advised " +
                       advised.config.name() + ", but its search never tried split-K";
    return heuristic;
  }
  if (!heuristic.instance)
    HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED,
                "no compiled kernel implements " + problem.name() + " on " + device.name +
                    (sm90_refusal.empty() ? std::string() : " (" + sm90_refusal + ")"));
  std::string why = advice_refused.empty() ? no_advice : advice_refused;
  if (!decode_refusal.empty()) why += "; the decode family cannot run it (" + decode_refusal + ")";
  if (heuristic.config.family == Family::kSm80Mma && sm90_runnable == 0) {
    heuristic.source = Source::kSafetyNet;
    heuristic.reason = "no sm90 instance can run it (" +
                       (sm90_refusal.empty() ? std::string("none compiled") : sm90_refusal) +
                       "); " + why;
  } else {
    heuristic.source = Source::kHeuristic;
    heuristic.reason = "lowest estimated cost over the compiled instances; " + why;
  }
  return heuristic;
}

Decision decide_for_dtype(const Problem& problem, const GemmArgs& args, const DeviceInfo& device,
                          const Tables& tables) {
  if (problem.dtype == DType::kF16) return decide_in_tables(problem, args, device, tables);
  // The tables hold fp16 winners. A bf16 kernel is its fp16 twin with another wgmma (mma.sync)
  // type and the same tiles, stages and traffic, and the tensor cores run both types at one
  // rate, so a bf16 call runs the twin of the fp16 call's pick; where that twin is not compiled
  // or cannot run the call, the rules run again over the bf16 kernels alone (no table).
  Problem twin = problem;
  twin.dtype = DType::kF16;
  const Decision f16 = decide_in_tables(twin, args, device, tables);
  KernelConfig config = f16.config;
  config.dtype = problem.dtype;
  const KernelInstance* inst = registry::find(config);
  Status s = inst ? registry::can_implement(problem, config, args, device)
                  : Status::failure(HGEMM_ERROR_NOT_SUPPORTED, registry::not_found(config));
  if (s.ok())
    return Decision{inst, config, f16.source,
                    f16.reason + "; run in " + std::string(to_string(problem.dtype)) +
                        " (the tables hold fp16 winners)"};
  Decision own = decide_in_tables(problem, args, device, Tables{});
  own.reason += "; the fp16 pick " + f16.config.name() + " has no " +
                std::string(to_string(problem.dtype)) + " twin that runs it (" + s.message + ")";
  return own;
}

// A fused epilogue on the cooperative kernels runs at the end of every tile with the tensor cores
// idle: both consumer warpgroups finish the tile together. The ping-pong kernel gives each
// warpgroup whole tiles in turn, so one's epilogue runs during the other's mainloop. On the H200
// with bias + GELU at K 512-2048 and M x N >= 4096^2 (14 shape-runs), the ping-pong 128x128 took
// 0.915 and 0.947 of the cooperative 128x224/128x256 tiles' time (13 of 14 faster) and was level
// on the plain product (bench/results/2026-11-28-h200-epilogue-ping-pong/). The tables hold the
// plain product's winners, so a call with an epilogue whose pick is such a tile runs the
// ping-pong sibling, with the pick's raster, inside that measured range.
inline constexpr int64_t kEpiloguePingPongMaxK = 2048;
inline constexpr int64_t kEpiloguePingPongMinOutput = int64_t(4096) * 4096;

Decision on_epilogue_tile(Decision decision, const Problem& problem, const GemmArgs& args,
                          const DeviceInfo& device) {
  const KernelConfig& pick = decision.config;
  if (args.epilogue.plain() || problem.accum != Accum::kF32 ||
      problem.k > kEpiloguePingPongMaxK || problem.m * problem.n < kEpiloguePingPongMinOutput ||
      pick.family != Family::kSm90Ws || pick.schedule != Schedule::kCooperative ||
      pick.block_m != 128 || pick.block_n < 192 || pick.swap_ab || pick.split_k != 1 ||
      !pick.source.empty())
    return decision;
  for (const KernelInstance& inst : registry::instances()) {
    const KernelConfig& c = inst.config;
    if (c.family != Family::kSm90Ws || c.schedule != Schedule::kPingPong || c.block_m != 128 ||
        c.block_n != 128 || c.swap_ab || c.layout != pick.layout || c.accum != pick.accum ||
        c.dtype != pick.dtype || !c.source.empty())
      continue;
    const std::optional<KernelConfig> sibling =
        sibling_that_runs(inst, pick, problem, args, device);
    if (!sibling) continue;
    decision.instance = &inst;
    decision.reason += "; with its epilogue the ping-pong sibling " + sibling->name() +
                       " (one warpgroup's epilogue runs during the other's mainloop)";
    decision.config = *sibling;
    return decision;
  }
  return decision;
}

}  // namespace

bool decode_rule_tile_in_tn(const Problem& problem, const Decision& row) {
  return row.source == Source::kDecode && row.config.family == Family::kSm90Ws &&
         problem.layout == Layout::kTN && problem.m < kTnUnsplitOnlyBelowM;
}

// A split-K swap-AB pick of few tokens over a wide N gives way to the same grid unsplit: tiles of
// 64 rows of N, as many token tiles as one round holds beside them, each the narrowest compiled
// width that covers its share of M. In the split probe (bench/results/2026-11-30-h200-decode-12-16
// /split-probe) at 20-94 tokens over N 4096-8192 such tiles ran 0.78-0.99 of the split picks'
// time (72x4096x7168 TN: two 40-token tiles unsplit against 80x128 split four ways, 0.81); at
// N = 576-3584 or 150 tokens and more the splits won.
// Over 187 calls at 20-96 tokens (bench/results/2026-11-30-h200-narrow-unsplit) the unsplit tile
// won everywhere up to K = 16384 (1.003-1.29, geomean 1.116) and at any K on tiles up to 48 tokens
// wide (1.068); tiles 80 and 104 wide at K = 27648-36864 lost (0.77-1.13, geomean 0.973): there
// the split's partials pass is a small share of a long call, and the split pick's own tile often
// fits the tokens closer (52 tokens on 72x192 against 80x64). Measured after the bound was set,
// at K = 20480 and 24576 the wide tiles lost as well (0.956 over 99 calls, one round).
inline constexpr int kNarrowUnsplitRowsOfN = 64;
inline constexpr int64_t kNarrowUnsplitMaxM = 96;
inline constexpr int64_t kNarrowUnsplitMinN = 4096;
inline constexpr int64_t kNarrowUnsplitWideMaxK = 16384;
inline constexpr int kNarrowUnsplitAnyKMaxWidth = 48;

namespace {

// What the rules after the pick may reshape: a compiled sm90 config (not a variant's own source)
// of one matrix, on a device whose SMs are known.
bool reshapeable(const KernelConfig& pick, const GemmArgs& args, const DeviceInfo& device) {
  return pick.family == Family::kSm90Ws && pick.source.empty() && args.batch_count == 1 &&
         device.sm_count > 0;
}

// The rule's tile before its bound (narrow_unsplit_tile); explain names it where the bound keeps
// the split.
std::optional<KernelConfig> narrowest_unsplit_tile(const Problem& problem,
                                                   const KernelConfig& pick, const GemmArgs& args,
                                                   const DeviceInfo& device) {
  if (!reshapeable(pick, args, device) || !pick.swap_ab || pick.split_k < 2 ||
      problem.m > kNarrowUnsplitMaxM || problem.n < kNarrowUnsplitMinN)
    return std::nullopt;
  const int64_t token_tiles =
      device.sm_count / ((problem.n + kNarrowUnsplitRowsOfN - 1) / kNarrowUnsplitRowsOfN);
  if (token_tiles < 1) return std::nullopt;
  const int64_t width = (problem.m + token_tiles - 1) / token_tiles;
  auto order = [](const KernelConfig& c) {
    return std::tuple(c.block_m, c.num_consumer_wgs, c.epilogue != Epilogue::kDirect);
  };
  std::optional<KernelConfig> best;
  for (const auto& inst : registry::instances()) {
    KernelConfig c = inst.config;
    if (c.family != Family::kSm90Ws || !c.swap_ab || c.block_n != kNarrowUnsplitRowsOfN ||
        c.block_m < width || c.layout != pick.layout || c.accum != pick.accum ||
        c.dtype != pick.dtype || c.cluster_m * c.cluster_n != 1 || !c.source.empty() ||
        (best && order(c) >= order(*best)))
      continue;
    c.split_k = 1;
    if (registry::can_implement(problem, c, args, device).ok()) best = c;
  }
  return best;
}

bool narrow_tile_keeps_split(const Problem& problem, const KernelConfig& tile) {
  return tile.block_m > kNarrowUnsplitAnyKMaxWidth && problem.k > kNarrowUnsplitWideMaxK;
}

}  // namespace

std::optional<KernelConfig> narrow_unsplit_tile(const Problem& problem, const KernelConfig& pick,
                                               const GemmArgs& args, const DeviceInfo& device) {
  std::optional<KernelConfig> tile = narrowest_unsplit_tile(problem, pick, args, device);
  if (tile && narrow_tile_keeps_split(problem, *tile)) return std::nullopt;
  return tile;
}

// A split shortens a call where it shortens the longest SM's work: rounds of CTAs times the
// k-blocks of each. Where fewer splits make it no longer, the extra split only adds partials to
// add up: at 80 tiles on 132 SMs, two splits run two rounds of half the k-blocks, as long as one
// round of whole tiles. On an H200 the seven split-K picks among 109 probed whose split ran more
// CTAs than one round (20-40 tokens, N 3584-8192, long K) lost to a grid of one round:
// 40x5120x13824-14336 f16 on 40x64 split two ways (160 CTAs) ran 24% slower than unsplit,
// 40x8192x28672 f32 (256 CTAs) 5% slower, 20x4096x7168 on 80x128 split eight ways (256 CTAs)
// 19% slower than 16x64 unsplit (bench/results/2026-11-30-h200-decode-12-16/split-probe). So a
// pick made by rule takes the fewest splits whose rounds times k-blocks per split are no more
// than its own. Checked at 33 calls it changes (24-136 tokens on the llm suites' pairs, 26 of them
// outside the probe), three rounds: every one faster, 1.3-38%, 13% in the geomean (graph mode);
// latency 15% (bench/results/2026-11-30-h200-split-rounds).
std::optional<int> split_within_rounds(const Problem& problem, const KernelConfig& pick,
                                       const GemmArgs& args, const DeviceInfo& device) {
  if (!reshapeable(pick, args, device) || pick.split_k <= 1) return std::nullopt;
  const TileWaves w = tile_waves(problem, pick, device);
  KernelConfig fewer = pick;
  for (fewer.split_k = 1; fewer.split_k < pick.split_k; ++fewer.split_k) {
    const TileWaves f = tile_waves(problem, fewer, device);
    if (f.waves * f.per_split <= w.waves * w.per_split &&
        registry::can_implement(problem, fewer, args, device).ok())
      return fewer.split_k;
  }
  return std::nullopt;
}

namespace {

// A table's exact entry was measured for the shape; the rules after the pick leave it as it is.
bool measured_for_the_shape(const Decision& decision) {
  return decision.source == Source::kUserTable || decision.source == Source::kShippedTable;
}

Decision on_split_rounds(Decision decision, const Problem& problem, const GemmArgs& args,
                         const DeviceInfo& device) {
  if (measured_for_the_shape(decision)) return decision;
  const std::optional<int> split = split_within_rounds(problem, decision.config, args, device);
  if (!split) return decision;
  KernelConfig& pick = decision.config;
  const TileWaves w = tile_waves(problem, pick, device);
  const int was = pick.split_k;
  pick.split_k = *split;
  const TileWaves f = tile_waves(problem, pick, device);
  auto rounds = [](const TileWaves& t) {
    return std::to_string(int64_t(t.waves)) + (t.waves == 1 ? " round" : " rounds") + " of " +
           std::to_string(int64_t(t.per_split)) + " k-blocks";
  };
  const std::string now =
      *split == 1 ? std::string("unsplit") : "split " + std::to_string(*split) + " ways";
  decision.reason += "; " + now + ", not split " + std::to_string(was) + " ways: " + rounds(f) +
                     ", no longer than " + rounds(w);
  return decision;
}

Decision on_narrow_unsplit(Decision decision, const Problem& problem, const GemmArgs& args,
                           const DeviceInfo& device) {
  if (measured_for_the_shape(decision)) return decision;
  const std::optional<KernelConfig> unsplit =
      narrowest_unsplit_tile(problem, decision.config, args, device);
  if (!unsplit) return decision;
  if (narrow_tile_keeps_split(problem, *unsplit)) {
    decision.reason += "; kept split " + std::to_string(decision.config.split_k) +
                       " ways: unsplit it would run on " + unsplit->name() + ", over " +
                       std::to_string(kNarrowUnsplitAnyKMaxWidth) + " tokens wide at K over " +
                       std::to_string(kNarrowUnsplitWideMaxK);
    return decision;
  }
  const int64_t ctas = int64_t(tile_waves(problem, *unsplit, device).ctas);
  decision.reason += "; unsplit as " + unsplit->name() + " (" + std::to_string(ctas) +
                     " CTAs in one round), not split " + std::to_string(decision.config.split_k) +
                     " ways";
  decision.instance = registry::find(unsplit->instance());
  decision.config = *unsplit;
  return decision;
}

// Splitting the last round (a config's split_k 0, launch/sm90_launch.cu: the tiles past the last
// whole round cut into 2-4 k-aligned pieces by the CTAs that would idle through it) on the H200:
// 150x59136x8192 +6.4-6.8% (462 tiles of 152x128 on 132 SMs: 3.5 rounds, 128 k-blocks a tile),
// while the 13 other suite calls where it applies moved -6% to +2%: tiles of a few microseconds
// (8x64 to 64x256 over K <= 4096), or a last round that is a twentieth of the call
// (bench/results/2026-11-30-h200-split-in-launch-and-stream-k/call4). So a pick made by rule
// rather than measured for the shape (a table's exact entry) splits its last round where it takes
// two to four rounds, leaves at most half a round of tiles, and a tile is at least
// kLastRoundMinTileMacs multiply-adds (150x59136x8192's: 1.6e8; the losers' at most 3.4e7).
inline constexpr int64_t kLastRoundMaxRounds = 4;
inline constexpr int64_t kLastRoundMinTileMacs = int64_t(1) << 26;

// The rounds of `pick`'s unsplit tiles where its last round splits (splits_last_round), else
// none: two to four rounds, the CTAs past the last whole one (tile_waves: in CTAs, whole clusters
// resident at once) at most half a round, and long tiles.
std::optional<TileWaves> last_round_split(const Problem& problem, const KernelConfig& pick,
                                          const GemmArgs& args, const DeviceInfo& device) {
  if (!reshapeable(pick, args, device) || pick.split_k != 1 || sm90_needs_flavour(args) ||
      !sm90::has_tail_split_flavour(sm90_variant(pick)))
    return std::nullopt;
  const TileWaves w = tile_waves(problem, pick, device);
  const double rest = std::fmod(w.ctas, w.slots);
  const double tile_macs = double(pick.block_m) * pick.block_n * w.per_split * pick.block_k;
  if (w.waves >= 2 && w.waves <= kLastRoundMaxRounds && rest > 0 && 2 * rest <= w.slots &&
      tile_macs >= double(kLastRoundMinTileMacs))
    return w;
  return std::nullopt;
}

Decision on_last_round(Decision decision, const Problem& problem, const GemmArgs& args,
                       const DeviceInfo& device) {
  if (measured_for_the_shape(decision)) return decision;
  const std::optional<TileWaves> w = last_round_split(problem, decision.config, args, device);
  if (!w) return decision;
  KernelConfig& pick = decision.config;
  // Counted in clusters, as the launcher deals them (tile_waves counts CTAs).
  const int64_t cluster = int64_t(pick.cluster_m) * pick.cluster_n;
  pick.split_k = 0;
  decision.reason += "; its last round split: " +
                     std::to_string(int64_t(std::fmod(w->ctas, w->slots)) / cluster) + " tiles of " +
                     std::to_string(int64_t(w->per_split)) + " k-blocks left over from " +
                     std::to_string(int64_t(w->ctas / w->slots)) + " whole rounds of " +
                     std::to_string(int64_t(w->slots) / cluster) +
                     ", each cut into k-aligned pieces";
  return decision;
}

}  // namespace

bool splits_last_round(const Problem& problem, const KernelConfig& pick, const GemmArgs& args,
                       const DeviceInfo& device) {
  return last_round_split(problem, pick, args, device).has_value();
}

Decision decide(const Problem& problem, const GemmArgs& args, const DeviceInfo& device,
                const Tables& tables) {
  Decision d = decide_for_dtype(problem, args, device, tables);
  d = on_epilogue_tile(std::move(d), problem, args, device);
  d = on_split_rounds(std::move(d), problem, args, device);
  d = on_narrow_unsplit(std::move(d), problem, args, device);
  return on_last_round(std::move(d), problem, args, device);
}

namespace {

// select()'s cache entry: the decision, or (no instance) why nothing compiled runs the call.
const Decision& cached_decision(const Problem& problem, const GemmArgs& args,
                                const DeviceInfo& device) {
  static std::shared_mutex mutex;
  static std::unordered_map<DispatchKey, Decision, DispatchKeyHash> cache;
  // The row strides as given (0 or the packed value both mean packed; either is one key).
  const DispatchKey key{problem.m,
                        problem.n,
                        problem.k,
                        args.row_stride_a(),
                        args.row_stride_b(problem.layout),
                        args.row_stride_c(),
                        args.batch_count,
                        int(problem.layout),
                        int(problem.accum),
                        int(problem.dtype),
                        device.ordinal,
                        align_class(args),
                        g_generation.load(std::memory_order_acquire)};
  {
    std::shared_lock lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  Decision decision;
  try {
    decision = decide(problem, args, device, tables_for(device, problem.accum));
  } catch (const Error& e) {
    if (e.status() != HGEMM_ERROR_NOT_SUPPORTED) throw;
    decision.reason = e.message();
  }
  std::unique_lock lock(mutex);
  // Node-based map: the reference stays valid while other threads insert.
  return cache.emplace(key, std::move(decision)).first->second;
}

}  // namespace

const Decision& select(const Problem& problem, const GemmArgs& args, const DeviceInfo& device) {
  const Decision& decision = cached_decision(problem, args, device);
  if (!decision.instance) HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED, decision.reason);
  return decision;
}

const Decision* try_select(const Problem& problem, const GemmArgs& args,
                           const DeviceInfo& device, std::string* why_not) {
  const Decision& decision = cached_decision(problem, args, device);
  if (decision.instance) return &decision;
  if (why_not) *why_not = decision.reason;
  return nullptr;
}

void reload_tables() { g_generation.fetch_add(1, std::memory_order_acq_rel); }

hgemmDispatchInfo_t describe(const DeviceInfo& device, Accum accum) {
  auto copy = [](char* out, size_t size, const std::string& s) {
    std::snprintf(out, size, "%s", s.c_str());
  };
  hgemmDispatchInfo_t info{};
  const Tables tables = tables_for(device, accum);
  const LoadedTable& shipped = *tables.shipped;
  copy(info.table_path, sizeof info.table_path, shipped.path());
  if (const Table* t = shipped.table()) {
    copy(info.tuned_gpu, sizeof info.tuned_gpu, t->gpu);
    info.tuned_sm_count = t->sm_count;
    info.entries = int(t->entries.size());
  }
  info.matches_device = shipped.usable() ? 1 : 0;
  copy(info.status, sizeof info.status, shipped.status());
  const LoadedTable& user = *tables.user;
  copy(info.user_table_path, sizeof info.user_table_path, user.path());
  if (user.usable()) info.user_entries = int(user.table()->entries.size());
  copy(info.user_status, sizeof info.user_status, user.status());
  copy(info.device_gpu, sizeof info.device_gpu, device.name);
  info.device_sm_count = device.sm_count;
  return info;
}

}  // namespace hgemm::dispatch
