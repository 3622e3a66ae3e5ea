// The search space: per kernel family, the axes a config varies along and the named legality
// rules, each with its reason. The space the tuner searches is the runnable set: every compiled
// instance expanded over the run-time axes (sm90 raster direction and group size are launch
// arguments, so each compiled instance runs with every value), filtered by the rules for one
// problem. Policies see only this API: enumerate(), neighbors(), features().
//
// Promoted source rewrites (KernelConfig::source) are compiled instances like the others (the
// catalog holds each row of promoted.list), so each is offered, with the same run-time axes and
// rules, wherever the family header's config of its tile is; neighbors() stay within one source;
// declared_instances() offers every promoted source beside each declared instance. Features do
// not see the source: a rewrite scores as its tile does until measurements say otherwise (its
// instance's records are counted apart, so the exploration bonus tries it).
//
// Structural legality (tile steps, wgmma N steps, register and shared-memory budgets, cluster
// shapes) is KernelConfig::validate()'s; the rules here wrap it and add what depends on the
// problem or the device (TMA row strides, the device's shared memory, being compiled at all).
// A rule is a CPU-side approximation of the launcher's can_implement: what it misses, the
// measurer records as not_supported.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/config_hash.hpp"
#include "core/device.hpp"
#include "dispatch/neighbors.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::tuner {

struct Axis {
  std::string_view name;
  std::vector<int> values;  // in increasing order; enums as their integer values
  bool runtime = false;     // chosen at launch: each compiled instance runs with every value
  int (*get)(const KernelConfig&) = nullptr;
  void (*set)(KernelConfig&, int) = nullptr;
};

class SearchSpace;

struct RuleInput {
  const KernelConfig& config;
  const Problem* problem;  // nullptr: problem-independent rules only
  const SearchSpace& space;
};

struct Rule {
  std::string_view name;
  std::string_view reason;  // the one line that justifies the rule
  // Empty when the rule holds, else what exactly is violated.
  std::string (*check)(const RuleInput& in) = nullptr;
};

struct FamilySpace {
  Family family;
  std::vector<Axis> axes;
  std::vector<Rule> rules;
};

// Every family's axes and rules: the declarative part of the space.
const std::vector<FamilySpace>& families();
const FamilySpace& family_space(Family family);

struct Violation {
  std::string rule;
  std::string message;
};

// Inputs of the policy's score. Three groups so a policy can form problem x config interactions:
// problem (bias, log dims, aspect ratios, arithmetic intensity, layout, accumulation), config
// (family, tile, stages, warpgroups, cluster, raster, group, epilogue, split-K, shared memory,
// schedule)
// and joint (waves on the SM count, last-wave fill, tile and K efficiency, cluster fill, tile
// reuse, the analytic cost model). Every entry is scaled to roughly [-1, 1].
struct Features {
  static constexpr int kProblem = 9;
  static constexpr int kConfig = 14;
  static constexpr int kJoint = 7;
  std::array<double, kProblem> problem{};
  std::array<double, kConfig> config{};
  std::array<double, kJoint> joint{};

  static const std::array<std::string_view, kProblem>& problem_names();
  static const std::array<std::string_view, kConfig>& config_names();
  static const std::array<std::string_view, kJoint>& joint_names();
};

class SearchSpace {
 public:
  // `compiled`: what this build can launch (hgemm::catalog() in the library, any list in tests).
  // Configs that fail validate() are dropped; duplicates are merged.
  SearchSpace(const std::vector<KernelConfig>& compiled, DeviceInfo device);
  // The library's catalog on `device` (needs no device call itself).
  static SearchSpace from_catalog(const DeviceInfo& device);
  // The catalog plus the declared sm90 instances that `filters` name (declared_instances) and
  // that fit `device`: what the JIT can add. `added`, when given, receives those instances.
  static SearchSpace with_declared(const DeviceInfo& device,
                                   const std::vector<std::string>& filters,
                                   std::vector<KernelConfig>* added = nullptr);

  const DeviceInfo& device() const { return device_; }
  // Every runnable config, for all layouts and accumulations, in a fixed order.
  const std::vector<KernelConfig>& configs() const { return configs_; }

  // The runnable configs legal for `problem` (its layout and accumulation), in configs() order.
  std::vector<KernelConfig> enumerate(const Problem& problem) const;
  // Runnable configs of the same family, layout and accumulation that differ from `config` in
  // exactly one axis.
  std::vector<KernelConfig> neighbors(const KernelConfig& config) const;
  // The rules `config` breaks (for `problem` too, when given). Empty means legal.
  std::vector<Violation> check(const KernelConfig& config, const Problem* problem = nullptr) const;
  Status legal(const Problem& problem, const KernelConfig& config) const;
  // Whether the instance `config` runs on is compiled (raster and group are ignored).
  bool compiled(const KernelConfig& config) const;

  Features features(const Problem& problem, const KernelConfig& config) const;

  // The full product of one family's axes for a layout and accumulation, filtered by the
  // problem-independent rules other than `compiled`: what a JIT could build. Small by design.
  std::vector<KernelConfig> declared(Family family, Layout layout, Accum accum) const;
  // The declared sm90 instances (all layouts and accumulations), and their twins built from each
  // promoted source, that are not compiled and whose names contain one of `filters` ("all"
  // matches every instance of the family header, no twin): what `hgemm tune --jit` adds.
  std::vector<KernelConfig> declared_instances(const std::vector<std::string>& filters) const;

 private:
  DeviceInfo device_;
  std::vector<KernelConfig> compiled_;  // instance configs, raster/group as compiled
  std::unordered_set<KernelConfig, KernelConfigHash> compiled_instances_;  // their instance()s
  std::vector<KernelConfig> configs_;
};

using dispatch::shape_distance;

// A device description for CPU-side use (tests, dry runs, a database from another machine):
// an H100 SXM's SM count, L2 and shared-memory limit unless given.
DeviceInfo nominal_device(std::string name = "nominal H100 SXM", int sm_count = 132);

// A GPU this project knows by a short name, described for CPU-side decisions (`hgemm explain
// --gpu`): "h100" (H100 SXM: 132 SMs, 50 MB of L2, 3.35 TB/s) and "h200" (132 SMs, 60 MB of L2,
// 4.8 TB/s, named as the driver names it); nullopt for another name.
std::optional<DeviceInfo> described_device(std::string_view key);

}  // namespace hgemm::tuner
