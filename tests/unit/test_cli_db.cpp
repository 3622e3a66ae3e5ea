// `hgemm db` on inputs it cannot use: no device (it needs none when it is told which database),
// a path that names nothing, a file that is not a database, a saved policy state that is corrupt;
// and `db predict --rank`, the saved policy's whole ranking, against a policy of known order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "temp_dir.hpp"
#include "tuner/policy/softmax_policy.hpp"
#include "tuner/space/space.hpp"

namespace {


// Bytes of no format, newlines included (a foreign file as `hgemm db` would meet it).
std::string random_bytes(size_t size) {
  std::string out(size, '\0');
  uint32_t x = 2463534242u;
  for (char& c : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = char(x & 0xff);
  }
  return out;
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

}  // namespace

TEST(CliDb, HonoursHgemmDbWithoutADevice) {
  TempDir dir;
  const std::string db = dir.file("tuned.jsonl");
  write(db, kDatabase);
  const CliResult r = run_cli("db show --layout tn", std::string(kNoDevice) + " HGEMM_DB=" + db);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("database " + db), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn"), std::string::npos)
      << r.output;
  // Neither a path nor HGEMM_DB: the default database is named by the GPU, so none can be chosen.
  const CliResult none = run_cli("db show", std::string(kNoDevice) + " HGEMM_DB=");
  EXPECT_NE(none.code, 0) << none.output;
  EXPECT_NE(none.output.find("no CUDA device"), std::string::npos) << none.output;
}

TEST(CliDb, MissingPathFails) {
  TempDir dir;
  const std::string missing = dir.file("missing.jsonl");
  for (const std::string sub : {"show ", "stats ", "predict --shape 64x64x64 "}) {
    const CliResult r = run_cli("db " + sub + missing);
    EXPECT_NE(r.code, 0) << sub << r.output;
    EXPECT_NE(r.output.find("no tuning database at " + missing), std::string::npos) << r.output;
  }
  const CliResult r = run_cli("db show", "HGEMM_DB=" + missing);
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("no tuning database at " + missing), std::string::npos) << r.output;
}

TEST(CliDb, ForeignFileIsNotATuningDatabase) {
  TempDir dir;
  const std::string foreign = dir.file("random.bin");
  write(foreign, random_bytes(64 * 1024));
  const CliResult r = run_cli("db show " + foreign);
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_EQ(count(r.output, "not a tuning database"), 1u) << r.output;
  EXPECT_NE(r.output.find(foreign + " is not a tuning database"), std::string::npos) << r.output;
  EXPECT_EQ(count(r.output, "line skipped"), 0u) << r.output;

  // merge replaces --out, so a foreign --out is refused and kept.
  const std::string db = dir.file("tuned.jsonl");
  write(db, kDatabase);
  const std::string before = slurp(foreign);
  const CliResult m = run_cli("db merge --out " + foreign + " " + db);
  EXPECT_NE(m.code, 0) << m.output;
  EXPECT_NE(m.output.find("not a tuning database"), std::string::npos) << m.output;
  EXPECT_EQ(slurp(foreign), before);
}

TEST(CliDb, WarnsAboutACorruptPolicyState) {
  TempDir dir;
  const std::string db = dir.file("tuned.jsonl");
  write(db, kDatabase + "{\"type\":\"policy\",\"policy\":\"rl\",\"state\":\"softmax 7 x1 y2\"}\n");
  CliResult r = run_cli("db show " + db);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: " + db + ": the saved policy state is corrupt"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("policy state unreadable"), std::string::npos) << r.output;
  r = run_cli("db stats " + db);
  EXPECT_NE(r.output.find("policy state unreadable"), std::string::npos) << r.output;
}

// A policy whose preferences are known without the tuner: every weight zero but the one on
// log2(block_n) / 8, set to 8 ln 2, so a config's score is ln(block_n) and its probability
// block_n / (the sum of block_n over the shape's candidates). Ranks follow block_n, equal ones in
// enumeration order (as the policy's argmax breaks ties).
TEST(CliDb, PredictRanksTheSavedPolicysCandidates) {
  using namespace hgemm;
  using namespace hgemm::tuner;
  constexpr int kBlockN = 2;  // Features::config_names(): "log_block_n", times the bias (1)
  constexpr int kCost = Features::kProblem * Features::kConfig + Features::kJoint - 1;
  ASSERT_EQ(Features::config_names()[kBlockN], "log_block_n");
  ASSERT_EQ(Features::joint_names()[Features::kJoint - 1], "neg_log_cost");
  std::vector<std::string> tokens;
  {
    std::istringstream in(SoftmaxPolicy().save());
    for (std::string t; in >> t;) tokens.push_back(t);
  }
  ASSERT_EQ(tokens.size(), size_t(3 + SoftmaxPolicy::kDim + Features::kProblem));
  for (int i = 0; i < SoftmaxPolicy::kDim; ++i) tokens[3 + i] = "0";
  tokens[3 + kBlockN] = "5.545177444479562";  // 8 ln 2
  ASSERT_NE(kCost, kBlockN);
  std::string state;
  for (const std::string& t : tokens) state += (state.empty() ? "" : " ") + t;
  ASSERT_TRUE(SoftmaxPolicy::load(state).has_value());

  TempDir dir;
  const std::string db = dir.file("policy.jsonl");
  write(db, "{\"type\":\"header\",\"schema\":1,\"gpu\":\"NVIDIA H100 80GB HBM3\",\"sm_count\":"
            "\"132\"}\n{\"type\":\"policy\",\"policy\":\"rl\",\"state\":\"" + state + "\"}\n");
  const Problem p{1000, 3584, 4096, Layout::kTN, Accum::kF32};
  const SearchSpace space =
      SearchSpace::from_catalog(nominal_device("NVIDIA H100 80GB HBM3", 132));
  const std::vector<KernelConfig> candidates = space.enumerate(p);
  ASSERT_GT(candidates.size(), 100u);
  double sum = 0;
  for (const KernelConfig& c : candidates) sum += c.block_n;
  std::map<std::string, std::pair<int, double>> expected;  // name -> rank, probability
  for (size_t i = 0; i < candidates.size(); ++i) {
    int rank = 1;
    for (size_t j = 0; j < candidates.size(); ++j)
      if (candidates[j].block_n > candidates[i].block_n ||
          (candidates[j].block_n == candidates[i].block_n && j < i))
        ++rank;
    expected[candidates[i].name()] = {rank, candidates[i].block_n / sum};
  }

  struct Line {
    size_t candidates;
    int rank;
    double probability, score;
  };
  auto ranks = [&](const std::string& list, std::string* pick) {
    const CliResult r =
        run_cli("db predict " + db + " --shape 1000x3584x4096 --layout tn --rank " + list);
    EXPECT_EQ(r.code, 0) << r.output;
    std::map<std::string, Line> out;
    std::istringstream in(r.output);
    bool table = false;
    for (std::string line; std::getline(in, line);) {
      std::istringstream f(line);
      std::string m, n, k, lay, acc, name;
      Line l{};
      if (!table) {
        if (f >> m >> n >> k >> lay >> acc >> name >> name >> name >> name && m == "1000" && pick)
          *pick = name;  // the "policy" column of the prediction table
        table = line.rfind("policy ranks:", 0) == 0;
        continue;
      }
      if (f >> m >> n >> k >> lay >> acc >> l.candidates >> l.rank >> l.probability >> l.score >>
          name)
        out[name] = l;
    }
    return out;
  };
  std::string pick;
  const std::map<std::string, Line> all = ranks("all", &pick);
  ASSERT_EQ(all.size(), candidates.size());
  double total = 0;
  for (const auto& [name, l] : all) {
    ASSERT_TRUE(expected.count(name)) << name;
    EXPECT_EQ(l.candidates, candidates.size());
    EXPECT_EQ(l.rank, expected[name].first) << name;
    EXPECT_NEAR(l.probability, expected[name].second, 1e-6 * expected[name].second) << name;
    EXPECT_NEAR(l.score, std::log(double(KernelConfig::parse(name)->block_n)), 1e-4) << name;
    if (l.rank == 1) EXPECT_EQ(name, pick);
    total += l.probability;
  }
  EXPECT_NEAR(total, 1.0, 1e-4);

  // A list keeps the lines of the names containing one of its parts, ranked among all.
  const std::map<std::string, Line> some = ranks("_swap,x256x64_s3_", nullptr);
  size_t matching = 0;
  for (const KernelConfig& c : candidates) {
    const std::string name = c.name();
    if (name.find("_swap") == std::string::npos && name.find("x256x64_s3_") == std::string::npos)
      continue;
    ++matching;
    ASSERT_TRUE(some.count(name)) << name;
    EXPECT_EQ(some.at(name).rank, expected[name].first) << name;
  }
  EXPECT_GT(matching, 0u);
  EXPECT_EQ(some.size(), matching);

  const std::string without = dir.file("no-policy.jsonl");
  write(without, kDatabase);
  CliResult r = run_cli("db predict " + without + " --shape 1000x3584x4096 --rank all");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("has no readable rl policy state"), std::string::npos) << r.output;
  r = run_cli("db show " + db + " --rank all");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--rank belongs to predict"), std::string::npos) << r.output;
}

// `db loo --worst N`: each rule's N worst covered problems with its pick and the best measured.
TEST(CliDb, LooListsEachRulesWorstProblems) {
  TempDir dir;
  const std::string db = dir.file("two.jsonl");
  auto line = [](int n, const std::string& config, double us, double ref) {
    return "{\"type\":\"measurement\",\"m\":128,\"n\":" + std::to_string(n) +
           ",\"k\":4096,\"layout\":\"tn\",\"acc\":\"f32\",\"config\":\"" + config +
           "\",\"disposition\":\"passed\",\"median_us\":" + std::to_string(us) +
           ",\"reference_us\":" + std::to_string(ref) +
           ",\"policy\":\"rl\",\"timestamp\":\"2026-11-25T00:00:00Z\"}\n";
  };
  const std::string wide = "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn";
  const std::string square = "sm90_ws_128x128x64_s6_c1x1_w2_m8_st_sk1_f32_tn";
  // 4096 is won by wide, 8192 by square: left out, each takes the other's winner.
  write(db, "{\"type\":\"header\",\"schema\":1,\"gpu\":\"NVIDIA H100 80GB HBM3\",\"sm_count\":\"132\"}\n" +
                line(4096, wide, 10, 11) + line(4096, square, 12, 11) + line(8192, wide, 25, 22) +
                line(8192, square, 20, 22));
  CliResult r = run_cli("db loo " + db + " --rule nearest --worst 1");
  EXPECT_EQ(r.code, 0) << r.output;
  const size_t list = r.output.find("nearest, the 1 worst covered problems");
  ASSERT_NE(list, std::string::npos) << r.output;
  const std::string rows = r.output.substr(list);
  EXPECT_EQ(count(rows, "_tn_f32 "), 1u) << rows;
  // 4096 with square scores (11 / 12) / (11 / 10) = 0.8333, 8192 with wide (22 / 25) / (22 / 20)
  // = 0.8, the worse.
  EXPECT_NE(rows.find("128x8192x4096_tn_f32"), std::string::npos) << rows;
  EXPECT_NE(rows.find("0.8000  " + wide), std::string::npos) << rows;
  r = run_cli("db loo " + db + " --worst -1");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("0 or more"), std::string::npos) << r.output;
  r = run_cli("db show " + db + " --worst 1");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--worst belongs to loo"), std::string::npos) << r.output;
  // The dispatch model: only for loo and predict, only of the database's accumulation, and a
  // file that is not one is named.
  const std::string model =
      std::string(HGEMM_SOURCE_DIR) + "/data/tables/nvidia-h100-80gb-hbm3-f32.model";
  r = run_cli("db loo " + db + " --rule transfer --model " + model);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("dispatch model nvidia-h100-80gb-hbm3-f32.jsonl.gz"), std::string::npos)
      << r.output;
  r = run_cli("db loo " + db + " --acc f16 --model " + model);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("was fitted for f32, not --acc f16"), std::string::npos) << r.output;
  r = run_cli("db show " + db + " --model " + model);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--model belongs to predict and loo"), std::string::npos) << r.output;
  r = run_cli("db loo " + db + " --model " + db);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("not a dispatch model"), std::string::npos) << r.output;
}
