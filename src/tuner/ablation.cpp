#include "tuner/ablation.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "tuner/measure/replay_measurer.hpp"
#include "tuner/policy/policy.hpp"
#include "tuner/tune.hpp"

namespace hgemm::tuner {
namespace {

struct RunSpec {
  size_t curve = 0;     // index into AblationResult::curves
  std::string policy;   // make_policy's name
  uint64_t seed = 0;
  bool warm = false;
};

// One run's answers: per problem, the speedup of each evaluation (NaN: nothing timed).
struct Trace {
  std::vector<std::vector<double>> speedups;
  long evaluations = 0;
  long not_in_table = 0;
};

// One run's view: per n, the values over problems, and per problem the first n within 2%.
struct RunMetrics {
  std::vector<double> geomean_speedup, geomean_ratio, frac_within;
  std::vector<std::vector<double>> bucket_ratio;
  std::vector<int> first_within;
  long evaluations = 0;
  long not_in_table = 0;
};

using ShapeKey = std::tuple<int64_t, int64_t, int64_t>;

ShapeKey shape_of(const Problem& p) { return {p.m, p.n, p.k}; }

Trace trace_run(const RunSpec& spec, const ReplayMeasurer& prototype,
                const std::vector<Record>& warm_history,
                const std::vector<AblationProblem>& problems, const SearchSpace& space,
                const AblationOptions& options) {
  ReplayMeasurer measurer = prototype;
  std::unique_ptr<SearchPolicy> policy = make_policy(spec.policy, spec.seed);
  TuneOptions tune;
  tune.budget = options.max_evals;
  tune.weights = options.weights;
  tune.clock = [] { return std::string(); };
  tune.neighbor_seeds = 0;  // the ablation compares the policies' own picks
  Tuner tuner(space, *policy, measurer, tune);
  if (spec.warm) tuner.load_history(warm_history, /*resume=*/false);
  Trace out;
  for (const AblationProblem& p : problems) {
    std::vector<double>& seq = out.speedups.emplace_back();
    tuner.tune(p.problem, [&](const Record& r) {
      seq.push_back(r.measurement.timed() ? r.measurement.speedup() : kNaN);
    });
  }
  out.evaluations = measurer.calls();
  out.not_in_table = measurer.misses();
  return out;
}

RunMetrics metrics_of(const Trace& trace, const std::vector<AblationProblem>& problems,
                      int max_evals) {
  const size_t count = problems.size();
  RunMetrics m;
  m.evaluations = trace.evaluations;
  m.not_in_table = trace.not_in_table;
  m.first_within.assign(count, max_evals + 1);
  std::vector<double> best(count, kNaN);
  std::vector<int> in_bucket(kSizeBuckets, 0);
  for (const AblationProblem& p : problems) ++in_bucket[size_t(size_bucket(p.problem))];
  m.bucket_ratio.assign(kSizeBuckets, {});
  for (int n = 1; n <= max_evals; ++n) {
    double log_speedup = 0, log_ratio = 0;
    int within = 0;
    std::vector<double> bucket_log(kSizeBuckets, 0.0);
    for (size_t i = 0; i < count; ++i) {
      const std::vector<double>& seq = trace.speedups[i];
      if (size_t(n) <= seq.size() && std::isfinite(seq[size_t(n) - 1]))
        best[i] = std::isfinite(best[i]) ? std::max(best[i], seq[size_t(n) - 1])
                                         : seq[size_t(n) - 1];
      const double speedup = std::isfinite(best[i]) ? best[i] : problems[i].floor;
      const double ratio = speedup / problems[i].optimum;
      log_speedup += std::log(speedup);
      log_ratio += std::log(ratio);
      bucket_log[size_t(size_bucket(problems[i].problem))] += std::log(ratio);
      if (std::isfinite(best[i]) && ratio >= kAblationTarget) {
        ++within;
        m.first_within[i] = std::min(m.first_within[i], n);
      }
    }
    m.geomean_speedup.push_back(std::exp(log_speedup / double(count)));
    m.geomean_ratio.push_back(std::exp(log_ratio / double(count)));
    m.frac_within.push_back(double(within) / double(count));
    for (int b = 0; b < kSizeBuckets; ++b)
      m.bucket_ratio[size_t(b)].push_back(
          in_bucket[size_t(b)] ? std::exp(bucket_log[size_t(b)] / in_bucket[size_t(b)]) : kNaN);
  }
  return m;
}

// Runs every spec (in parallel: each run has its own policy, tuner and measurer; the space and
// the table are only read). The order of results is the order of specs whatever the threads.
std::vector<RunMetrics> run_all(const std::vector<RunSpec>& specs, const ReplayMeasurer& prototype,
                                const std::vector<Record>& warm_history,
                                const std::vector<AblationProblem>& problems,
                                const SearchSpace& space, const AblationOptions& options) {
  std::vector<RunMetrics> out(specs.size());
  std::vector<std::exception_ptr> errors(specs.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < specs.size();) {
      try {
        out[i] = metrics_of(trace_run(specs[i], prototype, warm_history, problems, space, options),
                            problems, options.max_evals);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const unsigned wanted = options.threads > 0 ? unsigned(options.threads) : hardware;
  const size_t threads = std::min(specs.size(), size_t(wanted));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

// Mean over runs of each entry.
std::vector<double> mean_of(const std::vector<const std::vector<double>*>& runs) {
  std::vector<double> out(runs.front()->size(), 0.0);
  for (const std::vector<double>* r : runs)
    for (size_t n = 0; n < out.size(); ++n) out[n] += (*r)[n] / double(runs.size());
  return out;
}

PolicyCurve curve_of(std::string policy, const std::vector<const RunMetrics*>& runs,
                     int max_evals) {
  PolicyCurve c;
  c.policy = std::move(policy);
  c.runs = int(runs.size());
  auto field = [&](auto member) {
    std::vector<const std::vector<double>*> v;
    for (const RunMetrics* r : runs) v.push_back(&(r->*member));
    return mean_of(v);
  };
  c.geomean_speedup = field(&RunMetrics::geomean_speedup);
  c.geomean_ratio = field(&RunMetrics::geomean_ratio);
  c.frac_within = field(&RunMetrics::frac_within);
  for (int b = 0; b < kSizeBuckets; ++b) {
    std::vector<const std::vector<double>*> v;
    for (const RunMetrics* r : runs) v.push_back(&r->bucket_ratio[size_t(b)]);
    c.bucket_ratio.push_back(mean_of(v));
  }
  for (int n = 1; n <= max_evals; ++n)
    if (c.geomean_ratio[size_t(n) - 1] >= kAblationTarget) {
      c.evals_to_target = n;
      break;
    }
  double sum = 0, reached = 0, pairs = 0;
  for (const RunMetrics* r : runs) {
    for (int first : r->first_within) {
      sum += first;
      reached += first <= max_evals;
      ++pairs;
    }
    c.evaluations += r->evaluations;
    c.not_in_table += r->not_in_table;
  }
  c.mean_evals_to_target = pairs ? sum / pairs : 0;
  c.frac_reached = pairs ? reached / pairs : 0;
  return c;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The n the report's tables show: 8, 16, 32, 64 up to max_evals, and max_evals itself.
std::vector<int> report_points(int max_evals) {
  std::vector<int> out;
  for (int n : {8, 16, 32, 64})
    if (n <= max_evals) out.push_back(n);
  if (out.empty() || out.back() != max_evals) out.push_back(max_evals);
  return out;
}

std::string evals_text(const std::optional<int>& n, int max_evals) {
  return n ? std::to_string(*n) : "> " + std::to_string(max_evals);
}

}  // namespace

int size_bucket(const Problem& problem) {
  const double flops = problem.flops();
  int bucket = 0;
  for (double edge : {1e9, 1e10, 1e11, 1e12})
    if (flops >= edge) ++bucket;
  return bucket;
}

std::string size_bucket_label(int bucket) {
  static const char* const labels[kSizeBuckets] = {"< 1e9", "1e9 - 1e10", "1e10 - 1e11",
                                                   "1e11 - 1e12", ">= 1e12"};
  return bucket >= 0 && bucket < kSizeBuckets ? labels[bucket] : "?";
}

const PolicyCurve* AblationResult::curve(const std::string& policy) const {
  for (const PolicyCurve& c : curves)
    if (c.policy == policy) return &c;
  return nullptr;
}

double AblationResult::optimum_geomean() const {
  double sum = 0;
  for (const AblationProblem& p : problems) sum += std::log(p.optimum);
  return problems.empty() ? 0.0 : std::exp(sum / double(problems.size()));
}

AblationResult run_ablation(const std::vector<Record>& table, const std::vector<Record>* history,
                            const SearchSpace& space, const AblationOptions& options) {
  if (options.max_evals < 1 || options.max_evals > 100000)
    throw std::invalid_argument("max_evals must be 1..100000");
  if (options.seeds < 1 || options.seeds > 10000)
    throw std::invalid_argument("seeds must be 1..10000");
  AblationResult result;
  result.options = options;
  result.table_records = table.size();
  const ReplayMeasurer replay(table);

  // The problems in table order, each with its optimum over the replay's answers.
  std::vector<Problem> order;
  std::set<std::string> seen;
  std::set<ShapeKey> shapes;
  for (const Record& r : table) {
    if (seen.insert(r.problem.name()).second) order.push_back(r.problem);
    shapes.insert(shape_of(r.problem));
  }
  std::unordered_map<std::string, std::vector<std::string>> configs_of;
  for (const Record& r : table) configs_of[r.problem.name()].push_back(r.config);
  const auto blocked = blocklist(table);
  for (const Problem& problem : order) {
    AblationProblem p;
    p.problem = problem;
    for (const std::string& config : configs_of.at(problem.name())) {
      const Measurement* m = replay.find(problem, config);
      if (!m->timed()) continue;
      if (m->speedup() > p.optimum) {
        p.optimum = m->speedup();
        p.optimum_config = config;
      }
      p.floor = p.floor > 0 ? std::min(p.floor, m->speedup()) : m->speedup();
    }
    if (p.optimum <= 0) {
      ++result.problems_without_timing;
      continue;
    }
    p.optimum_in_space = false;
    for (const KernelConfig& c : space.enumerate(problem)) {
      const std::string name = c.name();
      ++p.candidates;
      if (name == p.optimum_config) p.optimum_in_space = true;
      if (!replay.find(problem, name)) {
        ++p.missing;
        p.missing_blocked += blocked.count(name) > 0;
      }
    }
    result.problems.push_back(std::move(p));
  }
  if (result.problems.empty())
    throw std::invalid_argument(
        "the table holds no timed measurement (passed, with a reference time)");

  // The warm start never sees an ablation shape, in any layout or accumulation.
  std::vector<Record> warm_history;
  if (history) {
    result.warm = true;
    std::set<std::string> history_problems;
    for (const Record& r : *history) {
      if (shapes.count(shape_of(r.problem))) {
        ++result.history_held_out;
        continue;
      }
      warm_history.push_back(r);
      history_problems.insert(r.problem.name());
    }
    result.history_records = warm_history.size();
    result.history_problems = history_problems.size();
  }

  std::vector<std::string> names{"exhaustive", "random", "rl cold"};
  if (history) names.push_back("rl warm");
  std::vector<RunSpec> specs{{0, "exhaustive", options.seed, false}};
  for (int i = 0; i < options.seeds; ++i) {
    const uint64_t seed = options.seed + uint64_t(i);
    specs.push_back({1, "random", seed, false});
    specs.push_back({2, "rl", seed, false});
    if (history) specs.push_back({3, "rl", seed, true});
  }
  const std::vector<RunMetrics> runs =
      run_all(specs, replay, warm_history, result.problems, space, options);
  for (size_t index = 0; index < names.size(); ++index) {
    std::vector<const RunMetrics*> mine;
    for (size_t i = 0; i < specs.size(); ++i)
      if (specs[i].curve == index) mine.push_back(&runs[i]);
    result.curves.push_back(curve_of(names[index], mine, options.max_evals));
  }
  return result;
}

std::string_view to_string(Acceptance::Outcome outcome) {
  switch (outcome) {
    case Acceptance::Outcome::kPass: return "PASS";
    case Acceptance::Outcome::kFail: return "FAIL";
    case Acceptance::Outcome::kUndecided: return "UNDECIDED";
  }
  return "?";
}

Acceptance judge(const AblationResult& result, const std::string& rl_policy) {
  Acceptance a;
  a.policy = rl_policy;
  const PolicyCurve* rl = result.curve(rl_policy);
  const PolicyCurve* random = result.curve("random");
  const int max_evals = result.options.max_evals;
  if (!rl || !random) {
    a.explanation = "no " + std::string(rl ? "random" : rl_policy) + " curve";
    return a;
  }
  if (!rl->evals_to_target) {
    a.outcome = Acceptance::Outcome::kFail;
    a.explanation = rl_policy + " does not reach a geomean ratio of 0.98 within " +
                    std::to_string(max_evals) + " evaluations";
    return a;
  }
  const int need = *rl->evals_to_target;
  if (random->evals_to_target) {
    const int random_need = *random->evals_to_target;
    a.outcome = 4 * need <= random_need ? Acceptance::Outcome::kPass : Acceptance::Outcome::kFail;
    a.explanation = rl_policy + " needs " + std::to_string(need) + ", random " +
                    std::to_string(random_need) + ": " + std::to_string(need) +
                    (4 * need <= random_need ? " <= " : " > ") + fmt("%g", random_need / 4.0) +
                    " = random / 4";
    return a;
  }
  // Random needs at least max_evals + 1.
  const bool pass = 4 * need <= max_evals + 1;
  a.outcome = pass ? Acceptance::Outcome::kPass : Acceptance::Outcome::kUndecided;
  a.explanation = rl_policy + " needs " + std::to_string(need) + ", random more than " +
                  std::to_string(max_evals) + ": " + std::to_string(need) +
                  (pass ? " <= " : " > ") + fmt("%g", (max_evals + 1) / 4.0) +
                  " = (max-evals + 1) / 4" +
                  (pass ? "" : "; rerun with a larger --max-evals to decide");
  return a;
}

std::string ablation_csv(const AblationResult& result) {
  std::string out = "policy,n,geomean_speedup,geomean_ratio,frac_within_2pct\n";
  for (const PolicyCurve& c : result.curves)
    for (size_t i = 0; i < c.geomean_ratio.size(); ++i)
      out += c.policy + "," + std::to_string(i + 1) + "," + fmt("%.6f", c.geomean_speedup[i]) +
             "," + fmt("%.6f", c.geomean_ratio[i]) + "," + fmt("%.6f", c.frac_within[i]) + "\n";
  return out;
}

std::string ablation_markdown(const AblationResult& r, const AblationReportInfo& info) {
  const int max_evals = r.options.max_evals;
  const std::vector<int> points = report_points(max_evals);
  auto at = [](const std::vector<double>& v, int n) { return v[size_t(n) - 1]; };
  std::ostringstream md;
  auto header = [&](const char* first) {
    md << "| " << first << " |";
    for (int n : points) md << " n = " << n << " |";
    md << "\n|---|";
    for (size_t i = 0; i < points.size(); ++i) md << "---:|";
    md << "\n";
  };
  auto policy_text = [&](const PolicyCurve& c) {
    return c.runs > 1 ? c.policy + " (mean of " + std::to_string(c.runs) + " seeds)" : c.policy;
  };

  md << "# Search-policy ablation: a replay of measured tables\n\n";
  if (!info.command.empty()) md << "Made by `" << info.command << "`.\n\n";
  md << "## Method\n\nThis report is a **replay**, not a new GPU run. The table `"
     << info.table_path << "`";
  if (!info.table_gpu.empty()) md << " (" << info.table_gpu << ")";
  md << " holds " << r.table_records
     << " records of an exhaustive tuning run (`hgemm tune --policy exhaustive`): every "
        "candidate config of every problem verified, then timed against cuBLASLt autotune on "
        "the same buffers. Each policy below runs through the real tuning loop (`Tuner`) with a "
        "`ReplayMeasurer` that answers each measurement it asks for with the table's "
        "measurement of that (problem, config) pair. Every time in the curves was measured on "
        "the GPU; only the order in which each policy would have asked for them is simulated. "
        "Limits: one measurement per pair (timing noise is not resampled: every policy sees the "
        "same draw), and a pair the table lacks is answered `not_supported`.\n\n";
  for (const std::string& note : info.notes) md << "Note: " << note << "\n\n";
  md << "- **exhaustive**: the search space's order, one deterministic run;\n"
     << "- **random**: uniform without replacement, mean over " << r.options.seeds << " seeds;\n"
     << "- **rl cold**: `--policy rl` without history, learning across the problems in table "
        "order as a tuning run does, mean over "
     << r.options.seeds << " seeds;\n";
  if (r.warm)
    md << "- **rl warm**: rl warm-started from `" << info.history_path << "` ("
       << r.history_records << " records of " << r.history_problems << " problems; "
       << r.history_held_out
       << " records on the ablation's shapes, in any layout or accumulation, held out), then "
          "as rl cold.\n";
  md << "\nEvery policy gets a budget of " << max_evals
     << " evaluations per problem; a failed or not-supported candidate counts as an evaluation "
        "without a speedup. Speedup = cuBLASLt time / candidate time; a problem's optimum is "
        "the best speedup among its timed table entries; ratio = best speedup found so far / "
        "optimum. Means over problems are geometric; a problem with nothing timed yet counts at "
        "its slowest timed entry. Seeds start at "
     << r.options.seed << ".\n\n";

  md << "## Problems\n\n| size bucket (2·M·N·K FLOP) | problems |\n|---|---:|\n";
  std::vector<int> per_bucket(kSizeBuckets, 0);
  int candidates = 0, fewest = 1 << 30, most = 0, missing = 0, missing_blocked = 0;
  int optimum_outside = 0;
  for (const AblationProblem& p : r.problems) {
    ++per_bucket[size_t(size_bucket(p.problem))];
    candidates += p.candidates;
    fewest = std::min(fewest, p.candidates);
    most = std::max(most, p.candidates);
    missing += p.missing;
    missing_blocked += p.missing_blocked;
    optimum_outside += !p.optimum_in_space;
  }
  for (int b = 0; b < kSizeBuckets; ++b)
    md << "| " << size_bucket_label(b) << " | " << per_bucket[size_t(b)] << " |\n";
  md << "| all | " << r.problems.size() << " |\n\n"
     << fewest << " to " << most << " candidates per problem (" << candidates << " in all); "
     << missing << " of them are not in the table and are answered not_supported ("
     << missing_blocked << " of those on the table's blocklist, which the tuning run skipped).";
  if (optimum_outside)
    md << " For " << optimum_outside
       << " problems the table's optimum is not a candidate of this build's space, so no "
          "policy can reach ratio 1 there.";
  if (r.problems_without_timing)
    md << " " << r.problems_without_timing
       << " table problems without any timed entry are left out.";
  md << " Geomean optimum speedup over cuBLASLt: " << fmt("%.3fx", r.optimum_geomean())
     << ".\n\n";

  md << "## Results\n\nGeomean best speedup over cuBLASLt after n evaluations per problem:\n\n";
  header("policy");
  for (const PolicyCurve& c : r.curves) {
    md << "| " << policy_text(c) << " |";
    for (int n : points) md << " " << fmt("%.3fx", at(c.geomean_speedup, n)) << " |";
    md << "\n";
  }
  md << "| optimum (all candidates) |";
  for (size_t i = 0; i < points.size(); ++i) md << " " << fmt("%.3fx", r.optimum_geomean()) << " |";
  md << "\n\nGeomean ratio to the optimum (1: the optimum of every problem found), and in "
        "brackets the share of problems within 2% of their optimum:\n\n";
  header("policy");
  for (const PolicyCurve& c : r.curves) {
    md << "| " << policy_text(c) << " |";
    for (int n : points)
      md << " " << fmt("%.4f", at(c.geomean_ratio, n)) << " ("
         << fmt("%.0f%%", 100 * at(c.frac_within, n)) << ") |";
    md << "\n";
  }
  md << "\nEvaluations to reach 2% of the optimum: the smallest n at which the geomean ratio is "
        ">= 0.98, and per problem the mean first n with ratio >= 0.98 (a run that never gets "
        "there counted as "
     << max_evals + 1
     << ", so that mean is then a lower bound):\n\n"
        "| policy | geomean ratio >= 0.98 at n | mean n per problem | problem runs reaching it "
        "|\n|---|---:|---:|---:|\n";
  for (const PolicyCurve& c : r.curves)
    md << "| " << c.policy << " | " << evals_text(c.evals_to_target, max_evals) << " | "
       << (c.frac_reached < 1 ? "≥ " : "") << fmt("%.1f", c.mean_evals_to_target) << " | "
       << fmt("%.1f%%", 100 * c.frac_reached) << " |\n";

  md << "\n## Acceptance\n\nIssue 5: the policy must come within 2% of the exhaustive optimum "
        "using at most a quarter of the evaluations random search needs (both judged by the "
        "geomean ratio).\n\n";
  std::vector<std::string> judged{"rl cold"};
  if (r.warm) judged.push_back("rl warm");
  for (const std::string& policy : judged) {
    const Acceptance a = judge(r, policy);
    md << "- **" << policy << ": " << to_string(a.outcome) << "**: " << a.explanation << ".\n";
  }

  md << "\n## By size\n\nGeomean ratio to the optimum per size bucket of 2·M·N·K FLOP:\n\n";
  header("bucket (problems) · policy");
  for (int b = 0; b < kSizeBuckets; ++b) {
    if (!per_bucket[size_t(b)]) continue;
    for (const PolicyCurve& c : r.curves) {
      md << "| " << size_bucket_label(b) << " (" << per_bucket[size_t(b)] << ") · " << c.policy
         << " |";
      for (int n : points) md << " " << fmt("%.4f", at(c.bucket_ratio[size_t(b)], n)) << " |";
      md << "\n";
    }
  }

  md << "\n## Curves\n\n";
  if (!info.csv.empty())
    md << "Every n from 1 to " << max_evals << ": [" << info.csv << "](" << info.csv
       << "). `hgemm report --html DIR RESULTS.csv --ablation " << info.csv
       << "` draws it as curves.\n";
  return md.str();
}

}  // namespace hgemm::tuner
