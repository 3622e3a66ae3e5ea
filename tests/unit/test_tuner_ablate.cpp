// The policy ablation (`hgemm ablate`): the replay measurer, the curves computed from a table
// that an exhaustive run over the synthetic landscape filled, the SVG writer, and the command's
// argument errors. CPU only.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.hpp"
#include "core/file_io.hpp"
#include "tuner/ablation.hpp"
#include "tuner/measure/replay_measurer.hpp"
#include "tuner/measure/synthetic_measurer.hpp"
#include "tuner/tune.hpp"

#include "temp_dir.hpp"

namespace hgemm::tuner {
namespace {

namespace fs = std::filesystem;

KernelConfig sm90(int bm, int bn, int bk, int stages, int wgs, int cm, int cn, Epilogue e,
                  Layout layout, Accum accum) {
  KernelConfig c;
  c.family = Family::kSm90Ws;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.num_stages = stages;
  c.num_consumer_wgs = wgs;
  c.cluster_m = cm;
  c.cluster_n = cn;
  c.epilogue = e;
  c.layout = layout;
  c.accum = accum;
  return c;
}

// Today's catalog in shape: five sm90 instances and two sm80, in every layout and accumulation.
std::vector<KernelConfig> catalog_like() {
  std::vector<KernelConfig> out;
  for (Layout l : {Layout::kNN, Layout::kTN})
    for (Accum a : {Accum::kF32, Accum::kF16}) {
      out.push_back(sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore, l, a));
      out.push_back(sm90(128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore, l, a));
      out.push_back(sm90(256, 128, 64, 4, 2, 2, 1, Epilogue::kDirect, l, a));
      out.push_back(sm90(64, 256, 64, 4, 1, 1, 1, Epilogue::kTmaStore, l, a));
      out.push_back(sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect, l, a));
      for (int tile : {128, 64}) {
        KernelConfig c;
        c.block_m = c.block_n = tile;
        c.layout = l;
        c.accum = a;
        out.push_back(c);
      }
    }
  return out;
}

// Shapes log-uniform over 64..16384 per dimension, some 1.5x off the powers of two.
std::vector<Problem> shapes(uint64_t seed, int count) {
  Rng rng(seed);
  auto dim = [&] {
    int64_t v = int64_t(1) << (6 + rng.below(9));
    return rng.uniform() < 0.3 ? v * 3 / 2 : v;
  };
  std::vector<Problem> out;
  for (int i = 0; i < count; ++i) {
    Problem p{dim(), dim(), dim(), Layout::kTN, Accum::kF32};
    p.layout = rng.uniform() < 0.5 ? Layout::kNN : Layout::kTN;
    out.push_back(p);
  }
  return out;
}

// What `hgemm tune --policy exhaustive` writes: every candidate of every problem.
std::vector<Record> exhaustive_table(const SearchSpace& space, const std::vector<Problem>& ps,
                                     SyntheticOptions options = {}) {
  SyntheticMeasurer measurer(std::move(options));
  ExhaustiveSearch policy;
  TuneOptions o;
  o.budget = 0;
  o.clock = [] { return std::string("2026-01-01T00:00:00Z"); };
  Tuner tuner(space, policy, measurer, o);
  std::vector<Record> out;
  for (const Problem& p : ps) tuner.tune(p, [&](const Record& r) { out.push_back(r); });
  return out;
}

size_t most_candidates(const SearchSpace& space, const std::vector<Problem>& ps) {
  size_t most = 0;
  for (const Problem& p : ps) most = std::max(most, space.enumerate(p).size());
  return most;
}

TEST(TunerAblate, ReplayAnswersFromTheTable) {
  const SearchSpace space(catalog_like(), nominal_device());
  const auto problems = shapes(3, 4);
  const auto table = exhaustive_table(space, problems);
  ReplayMeasurer replay(table);
  EXPECT_EQ(replay.pairs(), table.size());
  for (const Record& r : table) {
    const Measurement m = replay.measure(r.problem, *KernelConfig::parse(r.config));
    EXPECT_EQ(m.disposition, r.measurement.disposition);
    EXPECT_EQ(m.median_us, r.measurement.median_us);
    EXPECT_EQ(m.reference_us, r.measurement.reference_us);
    EXPECT_EQ(m.error_ratio, r.measurement.error_ratio);
  }
  EXPECT_EQ(replay.calls(), long(table.size()));
  EXPECT_EQ(replay.misses(), 0);

  // A problem the table never saw: not supported, with the reason.
  const Problem unknown{777, 333, 1024, Layout::kTN, Accum::kF32};
  const Measurement m = replay.measure(unknown, space.enumerate(unknown).front());
  EXPECT_EQ(m.disposition, Disposition::kNotSupported);
  EXPECT_EQ(m.detail, "not in the replay table");
  EXPECT_FALSE(m.timed());
  EXPECT_EQ(replay.misses(), 1);

  // Several records of a pair: the timed one of median time answers, failures aside.
  std::vector<Record> repeated(4, table.front());
  repeated[0].measurement.median_us = 30;
  repeated[1].measurement.median_us = 10;
  repeated[2].measurement.median_us = 20;
  repeated[3].measurement = Measurement{};
  repeated[3].measurement.disposition = Disposition::kLaunchFailed;
  EXPECT_EQ(ReplayMeasurer(repeated).find(table.front().problem, table.front().config)->median_us,
            20);
}

TEST(TunerAblate, CurvesFromAnExhaustiveTable) {
  const SearchSpace space(catalog_like(), nominal_device());
  // Some sm80 configs cannot run short-K shapes: evaluations without a speedup.
  SyntheticOptions faults;
  faults.fault = [](const Problem& p, const KernelConfig& c) -> std::optional<Disposition> {
    if (c.family == Family::kSm80Mma && p.k < 512) return Disposition::kNotSupported;
    return std::nullopt;
  };
  const auto problems = shapes(17, 12);
  const auto table = exhaustive_table(space, problems, faults);
  const int candidates = int(most_candidates(space, problems));
  AblationOptions o;
  o.max_evals = candidates + 2;
  o.seeds = 6;
  const AblationResult r = run_ablation(table, nullptr, space, o);
  ASSERT_EQ(r.problems.size(), problems.size());
  ASSERT_EQ(r.curves.size(), 3u);
  EXPECT_FALSE(r.warm);
  for (const AblationProblem& p : r.problems) {
    EXPECT_EQ(p.missing, 0);
    EXPECT_TRUE(p.optimum_in_space);
    EXPECT_GE(p.optimum, p.floor);
  }

  for (const PolicyCurve& c : r.curves) {
    ASSERT_EQ(c.geomean_ratio.size(), size_t(o.max_evals)) << c.policy;
    EXPECT_EQ(c.runs, c.policy == "exhaustive" ? 1 : o.seeds);
    EXPECT_EQ(c.not_in_table, 0);
    for (size_t i = 1; i < c.geomean_ratio.size(); ++i) {
      EXPECT_GE(c.geomean_ratio[i], c.geomean_ratio[i - 1]) << c.policy << " n=" << i + 1;
      EXPECT_GE(c.geomean_speedup[i], c.geomean_speedup[i - 1]) << c.policy;
      EXPECT_GE(c.frac_within[i], c.frac_within[i - 1]) << c.policy;
    }
    for (double v : c.geomean_ratio) EXPECT_LE(v, 1.0 + 1e-12) << c.policy;
    // Every policy has measured every candidate by then.
    EXPECT_NEAR(c.geomean_ratio[size_t(candidates) - 1], 1.0, 1e-12) << c.policy;
    EXPECT_NEAR(c.geomean_speedup[size_t(candidates) - 1], r.optimum_geomean(), 1e-9);
    EXPECT_DOUBLE_EQ(c.frac_within.back(), 1.0);
    ASSERT_TRUE(c.evals_to_target) << c.policy;
    EXPECT_LE(*c.evals_to_target, candidates);
    EXPECT_DOUBLE_EQ(c.frac_reached, 1.0);
  }

  // The exhaustive curve by hand: the space's order, best so far, slowest entry until a speedup.
  const PolicyCurve& exhaustive = *r.curve("exhaustive");
  ReplayMeasurer replay(table);
  for (int n : {1, 2, 5, 20}) {
    double log_ratio = 0;
    for (const AblationProblem& p : r.problems) {
      double best = 0;
      const auto all = space.enumerate(p.problem);
      for (size_t i = 0; i < std::min(all.size(), size_t(n)); ++i)
        if (const Measurement* m = replay.find(p.problem, all[i].name()); m->timed())
          best = std::max(best, m->speedup());
      log_ratio += std::log((best > 0 ? best : p.floor) / p.optimum);
    }
    EXPECT_NEAR(exhaustive.geomean_ratio[size_t(n) - 1],
                std::exp(log_ratio / double(r.problems.size())), 1e-12)
        << "n=" << n;
  }

  // The report and the CSV carry every curve.
  const std::string csv = ablation_csv(r);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * o.max_evals);
  EXPECT_EQ(csv.rfind("policy,n,geomean_speedup,geomean_ratio,frac_within_2pct\n", 0), 0u);
  const std::string md = ablation_markdown(r, {});
  for (const char* needle : {"replay", "exhaustive", "random", "rl cold", "## Acceptance"})
    EXPECT_NE(md.find(needle), std::string::npos) << needle;
}

TEST(TunerAblate, WarmRlBeatsRandomEarly) {
  const SearchSpace space(catalog_like(), nominal_device());
  const auto problems = shapes(29, 12);
  const auto table = exhaustive_table(space, problems);
  auto history = exhaustive_table(space, shapes(101, 40));
  const size_t other = history.size();
  // Records on the ablation's own shapes must be held out of the warm start.
  history.insert(history.end(), table.begin(), table.end());
  AblationOptions o;
  o.max_evals = 16;
  o.seeds = 8;
  const AblationResult r = run_ablation(table, &history, space, o);
  EXPECT_TRUE(r.warm);
  EXPECT_EQ(r.history_records, other);
  EXPECT_EQ(r.history_held_out, table.size());
  const PolicyCurve* warm = r.curve("rl warm");
  const PolicyCurve* random = r.curve("random");
  ASSERT_TRUE(warm && random);
  std::printf("geomean ratio to the optimum at n = 4: random %.4f, rl cold %.4f, rl warm %.4f\n",
              random->geomean_ratio[3], r.curve("rl cold")->geomean_ratio[3],
              warm->geomean_ratio[3]);
  EXPECT_GT(warm->geomean_ratio[3], random->geomean_ratio[3]);
  const Acceptance a = judge(r, "rl warm");
  EXPECT_FALSE(a.explanation.empty());
}

TEST(TunerAblate, AcceptanceRule) {
  AblationResult r;
  r.options.max_evals = 64;
  r.curves.resize(2);
  r.curves[0].policy = "random";
  r.curves[1].policy = "rl warm";
  auto set = [&](std::optional<int> random_n, std::optional<int> rl_n) {
    r.curves[0].evals_to_target = random_n;
    r.curves[1].evals_to_target = rl_n;
    return judge(r, "rl warm").outcome;
  };
  using O = Acceptance::Outcome;
  EXPECT_EQ(set(40, 10), O::kPass);
  EXPECT_EQ(set(40, 11), O::kFail);
  EXPECT_EQ(set(40, std::nullopt), O::kFail);
  EXPECT_EQ(set(std::nullopt, 16), O::kPass);  // random needs at least 65
  EXPECT_EQ(set(std::nullopt, 17), O::kUndecided);
  EXPECT_EQ(judge(r, "rl cold").outcome, O::kFail);  // no such curve
}

TEST(TunerAblate, RejectsTablesWithoutTimings) {
  const SearchSpace space(catalog_like(), nominal_device());
  std::vector<Record> table = exhaustive_table(space, shapes(5, 1));
  for (Record& rec : table) {
    rec.measurement = Measurement{};
    rec.measurement.disposition = Disposition::kNotSupported;
  }
  EXPECT_THROW(run_ablation(table, nullptr, space, {}), std::invalid_argument);
  EXPECT_THROW(run_ablation({}, nullptr, space, {}), std::invalid_argument);
  AblationOptions bad;
  bad.max_evals = 0;
  EXPECT_THROW(run_ablation(exhaustive_table(space, shapes(5, 1)), nullptr, space, bad),
               std::invalid_argument);
  EXPECT_EQ(size_bucket(Problem{64, 64, 64}), 0);
  EXPECT_EQ(size_bucket(Problem{1000, 1000, 500}), 1);  // exactly 1e9
  EXPECT_EQ(size_bucket(Problem{16384, 16384, 16384}), 4);
}

// An exhaustive table over `shapes` (TN, f32) from the synthetic measurer, at dir/exh.jsonl.
std::string synthetic_table(const TempDir& dir, const std::string& shapes) {
  const std::string db = dir.file("exh.jsonl");
  const CliResult r = run_cli("tune --shape " + shapes + " --layout tn --acc f32 " +
                              "--policy exhaustive --measurer synthetic --db " + db);
  EXPECT_EQ(r.code, 0) << r.output;
  return db;
}

TEST(TunerAblate, CommandEndToEndAndErrors) {
  TempDir dir;
  const std::string db = synthetic_table(dir, "256x512x1024,4096x4096x1024,64x8192x2048");
  const std::string out = dir.file("out");
  CliResult r = run_cli("ablate --table " + db + " --history " + db + " --seeds 3 --max-evals 16 --out " +
              out);
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string md = slurp(out + "/ablation.md");
  EXPECT_NE(md.find("replay"), std::string::npos);
  EXPECT_NE(md.find("rl warm"), std::string::npos);
  EXPECT_NE(md.find("--ablation ablation.csv"), std::string::npos);
  EXPECT_NE(slurp(out + "/ablation.csv").find("rl cold,16,"), std::string::npos);

  auto expect_usage_error = [&](const std::string& args, const std::string& needle) {
    const CliResult e = run_cli(args);
    EXPECT_EQ(e.code, 2) << args << "\n" << e.output;
    EXPECT_NE(e.output.find(needle), std::string::npos) << args << "\n" << e.output;
  };
  expect_usage_error("ablate --out " + out, "--table is required");
  expect_usage_error("ablate --table " + db, "--out is required");
  expect_usage_error("ablate --table " + dir.file("missing.jsonl") + " --out " + out,
                     "cannot read --table");
  expect_usage_error("ablate --table " + db + " --history " + dir.file("none") + " --out " + out,
                     "cannot read --history");
  expect_usage_error("ablate --table " + db + " --max-evals 0 --out " + out, "--max-evals");
  expect_usage_error("ablate --table " + db + " --seeds x --out " + out, "expects an integer");
  expect_usage_error("ablate --table " + db + " --space jit --out " + out, "--space must be");
  {
    std::ofstream untimed(dir.file("untimed.jsonl"));
    untimed << slurp(db).substr(0, slurp(db).find('\n') + 1)
            << R"({"type":"measurement","m":64,"n":64,"k":64,"layout":"tn","acc":"f32",)"
            << R"("config":"sm80_mma_128x128x32_s3_w2x2_sk1_f32_tn","disposition":"incorrect"})"
            << "\n";
  }
  expect_usage_error("ablate --table " + dir.file("untimed.jsonl") + " --out " + out,
                     "no timed measurement");
  EXPECT_EQ(run_cli("ablate --help").code, 0);
}

// A table measured before the catalog grew: --space table offers only what it measured (every
// candidate has an answer); --space catalog offers this build's catalog and answers the rest
// not_supported.
TEST(TunerAblate, SpaceIsTheTablesInstancesByDefault) {
  TempDir dir;
  const std::string db = synthetic_table(dir, "256x512x1024,4096x4096x1024");
  const std::string part = dir.file("part.jsonl");
  {
    std::istringstream all(slurp(db));
    std::ofstream out(part);
    std::string line;
    bool header = true;
    int kept = 0;
    while (std::getline(all, line)) {
      if (header || line.find("\"config\":\"sm90_ws_64x") != std::string::npos) {
        out << line << "\n";
        kept += !header;
      }
      header = false;
    }
    ASSERT_GT(kept, 0);
  }
  auto missing_line = [&](const std::string& space) {
    const std::string out = dir.file("out-" + space);
    const CliResult a = run_cli("ablate --table " + part + " --seeds 2 --max-evals 8 --space " +
                                space + " --out " + out);
    EXPECT_EQ(a.code, 0) << a.output;
    const std::string md = slurp(out + "/ablation.md");
    const size_t at = md.find(" of them are not in the table");
    EXPECT_NE(at, std::string::npos) << md;
    return md.substr(md.rfind("); ", at) + 3, at - md.rfind("); ", at) - 3);
  };
  EXPECT_EQ(missing_line("table"), "0");
  EXPECT_NE(missing_line("catalog"), "0");
}

// --history: its records warm-start the policy but neither count toward the budget of the
// database being written nor get written to themselves.
TEST(TunerCli, HistoryWarmStartsWithoutCountingOrWriting) {
  TempDir dir;
  const std::string old_db = dir.file("old.jsonl"), new_db = dir.file("new.jsonl");
  const std::string tune = "tune --shape 4096x4096x1024 --layout tn --acc f32 --budget 3 "
                           "--measurer synthetic --resume ";
  CliResult r = run_cli(tune + "--db " + old_db);
  ASSERT_EQ(r.code, 0) << r.output;
  auto measurements = [&](const std::string& path) {
    const std::string text = slurp(path);
    size_t n = 0;
    for (size_t at = text.find("\"measurement\""); at != std::string::npos;
         at = text.find("\"measurement\"", at + 1))
      ++n;
    return n;
  };
  ASSERT_EQ(measurements(old_db), 3u);
  const std::string before = slurp(old_db);
  r = run_cli(tune + "--db " + new_db + " --history " + old_db);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(measurements(new_db), 3u) << "history must not count toward the budget";
  EXPECT_EQ(slurp(old_db), before) << "history must not be written to";
  r = run_cli(tune + "--db " + new_db + " --history " + dir.file("missing.jsonl"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--history: no such file"), std::string::npos) << r.output;
}

// --history from another GPU: a prior where the SM count is this device's (the H100's history on
// an H200), refused where it is not; --db, which is written, must be this device's.
TEST(TunerCli, HistoryFromAnotherGpuOfTheSameSmCountIsAPrior) {
  TempDir dir;
  const std::string own = dir.file("own.jsonl");
  const std::string tune = "tune --shape 4096x4096x1024 --layout tn --acc f32 --budget 3 "
                           "--measurer synthetic --resume ";
  ASSERT_EQ(run_cli(tune + "--db " + own).code, 0);
  std::string text = slurp(own);
  const std::string synthetic = "\"gpu\":\"synthetic\"";
  ASSERT_NE(text.find(synthetic), std::string::npos) << text.substr(0, 200);
  text.replace(text.find(synthetic), synthetic.size(), "\"gpu\":\"NVIDIA H100 80GB HBM3\"");
  const std::string sibling = dir.file("sibling.jsonl");
  write_file_atomically(sibling, text);
  CliResult r = run_cli(tune + "--db " + dir.file("new.jsonl") + " --history " + sibling);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("differs from this run: gpu"), std::string::npos) << r.output;

  const std::string sm_count = "\"sm_count\":\"132\"";
  ASSERT_NE(text.find(sm_count), std::string::npos) << text.substr(0, 200);
  text.replace(text.find(sm_count), sm_count.size(), "\"sm_count\":\"114\"");
  const std::string other = dir.file("other.jsonl");
  write_file_atomically(other, text);
  r = run_cli(tune + "--db " + dir.file("new2.jsonl") + " --history " + other);
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("was tuned on another device"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pass another --history"), std::string::npos) << r.output;
  // Written to, a sibling's database is refused all the same.
  r = run_cli(tune + "--db " + sibling);
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("pass another --db"), std::string::npos) << r.output;
}

// --include: matching candidates are measured on top of the budget, first, and only once.
TEST(TunerCli, IncludeMeasuresMatchingCandidatesOnTopOfTheBudget) {
  TempDir dir;
  const std::string db = dir.file("db.jsonl");
  const std::string tune = "tune --shape 8192x8192x512 --layout tn --acc f32 --budget 3 "
                           "--measurer synthetic --resume --db " + db;
  ASSERT_EQ(run_cli(tune).code, 0);
  auto configs = [&] {
    std::vector<std::string> out;
    const std::string text = slurp(db), key = "\"config\":\"";
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
      const size_t begin = at + key.size();
      out.push_back(text.substr(begin, text.find('"', begin) - begin));
    }
    return out;
  };
  const auto before = configs();
  ASSERT_EQ(before.size(), 3u);
  ASSERT_EQ(run_cli(tune + " --include sm90_pp_").code, 0);
  const auto after = configs();
  ASSERT_GT(after.size(), before.size()) << "the catalog has ping-pong candidates for this shape";
  for (size_t i = before.size(); i < after.size(); ++i)
    EXPECT_NE(after[i].find("sm90_pp_"), std::string::npos) << after[i];
  ASSERT_EQ(run_cli(tune + " --include sm90_pp_").code, 0);
  EXPECT_EQ(configs().size(), after.size()) << "nothing is measured twice";
}

}  // namespace
}  // namespace hgemm::tuner
