// Dispatch: the one place that decides which compiled kernel runs a call. In order:
//
//   1. user table     the user's tuned winner for this exact shape (hgemm tune writes it)
//   2. shipped table  the shipped table's tuned winner for this exact shape
//   3. decode         for M <= 16 when neither table lists the shape: the decode family, its
//                     width chosen by the decode rule (dispatch/decode_rule.hpp)
//   4. neighbours     for a shape neither lists: the default NeighborRule (siblings) over the
//                     shipped table's winners (the user table's when no shipped table is used)
//   5. heuristic      the lowest estimate_cost() over the compiled instances that can run the
//                     call and their split-K factors; also overrides 1, 2 and 4 when their search
//                     never tried split-K and the heuristic splits (the split was measured to beat
//                     the unsplit kernels on those shapes; the table never saw it)
//   6. safety net     the heuristic's answer when no sm90 instance can run the call: the
//                     predicated sm80 kernel takes any shape and any 2-byte-aligned pointers
//
// bf16: the tables hold fp16 winners, and a bf16 call runs the bf16 twin of the fp16 call's
// decision (same tiles, same rate on the tensor cores); without a twin that runs it, the rules
// above over the bf16 kernels alone. The sm80 catalog is fp16 only, so a bf16 call may find
// nothing compiled (try_select; hgemmGemm then takes its own safety net).
//
// Strided batches (GemmArgs::batch_count > 1) skip 1-5: the tables hold one matrix's winners;
// the cost model ranks the sm90 kernels with a general flavour (launch/sm90_catalog.hpp,
// CatalogRow::with_general_flavour) over every batch's tiles. beta != 0 and a column-major A
// on one matrix take the rules above, but only those sm90 kernels (and for beta the decode
// family) run them, so a tabled winner without a general flavour gives way to the heuristic; a
// column-major A never splits K.
//
// A table entry is used only when its config is compiled (or the JIT is on) and can_implement
// accepts the call; an exact entry that cannot run goes straight to the heuristic.
//
// After the rules, in this order: a fused epilogue on a wide cooperative tile runs the ping-pong
// sibling; and a pick that was not a table's exact entry takes fewer K splits where they run no
// longer (split_within_rounds), gives a split over few tokens and a wide N up for narrow unsplit
// tiles (narrow_unsplit_tile), and splits its last round where that pays (splits_last_round).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "dispatch/neighbors.hpp"
#include "dispatch/table.hpp"
#include "hgemm/hgemm.h"
#include "launch/launch.hpp"

namespace hgemm::dispatch {

enum class Source { kUserTable, kShippedTable, kNeighbors, kHeuristic, kSafetyNet, kDecode };
// "user table", "shipped table", "neighbours", "heuristic", "safety net", "decode rule"
std::string_view to_string(Source source);

// What dispatch runs: a compiled instance and the config it runs with, which may differ from the
// instance's own in the run-time arguments (split-K factor, raster direction, group size); which
// rule chose it, and why in one line.
struct Decision {
  const KernelInstance* instance = nullptr;
  KernelConfig config;
  Source source = Source::kHeuristic;
  std::string reason;
};

// One table as dispatch holds it: where it came from, whether it is used, and its entries
// indexed by shape.
class LoadedTable {
 public:
  LoadedTable() = default;
  // `table` as found at `path` for `device`: used when it was tuned on this GPU (name and SM
  // count), or on another GPU of the same SM count whose every kernel runs on this device's
  // architecture (a sibling: the H100's table on an H200); status() says which.
  LoadedTable(Table table, std::string path, const DeviceInfo& device);
  // Moves keep the points' views of the entries' timed lists valid (their buffers move along);
  // a copy would leave them viewing the original.
  LoadedTable(LoadedTable&&) = default;
  LoadedTable& operator=(LoadedTable&&) = default;
  LoadedTable(const LoadedTable&) = delete;
  LoadedTable& operator=(const LoadedTable&) = delete;
  // No usable table; `status` says why ("" when none was expected, e.g. no user table).
  static LoadedTable none(std::string path, std::string status);

  bool usable() const { return usable_; }
  const std::string& path() const { return path_; }
  // "loaded", or why the table is not used.
  const std::string& status() const { return status_; }
  const Table* table() const { return table_ ? &*table_ : nullptr; }
  const TableEntry* find(const Problem& problem) const;
  const std::vector<TunedPoint>& points() const { return points_; }
  // The points' fitted tile efficiencies for one layout, fitted at its first unseen shape (a
  // few milliseconds, which a first call that the table answers never pays).
  const FittedEfficiency* fitted(Layout layout) const;
  bool blocked(const KernelConfig& config) const;
  // The dispatch model beside the table (model_path_for_table), read at the first call that asks
  // (as the fit, so that a first call the table answers never pays it); null where there is
  // none or it does not belong to the table (model_status() says why).
  const DispatchModel* model() const;
  const std::string& model_status() const;

 private:
  std::optional<Table> table_;
  std::string path_;
  std::string status_;
  bool usable_ = false;
  std::vector<TunedPoint> points_;
  struct LazyModel {
    std::once_flag once;
    std::unique_ptr<const DispatchModel> model;
    std::string status;
  };
  const LazyModel* loaded_model() const;
  struct LazyFit {
    std::once_flag once;
    std::unique_ptr<FittedEfficiency> fit;
  };
  DeviceInfo device_;
  std::unique_ptr<LazyFit> fitted_tn_ = std::make_unique<LazyFit>();
  std::unique_ptr<LazyFit> fitted_nn_ = std::make_unique<LazyFit>();
  std::unique_ptr<LazyModel> model_ = std::make_unique<LazyModel>();
  std::vector<size_t> by_shape_;  // entry indices sorted by (m, n, k, layout)
};

struct Tables {
  const LoadedTable* user = nullptr;
  const LoadedTable* shipped = nullptr;
};

// The tables dispatch uses on `device` for `accum`, found and loaded on first use and then kept
// for the process, until reload_tables() (see locate.hpp for where they are looked for). Never throws: a missing,
// unreadable or mismatched table is reported by one warning per process on stderr, and dispatch
// then uses the heuristic.
Tables tables_for(const DeviceInfo& device, Accum accum);

// The fewest K splits under `pick`'s (an sm90 config split two ways or more) whose rounds of CTAs
// times k-blocks per split on `device` are no more than its own, where `args` can run it; nullopt
// where no fewer split is as short. Dispatch applies it to picks made by rule, before the last
// round's split.
std::optional<int> split_within_rounds(const Problem& problem, const KernelConfig& pick,
                                       const GemmArgs& args, const DeviceInfo& device);

// For a split-K swap-AB `pick` of few tokens over a wide N: the unsplit swap-AB tile of 64 rows of
// N, as many token tiles as one round holds, the narrowest compiled width that covers M so;
// nullopt where the rule does not apply, no such tile runs the call, or the tile is over 48 tokens
// wide and K over 16384. Dispatch applies it after split_within_rounds.
std::optional<KernelConfig> narrow_unsplit_tile(const Problem& problem, const KernelConfig& pick,
                                               const GemmArgs& args, const DeviceInfo& device);

// Whether `pick` (an sm90 config of one K split) runs `problem` with its last round split
// (split_k 0): two to four rounds of its tiles on `device`, the last at most half full, tiles of
// at least 2^26 multiply-adds, an instance that compiles the split (sm90::has_tail_split_flavour),
// one matrix of the plain flavour.
bool splits_last_round(const Problem& problem, const KernelConfig& pick, const GemmArgs& args,
                       const DeviceInfo& device);

// Whether `row`, dispatch's pick for a row-major TN call of `problem`, is the decode rule's
// swap-AB tile at a token count where the decode kernels run whenever the tile splits K (below 12
// tokens). There the decode kernels were within 8% of the tile on row-major A, and they read a
// column-major A as stored where the tile needs a copy of it in rows first (about 12% of a call,
// docs/notes/2026-12-01-copy-route-and-prologue.md), so hgemmGemm runs them on such an A.
bool decode_rule_tile_in_tn(const Problem& problem, const Decision& row);

// The decision for one call, from scratch (no cache): what select() caches, explain prints and
// the tests check with tables of their own. Throws hgemm::Error(HGEMM_ERROR_NOT_SUPPORTED) when
// nothing compiled can run the call.
Decision decide(const Problem& problem, const GemmArgs& args, const DeviceInfo& device,
                const Tables& tables);

// decide() with tables_for(), cached per shape, layout, accumulation, element type, device and
// pointer-alignment class, so repeated calls neither allocate nor scan. Throws like decide().
const Decision& select(const Problem& problem, const GemmArgs& args, const DeviceInfo& device);

// select() for a caller with a way out (hgemmGemm's safety net): nullptr, and why in *why_not,
// where nothing compiled can run the call (a bf16 call that TMA cannot read, say). Cached too.
const Decision* try_select(const Problem& problem, const GemmArgs& args, const DeviceInfo& device,
                           std::string* why_not);

// The tile of `advised` (an sm90 config) at another depth, epilogue or cluster that runs the
// call, K unsplit: for a call that needs a flavour `advised` has not compiled (a column-major A,
// beta * C) or that may not split K as it does. The nearest in stages, then the same cluster;
// nullopt where no sibling of the tile runs it.
std::optional<Decision> runnable_twin(const Problem& problem, const KernelConfig& advised,
                                      const GemmArgs& args, const DeviceInfo& device);

// The next tables_for() and select() find and load the tables again, so a process sees a user
// table that `hgemm tune` wrote after its first call. Earlier tables and cached decisions are
// kept, never freed (each reload costs the memory of one set), because a call on another thread
// may still be reading them: that keeps the per-call path free of any lock but the cache's.
void reload_tables();

// What hgemmGetDispatchInfo reports: the tables tables_for() holds for `device` and `accum`.
hgemmDispatchInfo_t describe(const DeviceInfo& device, Accum accum);

}  // namespace hgemm::dispatch
