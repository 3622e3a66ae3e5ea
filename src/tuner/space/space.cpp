#include "tuner/space/space.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "core/decode_variant.hpp"
#include "core/promoted.hpp"
#include "launch/launch.hpp"
#include "launch/workspace.hpp"
#include "dispatch/cost.hpp"
#include "dispatch/neighbors.hpp"
#include "dispatch/rules.hpp"

namespace hgemm::tuner {
namespace {

// Axis accessors. Non-capturing lambdas, so an Axis stays a plain aggregate.
Axis axis(std::string_view name, std::vector<int> values, int (*get)(const KernelConfig&),
          void (*set)(KernelConfig&, int), bool runtime = false) {
  return Axis{name, std::move(values), runtime, get, set};
}

Axis block_m_axis(std::vector<int> v) {
  return axis("block_m", std::move(v), [](const KernelConfig& c) { return c.block_m; },
              [](KernelConfig& c, int x) { c.block_m = x; });
}
Axis block_n_axis(std::vector<int> v) {
  return axis("block_n", std::move(v), [](const KernelConfig& c) { return c.block_n; },
              [](KernelConfig& c, int x) { c.block_n = x; });
}
Axis block_k_axis() {
  return axis("block_k", {32, 64}, [](const KernelConfig& c) { return c.block_k; },
              [](KernelConfig& c, int x) { c.block_k = x; });
}
Axis stages_axis(std::vector<int> v) {
  return axis("num_stages", std::move(v), [](const KernelConfig& c) { return c.num_stages; },
              [](KernelConfig& c, int x) { c.num_stages = x; });
}
// Both families split K at launch: a run-time argument of every compiled instance.
Axis split_k_axis() {
  return axis("split_k", {1, 2, 4, 8, 16, 32}, [](const KernelConfig& c) { return c.split_k; },
              [](KernelConfig& c, int x) { c.split_k = x; }, true);
}

std::string check_structure(const RuleInput& in) {
  Status s = in.config.validate();
  return s.ok() ? std::string() : s.message;
}

std::string check_compiled(const RuleInput& in) {
  return in.space.compiled(in.config) ? std::string()
                                      : in.config.name() + " is not in this build's catalog";
}

std::string check_device_smem(const RuleInput& in) {
  return dispatch::check_device_smem(in.config, in.space.device());
}

std::string check_problem(const RuleInput& in) {
  if (!in.problem) return {};
  Status s = in.problem->validate();
  return s.ok() ? std::string() : s.message;
}

std::string check_layout_accum(const RuleInput& in) {
  return in.problem ? dispatch::check_layout_accum(*in.problem, in.config) : std::string();
}

std::string check_tma_row_stride(const RuleInput& in) {
  return in.problem ? dispatch::check_tma_row_stride(*in.problem) : std::string();
}

std::string check_split_k(const RuleInput& in) {
  return dispatch::check_split_k(in.problem, in.config, in.space.device().sm_count);
}

std::string check_decode_shape(const RuleInput& in) {
  return in.problem ? dispatch::check_decode_shape(*in.problem, in.config) : std::string();
}

std::string check_tile_count(const RuleInput& in) {
  return in.problem ? dispatch::check_tile_count(*in.problem, in.config) : std::string();
}

const Rule kStructure{"structure",
                      "KernelConfig::validate(): tile and wgmma N steps, register and "
                      "shared-memory budgets, cluster shapes, the family's fixed fields",
                      check_structure};
const Rule kCompiled{"compiled",
                     "only instances compiled into this build can run (raster and group are "
                     "launch arguments)",
                     check_compiled};
const Rule kDeviceSmem{"device_smem",
                       "the operand ring, C staging and barriers must fit the device's per-block "
                       "opt-in shared memory",
                       check_device_smem};
const Rule kProblem{"problem", "sizes must be positive, 32-bit, and not overflow byte counts",
                    check_problem};
const Rule kLayoutAccum{"layout_accum",
                        "an instance is compiled for one layout and one accumulation type",
                        check_layout_accum};
const Rule kTmaRowStride{"tma_row_stride",
                         "TMA global strides are multiples of 16 bytes: rows of A and B (K) and "
                         "of C and NN's B (N) need K % 8 == 0 and N % 8 == 0",
                         check_tma_row_stride};
const Rule kSplitK{"split_k",
                   "a K split pays only when the unsplit grid leaves SMs idle (so every tile runs "
                   "in the first wave and raster order does not matter: splits use the default "
                   "raster), each split keeps at least 256 of K, and the fp32 partial sums fit "
                   "the 32 MiB workspace",
                   check_split_k};
const Rule kDecodeShape{"decode_shape",
                        "the decode kernel computes at most 16 rows (one m16n8k16 tile) and copies "
                        "A's and B's rows in 16-byte pieces: M <= 16, K % 8 == 0, and N % 8 == 0 "
                        "for NN",
                        check_decode_shape};
const Rule kTileCount{"tile_count",
                      "the persistent scheduler numbers output tiles (whole clusters) in int32",
                      check_tile_count};

std::vector<FamilySpace> build_families() {
  FamilySpace sm90{Family::kSm90Ws, {}, {}};
  sm90.axes = {
      // Swap-AB tiles M with wgmma's N: the widths beside 64, 128 and 256 are theirs.
      block_m_axis(dispatch::swap_block_m_values()),
      block_n_axis(dispatch::block_n_values(Family::kSm90Ws)),
      block_k_axis(),
      stages_axis(std::vector<int>(std::begin(dispatch::kSm90Stages), std::end(dispatch::kSm90Stages))),
      axis("num_consumer_wgs", {1, 2, 3},
           [](const KernelConfig& c) { return c.num_consumer_wgs; },
           [](KernelConfig& c, int x) { c.num_consumer_wgs = x; }),
      axis("schedule", {int(Schedule::kCooperative), int(Schedule::kPingPong)},
           [](const KernelConfig& c) { return int(c.schedule); },
           [](KernelConfig& c, int x) { c.schedule = Schedule(x); }),
      axis("cluster_m", {1, 2}, [](const KernelConfig& c) { return c.cluster_m; },
           [](KernelConfig& c, int x) { c.cluster_m = x; }),
      axis("cluster_n", {1, 2}, [](const KernelConfig& c) { return c.cluster_n; },
           [](KernelConfig& c, int x) { c.cluster_n = x; }),
      axis("epilogue", {int(Epilogue::kDirect), int(Epilogue::kTmaStore)},
           [](const KernelConfig& c) { return int(c.epilogue); },
           [](KernelConfig& c, int x) { c.epilogue = Epilogue(x); }),
      axis("swap_ab", {0, 1}, [](const KernelConfig& c) { return int(c.swap_ab); },
           [](KernelConfig& c, int x) { c.swap_ab = x != 0; }),
      split_k_axis(),
      axis("raster", {int(Raster::kAlongM), int(Raster::kAlongN)},
           [](const KernelConfig& c) { return int(c.raster); },
           [](KernelConfig& c, int x) { c.raster = Raster(x); }, true),
      axis("group_size", {1, 2, 4, 8, 16}, [](const KernelConfig& c) { return c.group_size; },
           [](KernelConfig& c, int x) { c.group_size = x; }, true),
  };
  sm90.rules = {kStructure,   kCompiled,     kDeviceSmem, kProblem,
                kLayoutAccum, kTmaRowStride, kTileCount,  kSplitK};

  FamilySpace sm80{Family::kSm80Mma, {}, {}};
  sm80.axes = {
      block_m_axis({32, 64, 128, 256}),
      block_n_axis(dispatch::block_n_values(Family::kSm80Mma)),
      block_k_axis(),
      stages_axis({2, 3, 4, 5}),
      axis("warps_m", {1, 2, 4}, [](const KernelConfig& c) { return c.warps_m; },
           [](KernelConfig& c, int x) { c.warps_m = x; }),
      axis("warps_n", {1, 2, 4}, [](const KernelConfig& c) { return c.warps_n; },
           [](KernelConfig& c, int x) { c.warps_n = x; }),
      split_k_axis(),
  };
  // The predicated safety net takes any shape and any 2-byte-aligned pointers.
  sm80.rules = {kStructure, kCompiled, kDeviceSmem, kProblem, kLayoutAccum, kSplitK};

  // M <= 16: no run-time axes (no raster, no split-K); block_m is 16 and warps_m 1 throughout.
  FamilySpace decode{Family::kDecode, {}, {}};
  decode.axes = {
      block_n_axis(dispatch::block_n_values(Family::kDecode)),
      axis("block_k", {32, 64, 128, 256}, [](const KernelConfig& c) { return c.block_k; },
           [](KernelConfig& c, int x) { c.block_k = x; }),
      stages_axis({2, 3, 4, 5, 6, 8}),
      axis("num_warps", {1, 2, 4, 8}, [](const KernelConfig& c) { return c.warps_n; },
           [](KernelConfig& c, int x) { c.warps_n = x; }),
  };
  decode.rules = {kStructure, kCompiled, kDeviceSmem, kProblem, kLayoutAccum, kDecodeShape};
  return {sm90, sm80, decode};
}

double log2_safe(double x) { return std::log2(std::max(x, 1e-30)); }

}  // namespace

const std::vector<FamilySpace>& families() {
  static const std::vector<FamilySpace> all = build_families();
  return all;
}

const FamilySpace& family_space(Family family) {
  for (const auto& f : families())
    if (f.family == family) return f;
  return families().front();
}

DeviceInfo nominal_device(std::string name, int sm_count) {
  DeviceInfo d;
  d.name = std::move(name);
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = sm_count;
  d.l2_bytes = 50 << 20;
  d.max_smem_per_block_optin = 232448;
  d.dram_bytes_per_s = 3.35e12;  // an H100 SXM's HBM3
  return d;
}

std::optional<DeviceInfo> described_device(std::string_view key) {
  if (key == "h100") return nominal_device("NVIDIA H100 80GB HBM3", 132);
  if (key == "h200") {
    DeviceInfo d = nominal_device("NVIDIA H200", 132);
    d.l2_bytes = 60 << 20;
    d.dram_bytes_per_s = 4.81e12;  // HBM3e, as a real H200 reports it
    return d;
  }
  return std::nullopt;
}

SearchSpace::SearchSpace(const std::vector<KernelConfig>& compiled, DeviceInfo device)
    : device_(std::move(device)) {
  for (const KernelConfig& c : compiled) {
    if (!c.validate().ok() || !compiled_instances_.insert(c.instance()).second) continue;
    compiled_.push_back(c);
  }
  // Expand each instance over the run-time axes of its family.
  for (const KernelConfig& base : compiled_) {
    std::vector<KernelConfig> expanded{base};
    for (const Axis& a : family_space(base.family).axes) {
      if (!a.runtime) continue;
      std::vector<KernelConfig> next;
      for (const KernelConfig& c : expanded)
        for (int v : a.values) {
          KernelConfig x = c;
          a.set(x, v);
          next.push_back(x);
        }
      expanded = std::move(next);
    }
    for (const KernelConfig& c : expanded)
      if (check(c).empty()) configs_.push_back(c);
  }
}

bool SearchSpace::compiled(const KernelConfig& config) const {
  return compiled_instances_.count(config.instance()) > 0;
}

std::vector<KernelConfig> SearchSpace::declared_instances(
    const std::vector<std::string>& filters) const {
  std::vector<KernelConfig> out;
  std::unordered_set<KernelConfig, KernelConfigHash> seen;
  // A promoted rewrite is offered wherever the family header's config is: beside each declared
  // instance, its twin built from each promoted source. "all" means the family header's alone
  // (each rewrite would double it); a filter matches a twin by its whole name, so
  // `--jit src-NAME` offers rewrite NAME at every declared instance.
  const std::vector<PromotedSource> promoted = promoted_sources();
  auto offer = [&](const KernelConfig& inst) {
    if (compiled(inst) || seen.count(inst)) return;
    const std::string name = inst.name();
    if (std::none_of(filters.begin(), filters.end(), [&](const std::string& f) {
          return f == "all" ? inst.source.empty() : name.find(f) != std::string::npos;
        }))
      return;
    seen.insert(inst);
    out.push_back(inst);
  };
  for (Layout layout : {Layout::kTN, Layout::kNN})
    for (Accum accum : {Accum::kF32, Accum::kF16})
      for (const KernelConfig& c : declared(Family::kSm90Ws, layout, accum)) {
        const KernelConfig inst = c.instance();
        offer(inst);
        for (const PromotedSource& row : promoted) {
          KernelConfig twin = inst;
          twin.source = *SourceName::from(row.name);
          offer(twin);
        }
      }
  return out;
}

std::vector<Violation> SearchSpace::check(const KernelConfig& config,
                                          const Problem* problem) const {
  std::vector<Violation> out;
  const RuleInput in{config, problem, *this};
  for (const Rule& r : family_space(config.family).rules)
    if (std::string why = r.check(in); !why.empty()) out.push_back({std::string(r.name), why});
  return out;
}

Status SearchSpace::legal(const Problem& problem, const KernelConfig& config) const {
  auto v = check(config, &problem);
  if (v.empty()) return Status::success();
  return Status::failure(HGEMM_ERROR_NOT_SUPPORTED, v.front().rule + ": " + v.front().message);
}

std::vector<KernelConfig> SearchSpace::enumerate(const Problem& problem) const {
  std::vector<KernelConfig> out;
  for (const KernelConfig& c : configs_)
    if (check(c, &problem).empty()) out.push_back(c);
  return out;
}

std::vector<KernelConfig> SearchSpace::neighbors(const KernelConfig& config) const {
  std::vector<KernelConfig> out;
  const auto& axes = family_space(config.family).axes;
  for (const KernelConfig& d : configs_) {
    if (d.family != config.family || d == config) continue;
    const Axis* differing = nullptr;
    int count = 0;
    for (const Axis& a : axes)
      if (a.get(d) != a.get(config)) {
        differing = &a;
        ++count;
      }
    if (count != 1) continue;
    KernelConfig back = d;
    differing->set(back, differing->get(config));
    if (back == config) out.push_back(d);
  }
  return out;
}

std::vector<KernelConfig> SearchSpace::declared(Family family, Layout layout, Accum accum) const {
  const FamilySpace& fs = family_space(family);
  // Decode fixes block_m and warps_m (KernelConfig::validate), which no axis varies.
  KernelConfig seed = family == Family::kDecode ? to_config(DecodeVariant{}) : KernelConfig{};
  seed.family = family;
  seed.layout = layout;
  seed.accum = accum;
  auto legal = [&](const KernelConfig& c) {
    const RuleInput in{c, nullptr, *this};
    for (const Rule& r : fs.rules)
      if (r.name != kCompiled.name && !r.check(in).empty()) return false;
    return true;
  };
  auto expand = [](std::vector<KernelConfig> const& from, const Axis& a) {
    std::vector<KernelConfig> next;
    next.reserve(from.size() * a.values.size());
    for (const KernelConfig& c : from)
      for (int v : a.values) {
        KernelConfig x = c;
        a.set(x, v);
        next.push_back(x);
      }
    return next;
  };
  // The compiled axes first, pruned by the rules with the run-time axes at their defaults, then
  // the run-time axes (the last ones) over what is left: the same product in the same order
  // without building the tens of millions of illegal tiles of the full one.
  std::vector<KernelConfig> all{seed};
  for (const Axis& a : fs.axes)
    if (!a.runtime) all = expand(all, a);
  std::erase_if(all, [&](const KernelConfig& c) { return !legal(c); });
  for (const Axis& a : fs.axes)
    if (a.runtime) all = expand(all, a);
  std::erase_if(all, [&](const KernelConfig& c) { return !legal(c); });
  return all;
}

Features SearchSpace::features(const Problem& p, const KernelConfig& c) const {
  Features f;
  const double m = double(p.m), n = double(p.n), k = double(p.k);
  // log2 of sizes up to 2^16 map to [0, 1]; ratios to about [-1, 1].
  const double ai = p.flops() / (2.0 * (m * k + k * n + m * n));  // FLOP per byte, fp16 in/out
  f.problem = {1.0,
               log2_safe(m) / 16,
               log2_safe(n) / 16,
               log2_safe(k) / 16,
               log2_safe(m / n) / 16,
               log2_safe(k / std::sqrt(m * n)) / 16,
               log2_safe(ai) / 12,
               p.layout == Layout::kTN ? 1.0 : 0.0,
               p.accum == Accum::kF16 ? 1.0 : 0.0};

  const int smem_limit = std::max(1, device_.max_smem_per_block_optin);
  f.config = {c.family == Family::kSm90Ws ? 1.0 : 0.0,
              log2_safe(c.block_m) / 8,
              log2_safe(c.block_n) / 8,
              log2_safe(c.block_k) / 6,
              c.num_stages / 8.0,
              c.num_consumer_wgs / 2.0,
              c.cluster_m / 2.0,
              c.cluster_n / 2.0,
              c.raster == Raster::kAlongN ? 1.0 : 0.0,
              log2_safe(c.group_size) / 4,
              c.epilogue == Epilogue::kTmaStore ? 1.0 : 0.0,
              log2_safe(c.split_k) / 4,
              double(c.smem_bytes()) / smem_limit,
              c.schedule == Schedule::kPingPong ? 1.0 : 0.0};

  const double sms = std::max(1, device_.sm_count);
  const double tiles_m = std::ceil(m / c.block_m), tiles_n = std::ceil(n / c.block_n);
  const double ctas = tiles_m * tiles_n * c.split_k;
  const double waves = std::ceil(ctas / sms);
  const double cluster_tiles = std::ceil(tiles_m / c.cluster_m) * c.cluster_m *
                               std::ceil(tiles_n / c.cluster_n) * c.cluster_n;
  const double k_per_split = std::ceil(k / c.split_k);
  const double k_blocks = std::ceil(k_per_split / c.block_k);
  // The analytic cost model against the ideal (all SMs busy on useful MACs), in log2 units.
  const double cost = dispatch::estimate_cost(p, c, device_);
  const double ideal = m * n * k / sms;
  f.joint = {log2_safe(1 + ctas / sms) / 8,
             ctas / (waves * sms),
             m * n / (tiles_m * c.block_m * tiles_n * c.block_n),
             k / (k_blocks * c.block_k * c.split_k),
             tiles_m * tiles_n / cluster_tiles,
             std::min(1.0, k_blocks / c.num_stages),
             -std::clamp(log2_safe(cost / ideal), 0.0, 16.0) / 8};
  return f;
}

const std::array<std::string_view, Features::kProblem>& Features::problem_names() {
  static const std::array<std::string_view, kProblem> n{
      "bias", "log_m", "log_n", "log_k", "log_m_over_n", "log_k_over_mn", "log_intensity",
      "layout_tn", "acc_f16"};
  return n;
}

const std::array<std::string_view, Features::kConfig>& Features::config_names() {
  static const std::array<std::string_view, kConfig> n{
      "sm90", "log_block_m", "log_block_n", "log_block_k", "stages", "consumer_wgs", "cluster_m",
      "cluster_n", "raster_n", "log_group", "tma_store", "log_split_k", "smem_fraction",
      "ping_pong"};
  return n;
}

const std::array<std::string_view, Features::kJoint>& Features::joint_names() {
  static const std::array<std::string_view, kJoint> n{
      "log_waves", "last_wave_fill", "tile_efficiency", "k_efficiency", "cluster_fill",
      "pipeline_fill", "neg_log_cost"};
  return n;
}

}  // namespace hgemm::tuner
