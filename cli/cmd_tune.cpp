// hgemm tune: searches the kernel catalog for the fastest verified config per shape, layout and
// accumulation, and appends every measurement to the tuning database. Loop: src/tuner/tune.hpp;
// database: src/tuner/db/database.hpp; methodology and schema: docs/tuner.md.
//
// Several GPUs: this process becomes a launcher. It starts one worker per GPU
// (`hgemm tune ... --shard i/n --device d`, by fork/exec), each tuning every n-th shape into its
// own shard file next to the database, then merges the shard files into the database
// (atomically) once every worker has exited.
//
// The user table: after each problem (so an interrupted run keeps what it finished), the winners
// of the problems this run tuned are merged into the user table dispatch reads for this GPU and
// accumulation (src/tuner/db/user_table.hpp); a launcher does it once, after its merge.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include "args.hpp"
#include "bench/environment.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/suite.hpp"
#include "dispatch/locate.hpp"
#include "dispatch/padded_c.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/sm90_jit.hpp"
#include "progress.hpp"
#include "tuner/db/database.hpp"
#include "tuner/db/tuned_table.hpp"
#include "tuner/db/user_table.hpp"
#include "tuner/measure/gpu_measurer.hpp"
#include "tuner/measure/synthetic_measurer.hpp"
#include "tuner/space/space.hpp"
#include "tuner/tune.hpp"
#include "tuner_commands.hpp"

namespace hgemm::cli {
namespace {

using namespace hgemm::tuner;

constexpr const char* kHelp =
    R"(usage: hgemm tune (--suite S | --shape MxNxK[,...]) [options]

  --suite S          named suite (grid, smoke, edge: bench/suites/S.txt) or a file of "M N K" lines
  --shape LIST       explicit shapes instead, e.g. 4096x4096x4096,128x16384x1024
                     (on sm_90 a TN shape whose N is no multiple of 8 tunes the problem dispatch
                     decides for it: its padded copy of C, N rounded up, e.g. 300x50257x768 ->
                     300x50264x768)
  --layout LIST      nn,tn (default both)
  --acc LIST         f32,f16 (default both)
  --budget N         candidates measured per shape x layout x acc, earlier records included
                     (default 64, about 4 s a shape on an H100; exhaustive measures every
                     candidate)
  --policy P         rl (learned, default), random, exhaustive
  --db PATH          the database for every acc (default: $HGEMM_DB, else
                     data/tuned/<gpu>-<acc>.jsonl in the source tree)
  --resume           count the database's records toward each budget: finished shapes are skipped,
                     and nothing is measured twice. Without it, the records still warm-start the
                     policy and feed the blocklist, and each shape gets a fresh budget
  --include LIST     measure every candidate whose name contains one of these first, on top of
                     the budget (e.g. sm90_pp_ after ping-pong kernels joined the catalog)
  --remeasure-before T
                     with --include or --remeasure-top: an included candidate whose records all
                     predate T (UTC, e.g. 2026-11-23T18:00:00Z) is measured again, after a change
                     to its kernel; its new record supersedes the old ones in tables and scores
                     (T must not be in the future, and a resumed pass keeps the same T)
  --remeasure-top N  with --remeasure-before: also each shape's N fastest configs whose records
                     all predate T (ranked on the current records, so a config a re-measurement
                     moves into the top N is measured too)
  --jit LIST         also search the sm90 instances the space declares but the catalog lacks,
                     those whose names contain one of LIST (all: every one, about 3800): each is
                     compiled up front (in parallel, into the JIT cache; hgemm jit --help) and
                     loaded at run time. Dispatch uses such winners only with HGEMM_JIT=1
  --history LIST     more databases whose records only warm-start the policy and feed the
                     blocklist: never counted toward budgets, never written to. For re-tuning
                     into a fresh database after the kernels changed, or on a GPU of another
                     name and the same SM count (the H100's history on an H200); a history of
                     another SM count is refused
  --history-top N    with --history: each shape's first measurements (inside --budget) are the N
                     fastest configs the --history databases hold for the same shape, before the
                     nearest tuned shapes' winners: tuning a GPU's own database from another
                     GPU's starts from what won there (--budget 3 --history-top 3 measures those
                     alone)
  --gpus LIST        device ordinals to tune on in parallel, e.g. 0,1,2,3, or all
                     (default: the current device only)
  --mode M           timing mode: graph (device time, default) or offline
  --loops N          timed loops per measurement, median taken (default 5, >= 5)
  --loop-ms X        target GPU time of one loop (default 1.5)
  --quick-verify     verify with random inputs and guard bands only (default: every check)
  --seed S           policy and verifier seed (default 24301)
  --time-limit S     stop after the shape in progress once S seconds have passed; exit code 3
                     means "incomplete, rerun with --resume"
  --user-table FILE  merge the winners of the shapes tuned here into FILE, the dispatch table
                     whose entries win over the shipped table's for their shapes (default:
                     $HGEMM_USER_TABLE, else $XDG_CACHE_HOME/hgemm/tables/<gpu>-<acc>.table,
                     else ~/.cache/hgemm/tables/...; with --measurer synthetic, only FILE).
                     Rewritten after each shape; a new process dispatches from it at once
  --no-user-table    leave the user table alone
  --measurer M       gpu (default) or synthetic: a deterministic made-up landscape that needs no
                     GPU, for trying the pipeline (needs --db)
  --shard I/N        (worker) tune shapes I, I+N, I+2N, ... into PATH.shardIofN
  --device D         (worker) the CUDA device to use

exit codes: 0 done, 1 a worker or the device failed, 2 bad arguments, 3 stopped by --time-limit
)";

constexpr int kExitIncomplete = 3;

struct Settings {
  std::vector<Shape> shapes;
  std::string suite_label;
  std::vector<Layout> layouts;
  std::vector<Accum> accums;
  int budget = tuner::TuneOptions{}.budget;
  std::string policy = "rl";
  uint64_t seed = 24301;
  bool resume = false;
  std::optional<std::string> db;
  std::vector<std::string> history;  // warm-start only
  int history_top = 0;               // and each shape's this many fastest configs there, first
  std::vector<std::string> include;  // measured first
  std::string remeasure_before;      // included records older than this are measured again
  int remeasure_top = 0;             // and each shape's this many fastest stale configs
  std::vector<std::string> jit;      // declared instances to compile at run time
  std::optional<std::string> gpus;  // "all" or a list
  std::optional<Shard> shard;
  std::optional<int> device;
  bool synthetic = false;
  std::optional<std::string> user_table;  // --user-table FILE
  bool no_user_table = false;
  GpuMeasurerOptions gpu;
  double time_limit_s = 0;
};

template <class T, class Parse>
std::vector<T> parse_list(const ParsedArgs& args, const std::string& key, const std::string& def,
                          Parse parse, const char* expected) {
  std::vector<T> out;
  for (const std::string& item : args.list_or(key, def)) {
    auto v = parse(item);
    if (!v) throw ArgError("unknown --" + key + " value '" + item + "' (" + expected + ")");
    if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
  }
  return out;
}

// Every argument check happens here, before any device call.
Settings parse_settings(const Args& raw, bool* help) {
  ParsedArgs args(raw,
                  {"suite", "shape", "layout", "acc", "budget", "policy", "db", "history",
                   "history-top", "include", "remeasure-before", "remeasure-top", "jit", "gpus",
                   "mode", "loops", "loop-ms", "seed", "time-limit", "measurer", "shard",
                   "device", "user-table"},
                  {"resume", "quick-verify", "help", "no-user-table"});
  Settings s;
  *help = args.flag("help");
  if (*help) return s;
  if (!args.positional().empty())
    throw ArgError("unexpected argument '" + args.positional().front() + "'");
  const auto suite = args.get("suite"), shape = args.get("shape");
  if (!suite && !shape) throw ArgError("--suite or --shape is required");
  if (suite && shape) throw ArgError("--suite and --shape are exclusive");
  if (suite) {
    try {
      s.shapes = load_suite(*suite);
    } catch (const Error& e) {
      throw ArgError(e.message());
    }
    s.suite_label = *suite;
  } else {
    s.shapes = parse_shapes(*shape);
    s.suite_label = *shape;
  }
  for (const Shape& sh : s.shapes)
    if (Status st = Problem{sh.m, sh.n, sh.k}.validate(); !st.ok()) throw ArgError(st.message);
  s.layouts = parse_list<Layout>(args, "layout", "nn,tn", parse_layout, "nn or tn");
  s.accums = parse_list<Accum>(args, "acc", "f32,f16", parse_accum, "f32 or f16");
  s.policy = args.get_or("policy", "rl");
  if (!make_policy(s.policy, 0))
    throw ArgError("unknown --policy '" + s.policy + "' (rl, random, exhaustive)");
  const long long budget = args.int_or("budget", tuner::TuneOptions{}.budget);
  if (budget < 1 || budget > 100000) throw ArgError("--budget must be 1..100000");
  s.budget = s.policy == "exhaustive" ? 0 : int(budget);
  s.seed = uint64_t(args.int_or("seed", 24301));
  s.resume = args.flag("resume");
  s.db = args.get("db");
  if (args.get("history")) s.history = args.list_or("history", "");
  if (args.get("history-top")) {
    const long long top = args.int_or("history-top", 0);
    if (top < 1 || top > 1000) throw ArgError("--history-top wants a count from 1 to 1000");
    if (s.history.empty()) throw ArgError("--history-top needs --history");
    s.history_top = int(top);
  }
  if (args.get("include")) s.include = args.list_or("include", "");
  if (auto t = args.get("remeasure-before")) {
    if (s.include.empty() && !args.get("remeasure-top"))
      throw ArgError("--remeasure-before needs --include or --remeasure-top");
    if (t->size() != 20 || (*t)[4] != '-' || (*t)[10] != 'T' || t->back() != 'Z')
      throw ArgError("--remeasure-before wants a UTC time like 2026-11-23T18:00:00Z, not '" + *t +
                     "'");
    // Records of this pass must not predate T, or a resumed pass would measure them again.
    if (*t > bench::utc_now())
      throw ArgError("--remeasure-before " + *t +
                     " is in the future: pick the moment the kernel changed");
    s.remeasure_before = *t;
  }
  if (args.get("remeasure-top")) {
    const long long top = args.int_or("remeasure-top", 0);
    if (top < 1 || top > 1000) throw ArgError("--remeasure-top wants a count from 1 to 1000");
    if (s.remeasure_before.empty()) throw ArgError("--remeasure-top needs --remeasure-before");
    s.remeasure_top = int(top);
  }
  if (args.get("jit")) {
    s.jit = args.list_or("jit", "");
    if (s.jit.empty()) throw ArgError("--jit needs a list of name fragments, or all");
  }
  for (const std::string& h : s.history)
    if (!std::filesystem::exists(h)) throw ArgError("--history: no such file '" + h + "'");
  s.gpus = args.get("gpus");
  const std::string measurer = args.get_or("measurer", "gpu");
  if (measurer != "gpu" && measurer != "synthetic")
    throw ArgError("unknown --measurer '" + measurer + "' (gpu or synthetic)");
  s.synthetic = measurer == "synthetic";
  if (s.synthetic && !s.db)
    throw ArgError("--measurer synthetic needs --db: its made-up numbers must not land in the "
                   "default database");
  s.user_table = args.get("user-table");
  s.no_user_table = args.flag("no-user-table");
  if (s.user_table && s.no_user_table)
    throw ArgError("--user-table and --no-user-table are exclusive");
  if (s.user_table && s.accums.size() > 1)
    throw ArgError("--user-table FILE holds one accumulation: pass one --acc, or leave "
                   "--user-table out (the default names one table per accumulation)");
  const std::string mode = args.get_or("mode", "graph");
  if (mode == "graph") s.gpu.mode = bench::Mode::kGraph;
  else if (mode == "offline") s.gpu.mode = bench::Mode::kOffline;
  else throw ArgError("unknown --mode '" + mode + "' (graph or offline)");
  const long long loops = args.int_or("loops", 5);
  if (loops < 5 || loops > 1000) throw ArgError("--loops must be 5..1000");
  s.gpu.timing.loops = int(loops);
  s.gpu.timing.loop_ms = args.double_or("loop-ms", 1.5);
  if (!(s.gpu.timing.loop_ms > 0 && s.gpu.timing.loop_ms <= 1000))
    throw ArgError("--loop-ms must be in (0, 1000]");
  s.gpu.seed = s.seed;
  s.gpu.quick_verify = args.flag("quick-verify");
  s.time_limit_s = args.double_or("time-limit", 0);
  if (!(s.time_limit_s >= 0)) throw ArgError("--time-limit must be >= 0");
  if (auto shard = args.get("shard")) {
    s.shard = parse_shard(*shard);
    if (!s.shard) throw ArgError("--shard expects I/N with 0 <= I < N, got '" + *shard + "'");
    if (s.gpus) throw ArgError("--shard (a worker) and --gpus (the launcher) are exclusive");
  }
  if (args.get("device")) {
    const long long d = args.int_or("device", 0);
    if (d < 0 || d > 1023) throw ArgError("--device must be a device ordinal");
    s.device = int(d);
  }
  return s;
}

std::string shard_path(const std::string& path, Shard shard) {
  return path + ".shard" + std::to_string(shard.index) + "of" + std::to_string(shard.count);
}

// The database each accumulation's measurements go to.
std::map<Accum, std::string> db_paths(const Settings& s, const std::string& gpu_name) {
  std::map<Accum, std::string> out;
  for (Accum a : s.accums) {
    out[a] = s.db ? *s.db : default_db_path(gpu_name, a);
    if (is_compressed_database(out[a])) throw ArgError(compressed_database_refusal(out[a]));
  }
  return out;
}

std::set<std::string> distinct(const std::map<Accum, std::string>& paths) {
  std::set<std::string> out;
  for (const auto& [accum, path] : paths) out.insert(path);
  return out;
}

// The user table each accumulation's winners go to (none with --no-user-table, and none for made-up
// timings unless named), each checked before anything is tuned: an existing table of another
// device or accumulation, or one that does not parse, is the user's and is never overwritten.
std::map<Accum, std::string> user_table_paths(const Settings& s, const DeviceInfo& device) {
  std::map<Accum, std::string> out;
  if (s.no_user_table || (s.synthetic && !s.user_table)) return out;
  std::map<std::string, Accum> owner;
  for (Accum a : s.accums) {
    const std::string path = s.user_table ? *s.user_table : dispatch::user_table_path(device.name, a);
    if (path.empty()) {
      std::fprintf(stderr, "hgemm tune: note: no cache directory (neither XDG_CACHE_HOME nor "
                           "HOME is set): no user table is written\n");
      return {};
    }
    if (auto [it, added] = owner.emplace(path, a); !added)
      throw ArgError("HGEMM_USER_TABLE=" + path + " names one table for both accumulations: "
                     "pass one --acc, or --user-table FILE per run");
    read_user_table(path, device.name, device.sm_count, a);
    out[a] = path;
  }
  return out;
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

void print_user_table(const UserTableWrite& w) {
  std::printf("  user table: %s (%zu entries, %zu from this run; a new process dispatches from "
              "it)\n",
              w.path.c_str(), w.entries, w.written);
}

Fingerprint running_fingerprint(const Settings& s, const DeviceInfo& device) {
  if (s.synthetic)
    return {{"gpu", device.name}, {"sm_count", std::to_string(device.sm_count)},
            {"measurer", "synthetic"}, {"git", bench::git_hash()}};
  Fingerprint out;
  for (const auto& [key, value] : bench::collect_environment())
    if (key != "date" && key != "nvml") out.emplace_back(key, value);
  return out;
}

std::string reproduce(const Problem& p, const std::string& config, bench::Mode mode) {
  return "hgemm bench --shape " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
         std::to_string(p.k) + " --layout " + std::string(to_string(p.layout)) + " --acc " +
         std::string(to_string(p.accum)) + " --impl config:" + config +
         ",cublaslt-best --modes " + std::string(bench::to_string(mode)) + " --out row.csv";
}

// The catalog plus the declared instances `filters` name. With `build`, each is compiled (or
// found in the JIT cache) first, all cores at a time, and one that fails to build stays out.
SearchSpace jit_space(const DeviceInfo& device, const std::vector<std::string>& filters, bool build,
                      const std::string& label) {
  std::vector<KernelConfig> extra;
  SearchSpace space = SearchSpace::with_declared(device, filters, &extra);
  if (!build) return space;
  jit::set_enabled(true);
  const jit::Options options = jit::Options::from_env();
  std::fprintf(stderr, "hgemm %s: JIT: building %zu instances into %s\n", label.c_str(),
               extra.size(), options.cache_dir.c_str());
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<KernelConfig> compiled = catalog();
  int cached = 0, failed = 0;
  for (const jit::Artifact& a : jit::build(extra, options)) {
    if (a.status.ok()) {
      compiled.push_back(a.config);
      cached += a.cached;
    } else if (++failed <= 5) {
      std::fprintf(stderr, "hgemm %s: JIT: %s\n", label.c_str(), a.status.message.c_str());
    }
  }
  std::fprintf(stderr, "hgemm %s: JIT: %zu ready (%d from the cache), %d failed, %.1f s\n",
               label.c_str(), extra.size() - size_t(failed), cached, failed,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return failed ? SearchSpace(compiled, device) : space;
}

// The problems tuned for these shapes. On sm_90 a TN call whose N is no multiple of 8 runs on a
// padded copy of C, and dispatch decides for the copy's problem (dispatch::padded_c_decided):
// tuning that one gives dispatch an entry it uses. Each is said under `label` where given.
std::vector<Problem> problems_to_tune(const std::vector<Shape>& shapes,
                                      const std::vector<Layout>& layouts,
                                      const std::vector<Accum>& accums, const DeviceInfo& device,
                                      const std::string* label) {
  std::vector<Problem> problems;
  std::set<std::string> seen;
  for (const Problem& given : expand_problems(shapes, layouts, accums)) {
    const Problem p = device.is_sm90() ? dispatch::padded_c_decided(given) : given;
    if (label && (p.m != given.m || p.n != given.n))
      std::printf("%s: %s runs on a padded copy of C (N %% 8 != 0): tuning %s, the problem "
                  "dispatch decides for it\n",
                  label->c_str(), given.name().c_str(), p.name().c_str());
    if (seen.insert(p.name()).second) problems.push_back(p);
  }
  return problems;
}

int run_worker(const Settings& s) {
  // The device query first: it names a missing device as such, where cudaSetDevice would
  // report a missing driver as an outdated one. Nothing is read or written before it.
  if (!s.synthetic) current_device();
  if (s.device && !s.synthetic) HGEMM_CUDA_CHECK(cudaSetDevice(*s.device));
  const DeviceInfo device = s.synthetic ? nominal_device("synthetic") : current_device();
  const Fingerprint fingerprint = running_fingerprint(s, device);
  const std::string label = s.shard ? "tune[" + std::to_string(s.shard->index) + "]" : "tune";
  const SearchSpace space = s.jit.empty() ? SearchSpace::from_catalog(device)
                                          : jit_space(device, s.jit, !s.synthetic, label);

  // History: every database this run writes to and this worker's own shard file (their records
  // count toward budgets with --resume), then the --history files (warm start only).
  const auto paths = db_paths(s, device.name);
  const std::map<Accum, std::string> user_tables =
      s.shard ? std::map<Accum, std::string>{} : user_table_paths(s, device);
  auto load_checked = [&](const std::string& file, std::vector<Record>& into, bool written) {
    Database db = load_database(file);
    for (const std::string& e : db.errors)
      std::fprintf(stderr, "hgemm %s: error: %s (line skipped; the rest is used)\n",
                   label.c_str(), e.c_str());
    const FingerprintCheck check = compare_fingerprints(db.header, fingerprint);
    // A warm start only orders the candidates and seeds the policy, and every winner is measured
    // here: another GPU of this SM count (the H100's history on an H200) serves as that prior.
    const bool prior_from_sibling =
        !written && fingerprint_value(db.header, "sm_count") == std::to_string(device.sm_count);
    if (!check.same_device && !prior_from_sibling)
      HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED, file + " was tuned on another device (" +
                                                 check.differences.front() + "); pass another " +
                                                 (written ? "--db" : "--history"));
    if (const std::string why = timing_mismatch(db.header, !db.records.empty(), fingerprint);
        written && !why.empty())
      HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED, file + ": " + why);
    for (const std::string& d : check.differences)
      std::fprintf(stderr, "hgemm %s: note: %s differs from this run: %s\n", label.c_str(),
                   file.c_str(), d.c_str());
    into.insert(into.end(), db.records.begin(), db.records.end());
  };
  std::vector<Record> history, warm_only;
  // The databases as they grow, for the user table's winners: exported as `hgemm db export`
  // would export the file, without reading it back after every problem.
  std::map<std::string, Database> written;
  for (const std::string& path : distinct(paths)) {
    const size_t before = history.size();
    load_checked(path, history, true);
    if (s.shard) load_checked(shard_path(path, *s.shard), history, true);
    if (!user_tables.empty()) {
      Database& db = written[path];
      db.header = fingerprint;
      db.records.assign(history.begin() + long(before), history.end());
    }
  }
  for (const std::string& file : s.history) load_checked(file, warm_only, false);

  std::unique_ptr<Measurer> measurer;
  if (s.synthetic) measurer = std::make_unique<SyntheticMeasurer>();
  else measurer = std::make_unique<GpuMeasurer>(s.gpu);
  std::unique_ptr<SearchPolicy> policy = make_policy(s.policy, s.seed);
  TuneOptions options;
  options.budget = s.budget;
  options.include = s.include;
  options.remeasure_before = s.remeasure_before;
  options.remeasure_top = s.remeasure_top;
  options.history_top = s.history_top;
  Tuner tuner(space, *policy, *measurer, options);
  tuner.load_prior(warm_only);
  tuner.load_history(history, s.resume);

  std::map<std::string, std::unique_ptr<DatabaseWriter>> writers;
  for (const std::string& path : distinct(paths)) {
    const std::string target = s.shard ? shard_path(path, *s.shard) : path;
    writers[path] = std::make_unique<DatabaseWriter>(target, fingerprint);
  }

  const std::vector<Problem> problems = problems_to_tune(
      s.shard ? take_shard(s.shapes, *s.shard) : s.shapes, s.layouts, s.accums, device, &label);
  Progress progress(label, long(problems.size()));
  const bool draw = !s.shard && isatty(STDERR_FILENO);
  std::vector<ProblemResult> results;
  std::map<Accum, std::vector<Problem>> tuned_problems;
  std::map<Accum, UserTableWrite> user_writes;
  std::set<Accum> user_table_failed;
  // A failed write costs the user table, never the run: the database has every record, and
  // `hgemm db export DB --user-table` rebuilds the table from it.
  auto update_user_table_for = [&](Accum a) {
    const auto where = user_tables.find(a);
    if (where == user_tables.end() || user_table_failed.count(a)) return;
    const std::string& db_path = paths.at(a);
    try {
      const dispatch::Table tuned =
          export_problems(written.at(db_path), a, tuned_problems[a], file_name(db_path));
      user_writes[a] = update_user_table(where->second, tuned, tuned_problems[a]);
    } catch (const Error& e) {
      user_table_failed.insert(a);
      std::fprintf(stderr, "hgemm %s: warning: user table not updated: %s; tuning goes on (hgemm "
                           "db export %s --acc %s --user-table writes it later)\n",
                   label.c_str(), e.what(), db_path.c_str(), std::string(to_string(a)).c_str());
    }
  };
  long candidates = 0, failures = 0;
  bool stopped_early = false;
  for (const Problem& p : problems) {
    if (s.time_limit_s > 0 && progress.seconds() > s.time_limit_s) {
      stopped_early = true;
      break;
    }
    DatabaseWriter& writer = *writers.at(paths.at(p.accum));
    Database* kept = written.count(paths.at(p.accum)) ? &written.at(paths.at(p.accum)) : nullptr;
    const ProblemResult r = tuner.tune(p, [&](const Record& rec) {
      writer.append(rec);
      if (kept) kept->records.push_back(rec);
    });
    tuned_problems[p.accum].push_back(p);
    update_user_table_for(p.accum);
    candidates += r.measured_now;
    failures += r.failures_now;
    results.push_back(r);
    char extra[160];
    std::snprintf(extra, sizeof extra, "candidates %ld  geomean %.3fx  %s", candidates,
                  geomean_speedup(results), p.name().c_str());
    if (draw) {
      progress.update(long(results.size()), failures, extra);
    } else if (r.best) {
      std::printf("%s %zu/%zu %s: %s %.2f us, %.3fx cuBLASLt (%d measured, %d now)\n  %s\n",
                  label.c_str(), results.size(), problems.size(), p.name().c_str(),
                  r.best->config.c_str(), r.best->measurement.median_us,
                  r.best->measurement.speedup(), r.measured_total, r.measured_now,
                  reproduce(p, r.best->config, s.gpu.mode).c_str());
    } else {
      std::printf("%s %zu/%zu %s: no passing candidate (%d measured)\n", label.c_str(),
                  results.size(), problems.size(), p.name().c_str(), r.measured_total);
    }
    std::fflush(stdout);
  }
  if (draw) progress.finish();
  if (const std::string state = policy->save(); !state.empty() && candidates > 0)
    for (auto& [path, writer] : writers) writer->append(PolicyState{s.policy, state});

  std::printf("%s %s: %zu of %zu shape x layout x acc tuned, %ld candidates measured (%ld failed), "
              "geomean best speedup over cuBLASLt %.3fx, %zu configs blocklisted, %.1f s\n",
              label.c_str(), s.suite_label.c_str(), results.size(), problems.size(), candidates,
              failures, geomean_speedup(results), tuner.blocklist().size(), progress.seconds());
  for (const auto& [path, writer] : writers)
    std::printf("  database: %s\n", writer->path().c_str());
  for (const auto& [accum, w] : user_writes) print_user_table(w);
  if (stopped_early) {
    std::printf("INCOMPLETE: --time-limit %.0f s reached; rerun with --resume to continue\n",
                s.time_limit_s);
    return kExitIncomplete;
  }
  return 0;
}

std::vector<int> resolve_gpus(const Settings& s) {
  if (*s.gpus != "all") {
    std::vector<int> out;
    for (const std::string& item : split(*s.gpus, ',')) {
      char* end = nullptr;
      const long d = std::strtol(item.c_str(), &end, 10);
      if (end == item.c_str() || *end != '\0' || d < 0 || d > 1023)
        throw ArgError("--gpus expects device ordinals (0,1,...) or all, got '" + item + "'");
      if (std::find(out.begin(), out.end(), int(d)) == out.end()) out.push_back(int(d));
    }
    if (out.empty()) throw ArgError("--gpus needs at least one device");
    return out;
  }
  if (s.synthetic) throw ArgError("--measurer synthetic has no devices to count; list them");
  int count = 0;
  HGEMM_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count < 1) HGEMM_THROW(HGEMM_ERROR_NO_DEVICE, "--gpus all: no CUDA device is visible");
  std::vector<int> out;
  for (int i = 0; i < count; ++i) out.push_back(i);
  return out;
}

// The same command line for each worker, --gpus replaced by its shard and device.
std::vector<std::string> worker_args(const Args& raw, Shard shard, int device) {
  std::vector<std::string> out{"tune"};
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == "--gpus") {
      ++i;
      continue;
    }
    if (raw[i].rfind("--gpus=", 0) == 0) continue;
    out.push_back(raw[i]);
  }
  out.insert(out.end(), {"--shard", std::to_string(shard.index) + "/" + std::to_string(shard.count),
                         "--device", std::to_string(device)});
  return out;
}

int run_launcher(const Settings& s, const Args& raw) {
  const DeviceInfo device = s.synthetic ? nominal_device("synthetic") : current_device();
  const std::string& gpu_name = device.name;
  const std::vector<int> gpus = resolve_gpus(s);
  const auto paths = db_paths(s, gpu_name);
  const std::map<Accum, std::string> user_tables = user_table_paths(s, device);
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) HGEMM_THROW(HGEMM_ERROR_INTERNAL, "cannot find this executable: " + ec.message());

  std::fflush(stdout);
  std::fflush(stderr);
  const int n = int(gpus.size());
  std::vector<pid_t> workers;
  for (int i = 0; i < n; ++i) {
    const std::vector<std::string> args = worker_args(raw, Shard{i, n}, gpus[size_t(i)]);
    std::vector<char*> argv{const_cast<char*>(self.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) HGEMM_THROW(HGEMM_ERROR_INTERNAL, "fork failed");
    if (pid == 0) {
      execv(self.c_str(), argv.data());
      std::perror("hgemm tune: exec of a worker failed");
      _exit(127);
    }
    std::printf("tune: worker %d/%d on device %d (pid %d)\n", i, n, gpus[size_t(i)], int(pid));
    std::fflush(stdout);
    workers.push_back(pid);
  }
  int worst = 0;
  for (size_t i = 0; i < workers.size(); ++i) {
    int status = 0;
    while (waitpid(workers[i], &status, 0) < 0 && errno == EINTR) {
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (code != 0)
      std::fprintf(stderr, "hgemm tune: worker %zu exited with %d; merging what it saved\n", i,
                   code);
    if (code == kExitIncomplete && worst == 0) worst = kExitIncomplete;
    else if (code != 0 && code != kExitIncomplete) worst = 1;
  }

  // Every worker's shard file into its database, atomically; a shard is removed once merged.
  for (const std::string& path : distinct(paths)) {
    std::vector<Database> parts{load_database(path)};
    std::vector<std::string> merged_files;
    for (int i = 0; i < n; ++i) {
      const std::string file = shard_path(path, Shard{i, n});
      if (!std::filesystem::exists(file)) continue;
      parts.push_back(load_database(file));
      merged_files.push_back(file);
    }
    // Workers that all stopped before measuring leave nothing to merge, and rewriting the
    // database anyway would drop its unreadable lines for no gain.
    if (merged_files.empty()) continue;
    Database merged = merge_databases(parts);
    for (const std::string& e : merged.errors)
      std::fprintf(stderr, "hgemm tune: error: %s (line skipped in the merge)\n", e.c_str());
    merged.errors.clear();
    write_database(path, merged);
    for (const std::string& file : merged_files) std::filesystem::remove(file, ec);
    std::printf("tune: merged %zu worker files into %s (%zu records)\n", merged_files.size(),
                path.c_str(), merged.records.size());
  }
  // The workers leave the user table to the launcher: several read-merge-writes of one file at
  // once would lose each other's shapes.
  for (const auto& [accum, table_path] : user_tables) {
    const std::string& db_path = paths.at(accum);
    if (!std::filesystem::exists(db_path)) continue;
    const std::vector<Problem> problems =
        problems_to_tune(s.shapes, s.layouts, {accum}, device, nullptr);
    const dispatch::Table tuned =
        export_problems(load_database(db_path), accum, problems, file_name(db_path));
    // Only shapes with a winner are replaced: a worker that died may never have reached the
    // others, whose entries then stay as they were.
    std::vector<Problem> replaced;
    for (const dispatch::TableEntry& e : tuned.entries)
      replaced.push_back({e.m, e.n, e.k, e.layout, accum});
    print_user_table(update_user_table(table_path, tuned, replaced));
  }
  return worst;
}

}  // namespace

int cmd_tune(const Args& raw) {
  bool help = false;
  try {
    const Settings settings = parse_settings(raw, &help);
    if (help) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    return settings.gpus ? run_launcher(settings, raw) : run_worker(settings);
  } catch (const ArgError& e) {
    std::fprintf(stderr, "hgemm tune: %s\n", e.what());
    return 2;
  }
}

}  // namespace hgemm::cli
