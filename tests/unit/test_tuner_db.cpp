// The tuning database: JSON lines, round trips, a writer killed mid-line, corrupt lines, device
// fingerprints, merging shard outputs, sharding, and the table dispatch reads. CPU only; files
// live in a fresh temporary directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/suite.hpp"
#include "dispatch/cost.hpp"
#include "tuner/db/database.hpp"
#include "tuner/db/leave_one_out.hpp"
#include "tuner/db/json.hpp"
#include "tuner/db/tuned_table.hpp"
#include "tuner/measure/synthetic_measurer.hpp"
#include "tuner/policy/softmax_policy.hpp"
#include "tuner/tune.hpp"

#include "temp_dir.hpp"

namespace hgemm::tuner {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

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

std::vector<KernelConfig> catalog_like() {
  std::vector<KernelConfig> out;
  for (Layout l : {Layout::kNN, Layout::kTN})
    for (Accum a : {Accum::kF32, Accum::kF16}) {
      out.push_back(sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore, l, a));
      out.push_back(sm90(128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore, l, a));
      out.push_back(sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect, l, a));
      KernelConfig net;
      net.layout = l;
      net.accum = a;
      out.push_back(net);
    }
  return out;
}

const Fingerprint kH100{{"gpu", "NVIDIA H100 80GB HBM3"}, {"sm_count", "132"},
                        {"driver", "580.65"},          {"cuda", "13.0"},
                        {"cublas", "13.0.0"},          {"git", "abc123"}};

TuneOptions quiet_options(int budget) {
  TuneOptions o;
  o.budget = budget;
  o.clock = [] { return std::string("2026-01-01T00:00:00Z"); };
  return o;
}

Record sample_record() {
  Record r;
  r.problem = {4096, 1024, 8192, Layout::kNN, Accum::kF16};
  r.config = sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore, Layout::kNN, Accum::kF16).name();
  r.measurement.disposition = Disposition::kPassed;
  r.measurement.median_us = 123.456789012345;
  r.measurement.p20_us = 120.5;
  r.measurement.p80_us = 125.25;
  r.measurement.reference_us = 130.0625;
  r.measurement.error_ratio = 0.1875;
  r.measurement.sm_clock_mhz = 1980;
  r.measurement.detail = "quote \" backslash \\ newline \n tab \t caf\xc3\xa9";
  r.reward = 1.0421;
  r.policy = "rl";
  r.timestamp = "2026-01-01T00:00:00Z";
  return r;
}

void expect_same(const Record& a, const Record& b) {
  EXPECT_EQ(a.problem.name(), b.problem.name());
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.measurement.disposition, b.measurement.disposition);
  auto same = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
  EXPECT_TRUE(same(a.measurement.median_us, b.measurement.median_us));
  EXPECT_TRUE(same(a.measurement.p20_us, b.measurement.p20_us));
  EXPECT_TRUE(same(a.measurement.p80_us, b.measurement.p80_us));
  EXPECT_TRUE(same(a.measurement.reference_us, b.measurement.reference_us));
  EXPECT_TRUE(same(a.measurement.error_ratio, b.measurement.error_ratio));
  EXPECT_TRUE(same(a.reward, b.reward));
  EXPECT_EQ(a.measurement.sm_clock_mhz, b.measurement.sm_clock_mhz);
  EXPECT_EQ(a.measurement.detail, b.measurement.detail);
  EXPECT_EQ(a.policy, b.policy);
  EXPECT_EQ(a.timestamp, b.timestamp);
  EXPECT_EQ(a.included, b.included);
  EXPECT_EQ(a.supersedes, b.supersedes);
}

TEST(TunerJson, RoundTripAndErrors) {
  json::Object o;
  o.set("s", std::string("a\"b\\c\n\x01"))
      .set("x", 0.1)
      .set("big", 12288.0)
      .set("neg", -3.5e-7)
      .set("nan", kNaN)
      .set("t", true)
      .set("null", nullptr);
  const std::string line = json::write(o);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(line.find("\"big\":12288,"), std::string::npos) << line;
  const json::Object back = json::parse(line);
  EXPECT_EQ(*back.string("s"), "a\"b\\c\n\x01");
  EXPECT_EQ(*back.number("x"), 0.1);
  EXPECT_EQ(*back.number("neg"), -3.5e-7);
  EXPECT_TRUE(std::isnan(*back.number("nan")));
  EXPECT_FALSE(back.string("x"));
  EXPECT_FALSE(back.number("missing"));
  EXPECT_EQ(*json::parse(R"({"u":"\u00e9\ud83d\ude00"})").string("u"), "\xc3\xa9\xf0\x9f\x98\x80");

  for (const char* bad : {"", "{", "{\"a\":}", "{\"a\":1,}", "{\"a\":[1]}", "{\"a\":{}}",
                          "{\"a\":1} x", "{\"a\":\"\\q\"}", "{\"a\":\"open}", "{a:1}",
                          "{\"a\":1,\"a\":2}", "{\"a\":+1}", "{\"a\":1e}", "{\"a\":nan}"})
    EXPECT_THROW(json::parse(bad), json::ParseError) << bad;
  try {
    json::parse("{\"a\":1,\"b\":[2]}");
    FAIL();
  } catch (const json::ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("column 12"), std::string::npos) << e.what();
  }
}

TEST(TunerDb, RoundTrip) {
  TempDir dir;
  const std::string path = dir.file("sub/dir/h100-f16.jsonl");
  Record failed = sample_record();
  failed.measurement.disposition = Disposition::kIncorrect;
  failed.measurement.median_us = failed.measurement.p20_us = failed.measurement.p80_us = kNaN;
  failed.measurement.sm_clock_mhz = -1;
  failed.reward = -1;
  failed.included = true;
  {
    DatabaseWriter writer(path, kH100);
    writer.append(sample_record());
    writer.append(failed);
    writer.append(PolicyState{"rl", "softmax-policy-v1 state"});
  }
  const Database db = load_database(path);
  EXPECT_TRUE(db.errors.empty());
  EXPECT_EQ(db.header, kH100);
  ASSERT_EQ(db.records.size(), 2u);
  expect_same(db.records[0], sample_record());
  expect_same(db.records[1], failed);
  ASSERT_TRUE(db.policy);
  EXPECT_EQ(db.policy->state, "softmax-policy-v1 state");

  // The file is what the docs say: a header line, then one object per line.
  const std::string text = slurp(path);
  EXPECT_EQ(text.rfind(R"({"type":"header","schema":1,"gpu":"NVIDIA H100 80GB HBM3")", 0), 0u);
  EXPECT_NE(text.find("\"speedup\":"), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
  // "included" is written only when true: lines without proposals read as they always did.
  const size_t second = text.find("\"type\":\"measurement\"", text.find("measurement") + 1);
  EXPECT_EQ(text.find("\"included\""), text.find("\"included\":true", second));
  EXPECT_NE(text.find("\"included\":true"), std::string::npos);
  const std::string odd = dir.file("odd.jsonl");
  spit(odd, R"({"type":"measurement","m":1,"n":1,"k":1,"layout":"tn","acc":"f32",)"
            R"("config":"sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn",)"
            R"("disposition":"passed","included":"yes"})" "\n");
  const Database odd_db = load_database(odd);
  ASSERT_EQ(odd_db.errors.size(), 1u);
  EXPECT_NE(odd_db.errors.front().find("\"included\" must be true or false"), std::string::npos)
      << odd_db.errors.front();

  // Reopening appends after what is there; the header is not repeated.
  { DatabaseWriter(path, kH100).append(sample_record()); }
  EXPECT_EQ(load_database(path).records.size(), 3u);
  EXPECT_TRUE(load_database(dir.file("missing.jsonl")).records.empty());
  EXPECT_TRUE(load_database(dir.file("missing.jsonl")).errors.empty());

  // The blocklist names the failing config and why.
  const auto blocked = blocklist(db.records);
  ASSERT_EQ(blocked.size(), 1u);
  EXPECT_EQ(blocked.begin()->first, failed.config);
  EXPECT_NE(blocked.begin()->second.find("incorrect"), std::string::npos);

  // write_database replaces the file atomically and leaves no temp file behind.
  Database copy = db;
  copy.records.pop_back();
  write_database(path, copy);
  EXPECT_EQ(load_database(path).records.size(), 1u);
  for (const auto& entry : fs::recursive_directory_iterator(dir.file("")))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
}

// The repository ships databases gzip-compressed: they read like the plain file, damage is named
// with the intact records still used, and appends or rewrites into a .gz are refused.
TEST(TunerDb, CompressedDatabase) {
  TempDir dir;
  const std::string plain = dir.file("h100-f16.jsonl");
  {
    DatabaseWriter writer(plain, kH100);
    for (int i = 0; i < 2000; ++i) {
      Record r = sample_record();
      r.problem.m = 64 + i;
      writer.append(r);
    }
  }
  const std::string packed = plain + ".gz";
  ASSERT_EQ(std::system(("gzip -9n -c '" + plain + "' > '" + packed + "'").c_str()), 0);
  const Database a = load_database(plain), b = load_database(packed);
  EXPECT_TRUE(b.errors.empty());
  EXPECT_EQ(b.header, a.header);
  ASSERT_EQ(b.records.size(), 2000u);
  for (size_t i = 0; i < a.records.size(); ++i) expect_same(b.records[i], a.records[i]);

  const std::string bytes = slurp(packed);
  const std::string cut = dir.file("cut.jsonl.gz");
  spit(cut, bytes.substr(0, bytes.size() / 2));
  const Database partial = load_database(cut);
  ASSERT_FALSE(partial.errors.empty());
  EXPECT_NE(partial.errors.front().find(cut + ": gzip data corrupt"), std::string::npos)
      << partial.errors.front();
  EXPECT_NE(partial.errors.front().find("truncated"), std::string::npos);
  EXPECT_GT(partial.records.size(), 100u);
  EXPECT_LT(partial.records.size(), 2000u);

  try {
    DatabaseWriter writer(packed, kH100);
    ADD_FAILURE() << "appended to a compressed database";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), HGEMM_ERROR_NOT_SUPPORTED);
    EXPECT_NE(e.message().find("gzip-compressed"), std::string::npos) << e.message();
  }
  EXPECT_EQ(slurp(packed), bytes);
  EXPECT_THROW(write_database(dir.file("out.jsonl.gz"), a), Error);
  EXPECT_FALSE(fs::exists(dir.file("out.jsonl.gz")));
}

// What the repository ships: both accumulations of the H100, readable without a single bad line,
// a winner for every grid shape in both layouts.
TEST(TunerDb, ShippedDatabasesCoverTheGrid) {
  const char* saved = std::getenv("HGEMM_DB");
  const std::string saved_value = saved ? saved : "";
  ::unsetenv("HGEMM_DB");
  const std::vector<Shape> grid = load_suite("grid");
  ASSERT_EQ(grid.size(), 1000u);
  for (Accum accum : {Accum::kF32, Accum::kF16}) {
    const std::string path = default_db_path("NVIDIA H100 80GB HBM3", accum);
    const Database db = load_database(path);
    EXPECT_TRUE(db.errors.empty()) << path << ": " << db.errors.front();
    EXPECT_EQ(fingerprint_value(db.header, "gpu"), "NVIDIA H100 80GB HBM3") << path;
    std::set<std::string> passed;
    for (const Record& r : db.records)
      if (r.measurement.disposition == Disposition::kPassed && r.problem.accum == accum)
        passed.insert(r.problem.name());
    for (const Shape& s : grid)
      for (Layout layout : {Layout::kTN, Layout::kNN}) {
        const Problem p{s.m, s.n, s.k, layout, accum};
        EXPECT_TRUE(passed.count(p.name())) << path << " has no passing record for " << p.name();
      }
  }
  if (saved) ::setenv("HGEMM_DB", saved_value.c_str(), 1);
}

TEST(TunerDb, CorruptLinesAreNamedAndTheRestIsUsed) {
  const std::string good = format_record(sample_record());
  const std::string text = format_header(kH100) + "\n" + good + "\n" +
                           R"({"type":"measurement","m":12)" + "\n" + good + "\n" +
                           "not json at all\n" +
                           R"({"type":"measurement","m":1,"n":1,"k":1,"layout":"xx"})" + "\n" +
                           R"({"type":"comment"})" + "\n" + good + "\n";
  const Database db = parse_database(text, "tuned.jsonl");
  EXPECT_EQ(db.records.size(), 3u);
  ASSERT_EQ(db.errors.size(), 4u);
  EXPECT_EQ(db.errors[0].rfind("tuned.jsonl:3: ", 0), 0u) << db.errors[0];
  EXPECT_EQ(db.errors[1].rfind("tuned.jsonl:5: ", 0), 0u) << db.errors[1];
  EXPECT_EQ(db.errors[2].rfind("tuned.jsonl:6: ", 0), 0u) << db.errors[2];
  EXPECT_NE(db.errors[2].find("layout"), std::string::npos) << db.errors[2];
  EXPECT_NE(db.errors[3].find("unknown line type 'comment'"), std::string::npos) << db.errors[3];

  // A bad config name or an unknown disposition is an error too, not a silent skip.
  Record r = sample_record();
  std::string line = format_record(r);
  line.replace(line.find(r.config), r.config.size(), "sm90_bogus");
  const Database bad = parse_database(format_header(kH100) + "\n" + line + "\n");
  EXPECT_TRUE(bad.records.empty());
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_NE(bad.errors[0].find("sm90_bogus"), std::string::npos);

  // Numbers no int can hold (found by scripts/fuzz: converting them was undefined behaviour).
  std::string clock_line = format_record(r);
  clock_line.replace(clock_line.find("\"sm_clock_mhz\":1980"), 19, "\"sm_clock_mhz\":7e12");
  const Database huge = parse_database(format_header(kH100) + "\n" + clock_line + "\n" +
                                       R"({"type":"header","schema":2e15})" + "\n");
  EXPECT_TRUE(huge.records.empty());
  ASSERT_EQ(huge.errors.size(), 2u);
  EXPECT_NE(huge.errors[0].find("sm_clock_mhz"), std::string::npos) << huge.errors[0];
  EXPECT_NE(huge.errors[1].find("schema 2e+15 is not this version's 1"), std::string::npos)
      << huge.errors[1];
}

TEST(TunerDb, ResumeAfterAKillMidWrite) {
  TempDir dir;
  const std::string path = dir.file("tuned.jsonl");
  const SearchSpace space(catalog_like(), nominal_device());
  const std::vector<Problem> problems = {{4096, 4096, 4096, Layout::kTN, Accum::kF32},
                                         {512, 8192, 1024, Layout::kTN, Accum::kF32},
                                         {2048, 256, 8192, Layout::kTN, Accum::kF32},
                                         {8192, 8192, 512, Layout::kTN, Accum::kF32}};
  constexpr int kBudget = 6;

  // The first run gets through two problems, then is killed in the middle of a line.
  {
    SoftmaxPolicy policy;
    SyntheticMeasurer measurer;
    Tuner tuner(space, policy, measurer, quiet_options(kBudget));
    DatabaseWriter writer(path, kH100);
    for (size_t i = 0; i < 2; ++i)
      tuner.tune(problems[i], [&](const Record& r) { writer.append(r); });
    // Half of a third problem's first record: what a kill -9 inside write() leaves.
    Record partial = sample_record();
    partial.problem = problems[2];
    const std::string line = format_record(partial);
    std::ofstream(path, std::ios::app | std::ios::binary) << line.substr(0, line.size() / 2);
  }
  const Database crashed = load_database(path);
  EXPECT_EQ(crashed.records.size(), size_t(2 * kBudget));  // everything before the kill
  ASSERT_EQ(crashed.errors.size(), 1u);
  EXPECT_NE(crashed.errors[0].find(":" + std::to_string(2 + 2 * kBudget) + ": "), std::string::npos)
      << crashed.errors[0];
  EXPECT_NE(crashed.errors[0].find("cut short"), std::string::npos);

  // --resume: done problems are skipped, the rest are tuned, nothing is measured twice.
  {
    SoftmaxPolicy policy;
    SyntheticMeasurer measurer;
    Tuner tuner(space, policy, measurer, quiet_options(kBudget));
    tuner.load_history(crashed.records, /*resume=*/true);
    DatabaseWriter writer(path, kH100);  // cuts the partial line
    for (const Problem& p : problems) {
      const ProblemResult r = tuner.tune(p, [&](const Record& rec) { writer.append(rec); });
      EXPECT_EQ(r.measured_total, kBudget);
      EXPECT_EQ(r.measured_now, &p - problems.data() < 2 ? 0 : kBudget);
    }
    EXPECT_EQ(measurer.calls(), 2 * kBudget);
  }
  const Database resumed = load_database(path);
  EXPECT_TRUE(resumed.errors.empty()) << resumed.errors.front();
  ASSERT_EQ(resumed.records.size(), problems.size() * kBudget);
  std::set<std::string> keys;
  for (const Record& r : resumed.records)
    EXPECT_TRUE(keys.insert(r.problem.name() + " " + r.config).second) << r.config;

  // --include over a resumed database whose budgets are full, twice with different parts: each
  // pass measures exactly the included candidates not yet measured, and nothing else.
  for (const char* part : {"sm90_ws_128x128x64_s5_c1x2_", "sm90_ws_64x128x32_s8_"}) {
    SoftmaxPolicy policy;
    SyntheticMeasurer measurer;
    TuneOptions options = quiet_options(kBudget);
    options.include = {part};
    Tuner tuner(space, policy, measurer, options);
    const Database before = load_database(path);
    tuner.load_history(before.records, /*resume=*/true);
    size_t expected = 0;
    for (const Problem& p : problems)
      for (const KernelConfig& c : space.enumerate(p))
        expected += c.name().find(part) != std::string::npos &&
                    !keys.count(p.name() + " " + c.name());
    ASSERT_GT(expected, 0u) << part;
    DatabaseWriter writer(path, kH100);
    for (const Problem& p : problems)
      tuner.tune(p, [&](const Record& rec) {
        EXPECT_NE(rec.config.find(part), std::string::npos) << rec.config;
        EXPECT_TRUE(rec.included) << rec.config;
        EXPECT_TRUE(keys.insert(rec.problem.name() + " " + rec.config).second) << rec.config;
        writer.append(rec);
      });
    EXPECT_EQ(size_t(measurer.calls()), expected) << part;
  }

  // --remeasure-before: after a kernel change, an included candidate whose records all predate
  // the instant is measured again, once: a second (resumed) pass with the same instant, or an
  // instant before the records, measures nothing. Candidates not included are never re-measured.
  size_t remeasured = 0;  // records beyond one per (problem, config) in `keys`
  {
    const std::string part = "sm90_ws_128x128x64_s5_c1x2_";
    size_t included = 0;
    for (const Problem& p : problems)
      for (const KernelConfig& c : space.enumerate(p))
        included += c.name().find(part) != std::string::npos;
    ASSERT_GT(included, 0u);
    for (const auto& [instant, expected] :
         {std::pair<const char*, size_t>{"2025-12-31T23:59:59Z", 0},
          {"2026-01-02T00:00:00Z", included},
          {"2026-01-02T00:00:00Z", 0}}) {
      SoftmaxPolicy policy;
      SyntheticMeasurer measurer;
      TuneOptions options = quiet_options(kBudget);
      options.include = {part};
      options.remeasure_before = instant;
      options.clock = [] { return std::string("2026-01-03T00:00:00Z"); };
      Tuner tuner(space, policy, measurer, options);
      tuner.load_history(load_database(path).records, /*resume=*/true);
      DatabaseWriter writer(path, kH100);
      for (const Problem& p : problems)
        tuner.tune(p, [&](const Record& rec) {
          EXPECT_NE(rec.config.find(part), std::string::npos) << rec.config;
          EXPECT_TRUE(rec.supersedes) << rec.config;  // every record it had was stale
          EXPECT_TRUE(keys.count(rec.problem.name() + " " + rec.config)) << rec.config;
          writer.append(rec);
        });
      EXPECT_EQ(size_t(measurer.calls()), expected) << instant;
    }
    remeasured = included;
  }

  // A last line that is whole but lost only its newline is kept, not cut.
  const std::string text = slurp(path);
  spit(path, text.substr(0, text.size() - 1));
  EXPECT_EQ(load_database(path).records.size(), keys.size() + remeasured);
  { DatabaseWriter(path, kH100).append(sample_record()); }
  const Database reopened = load_database(path);
  EXPECT_TRUE(reopened.errors.empty());
  EXPECT_EQ(reopened.records.size(), keys.size() + remeasured + 1);
}

// A problem's first measurements are its nearest tuned neighbours' winners (inside its budget),
// so tuning starts from what untuned dispatch would run; with seeding off, the policy picks.
TEST(TunerDb, NearestWinnersSeedANewProblem) {
  const SearchSpace space(catalog_like(), nominal_device());
  const Problem tuned{128, 4096, 4096, Layout::kTN, Accum::kF32};
  const Problem fresh{128, 5120, 5120, Layout::kTN, Accum::kF32};
  const Problem other_layout{128, 5120, 5120, Layout::kNN, Accum::kF32};
  // The history's winner for `tuned`: a config the policy would not reach first by itself.
  const auto candidates = space.enumerate(fresh);
  ASSERT_GT(candidates.size(), 8u);
  const KernelConfig winner = candidates[candidates.size() / 2];
  std::vector<Record> history;
  for (const KernelConfig& c : {candidates.front(), winner}) {
    Record r = sample_record();
    r.problem = tuned;
    r.config = c.name();
    r.measurement.median_us = r.measurement.reference_us / (c == winner ? 2.0 : 0.5);
    history.push_back(r);
  }
  for (int seeds : {4, 0}) {
    SoftmaxPolicy policy;
    SyntheticMeasurer measurer;
    TuneOptions options = quiet_options(3);
    options.neighbor_seeds = seeds;
    Tuner tuner(space, policy, measurer, options);
    tuner.load_history(history, /*resume=*/false);
    std::vector<std::string> measured;
    tuner.tune(fresh, [&](const Record& r) {
      measured.push_back(r.config);
      EXPECT_FALSE(r.included) << "a seed is forced, but not included";
    });
    ASSERT_EQ(measured.size(), 3u) << "seeds stay inside the budget";
    if (seeds > 0)
      EXPECT_EQ(measured.front(), winner.name());
    else
      EXPECT_EQ(std::count(measured.begin(), measured.end(), winner.name()), 0)
          << "without seeding the policy reached the planted winner first: pick another";
    // Another layout has no tuned neighbour: nothing is seeded there.
    std::vector<std::string> other;
    tuner.tune(other_layout, [&](const Record& r) { other.push_back(r.config); });
    EXPECT_EQ(other.size(), 3u);
  }
}

// --history-top: another database's fastest configs for the very problem come first, in their
// order, before the nearest tuned problems' winners, and inside the budget; a problem the prior
// never measured is seeded by its neighbours alone.
TEST(TunerDb, PriorTopSeedsTheSameProblemFirst) {
  const SearchSpace space(catalog_like(), nominal_device());
  const Problem problem{128, 5120, 5120, Layout::kTN, Accum::kF32};
  const Problem near{128, 4096, 4096, Layout::kTN, Accum::kF32};
  const auto candidates = space.enumerate(problem);
  ASSERT_GT(candidates.size(), 12u);
  // The prior's records of `problem`: three configs at speedups 3, 2 (two records) and 0.5, one
  // that failed; and the winner of a nearby problem.
  const KernelConfig first = candidates[candidates.size() / 2];
  const KernelConfig second = candidates[candidates.size() / 3];
  const KernelConfig slow = candidates[1];
  const KernelConfig failed = candidates[2];
  const KernelConfig neighbour = candidates[candidates.size() - 2];
  std::vector<Record> prior;
  auto add = [&](const Problem& p, const KernelConfig& c, double speedup) {
    Record r = sample_record();
    r.problem = p;
    r.config = c.name();
    r.measurement.median_us = r.measurement.reference_us / speedup;
    prior.push_back(r);
  };
  add(problem, slow, 0.5);
  add(problem, second, 2.0);
  add(problem, first, 3.0);
  add(problem, second, 2.0);
  add(near, neighbour, 4.0);
  Record broken = sample_record();
  broken.problem = problem;
  broken.config = failed.name();
  broken.measurement.disposition = Disposition::kIncorrect;
  prior.push_back(broken);

  auto run = [&](int history_top, int budget, const Problem& p) {
    SoftmaxPolicy policy;
    SyntheticMeasurer measurer;
    TuneOptions options = quiet_options(budget);
    options.history_top = history_top;
    Tuner tuner(space, policy, measurer, options);
    tuner.load_prior(prior);
    std::vector<std::string> measured;
    tuner.tune(p, [&](const Record& r) { measured.push_back(r.config); });
    return measured;
  };
  const auto top = run(3, 4, problem);
  ASSERT_EQ(top.size(), 4u) << "the seeds stay inside the budget";
  EXPECT_EQ(top[0], first.name());
  EXPECT_EQ(top[1], second.name());
  EXPECT_EQ(top[2], slow.name());
  EXPECT_EQ(top[3], neighbour.name()) << "then the nearest tuned problem's winner";
  EXPECT_EQ(std::count(top.begin(), top.end(), failed.name()), 0) << "a failure is no seed";
  const auto two = run(2, 2, problem);
  EXPECT_EQ(two, (std::vector<std::string>{first.name(), second.name()}));
  // Without the option the prior still warm-starts and seeds by neighbours, not by its top.
  const auto off = run(0, 2, problem);
  ASSERT_EQ(off.size(), 2u);
  EXPECT_EQ(off[0], neighbour.name());
  // A problem the prior never measured: the winners of the problems near it, nearest first.
  const Problem unseen{128, 6144, 5120, Layout::kTN, Accum::kF32};
  EXPECT_EQ(run(3, 2, unseen), (std::vector<std::string>{first.name(), neighbour.name()}));
}

TEST(TunerDb, ForeignDevice) {
  TempDir dir;
  const std::string path = dir.file("tuned.jsonl");
  { DatabaseWriter(path, kH100).append(sample_record()); }
  Fingerprint h200 = kH100;
  h200[0].second = "NVIDIA H200";
  EXPECT_THROW(DatabaseWriter(path, h200), Error);
  Fingerprint new_driver = kH100;
  new_driver[2].second = "590.1";
  const FingerprintCheck soft = compare_fingerprints(kH100, new_driver);
  EXPECT_TRUE(soft.same_device);
  ASSERT_EQ(soft.differences.size(), 1u);
  EXPECT_NE(soft.differences[0].find("driver"), std::string::npos);
  EXPECT_NO_THROW(DatabaseWriter(path, new_driver));

  // Dispatch on another device: a warning naming both GPUs, no exact entries, predictions only.
  const TunedTable table =
      TunedTable::load(path, SearchSpace(catalog_like(), nominal_device("NVIDIA H200", 132)));
  ASSERT_FALSE(table.warnings().empty());
  EXPECT_NE(table.warnings().back().find("NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(table.warnings().back().find("NVIDIA H200"), std::string::npos);
  EXPECT_EQ(table.find(sample_record().problem), nullptr);
  EXPECT_TRUE(table.lookup(sample_record().problem).has_value());

  // A file that is not a database is never appended to.
  spit(dir.file("other.txt"), "hello\n");
  EXPECT_THROW(DatabaseWriter(dir.file("other.txt"), kH100), Error);
}

TEST(TunerDb, ShardingAndMerge) {
  std::vector<int> items(11);
  for (int i = 0; i < 11; ++i) items[i] = i;
  std::multiset<int> all;
  for (int s = 0; s < 3; ++s)
    for (int x : take_shard(items, Shard{s, 3})) {
      EXPECT_EQ(x % 3, s);
      all.insert(x);
    }
  EXPECT_EQ(all, std::multiset<int>(items.begin(), items.end()));
  EXPECT_EQ(take_shard(items, Shard{0, 1}), items);
  EXPECT_TRUE(take_shard(std::vector<int>{1}, Shard{1, 2}).empty());
  ASSERT_TRUE(parse_shard("2/4"));
  EXPECT_EQ(parse_shard("2/4")->index, 2);
  EXPECT_EQ(parse_shard("2/4")->count, 4);
  for (const char* bad : {"4/4", "-1/2", "1/0", "1", "a/b", "1/2/3", "/2", "1/"})
    EXPECT_FALSE(parse_shard(bad)) << bad;

  // Shapes expand shape-major, so a shard keeps each shape's layouts and accumulations together.
  const auto problems = expand_problems({{1, 2, 3}, {4, 5, 6}}, {Layout::kNN, Layout::kTN},
                                        {Accum::kF32, Accum::kF16});
  ASSERT_EQ(problems.size(), 8u);
  EXPECT_EQ(problems[3].m, 1);
  EXPECT_EQ(problems[4].m, 4);

  // Two workers' databases merge into one; merging again adds nothing.
  const SearchSpace space(catalog_like(), nominal_device());
  std::vector<Problem> tn;
  for (const Problem& p : problems)
    tn.push_back({p.m * 512, p.n * 512, p.k * 512, p.layout, p.accum});
  std::vector<Database> parts;
  for (int s = 0; s < 2; ++s) {
    Database part;
    part.header = kH100;
    SoftmaxPolicy policy;
    SyntheticMeasurer measurer;
    Tuner tuner(space, policy, measurer, quiet_options(3));
    for (const Problem& p : take_shard(tn, Shard{s, 2}))
      tuner.tune(p, [&](const Record& r) { part.records.push_back(r); });
    part.policy = PolicyState{"rl", policy.save()};
    parts.push_back(part);
  }
  const Database merged = merge_databases(parts);
  EXPECT_EQ(merged.records.size(), parts[0].records.size() + parts[1].records.size());
  EXPECT_EQ(merged.records.size(), tn.size() * 3);
  EXPECT_EQ(merged.header, kH100);
  EXPECT_EQ(merged.policy->state, parts[1].policy->state);
  EXPECT_EQ(merge_databases({merged, parts[0], parts[1]}).records.size(), merged.records.size());

  Database foreign = parts[0];
  foreign.header[0].second = "NVIDIA A100-SXM4-80GB";
  EXPECT_THROW(merge_databases({parts[0], foreign}), Error);
}

// A measurement record for TunedTable tests: the error ratio is fixed, times are given.
Record timed_record(const Problem& problem, const KernelConfig& config, double us,
                    double reference_us, Disposition disposition = Disposition::kPassed) {
  Record r;
  r.problem = problem;
  r.config = config.name();
  r.measurement.disposition = disposition;
  r.measurement.median_us = us;
  r.measurement.reference_us = reference_us;
  r.measurement.error_ratio = 0.1;
  return r;
}

// A source rewrite's measurements ("variant" lines, with their provenance) survive reading,
// rewriting and merging as written; one without its provenance or a usable name is named and
// skipped; and they never become a winner, since the instance they name runs another source.
TEST(TunerDb, VariantLinesKeepTheirProvenanceAndAreNeverDispatched) {
  const SearchSpace space(catalog_like(), nominal_device("NVIDIA H100 80GB HBM3", 132));
  const Problem p{4096, 4096, 4096, Layout::kTN, Accum::kF32};
  const KernelConfig slow = sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect, p.layout, p.accum);
  const KernelConfig base = sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore, p.layout, p.accum);
  const std::string sha(64, 'a');
  auto variant = [&](const std::string& name, const std::string& model, const std::string& hash) {
    return R"({"type":"variant","name":")" + name + R"(","config":")" + base.name() +
           R"(","m":4096,"n":4096,"k":4096,"layout":"tn","acc":"f32","median_us":10,)" +
           R"("reference_us":900,"speedup":90,"reward":89.9,"model":")" + model +
           R"(","prompt_sha256":")" + hash + R"(","source_sha256":")" + sha + R"("})";
  };
  const std::string good = variant("rw_0123456789ab", "some-model", sha);
  const std::string text =
      format_header(kH100) + "\n" + format_record(timed_record(p, slow, 1200, 1000)) + "\n" +
      good + "\n" + variant("rw_x", "", sha) + "\n" + variant("rw_y", "some-model", "abc") +
      "\n" + variant("Bad-Name", "some-model", sha) + "\n";
  const Database db = parse_database(text, "tuned.jsonl");
  ASSERT_EQ(db.records.size(), 1u);
  ASSERT_EQ(db.variants.size(), 1u);
  EXPECT_EQ(json::parse(db.variants[0]).string("model").value_or(""), "some-model");
  ASSERT_EQ(db.errors.size(), 3u);
  EXPECT_NE(db.errors[0].find("provenance"), std::string::npos) << db.errors[0];
  EXPECT_NE(db.errors[1].find("provenance"), std::string::npos) << db.errors[1];
  EXPECT_NE(db.errors[2].find("\"name\""), std::string::npos) << db.errors[2];

  // 10 us against the plain record's 1200: were it read as a measurement of `base`, base would win.
  const TunedTable table(db, space, /*exact=*/true);
  ASSERT_NE(table.find(p), nullptr);
  EXPECT_EQ(table.find(p)->config.name(), slow.name());

  TempDir dir;
  const std::string path = dir.file("tuned.jsonl");
  write_database(path, db);
  const Database again = load_database(path);
  EXPECT_TRUE(again.errors.empty());
  EXPECT_EQ(again.variants, db.variants);
  EXPECT_EQ(merge_databases({db, again}).variants, db.variants);
}

TEST(TunerDb, TunedTable) {
  const SearchSpace space(catalog_like(), nominal_device("NVIDIA H100 80GB HBM3", 132));
  const Problem p{4096, 4096, 4096, Layout::kTN, Accum::kF32};
  const KernelConfig fast = sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore, p.layout, p.accum);
  const KernelConfig fastest_but_broken =
      sm90(128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore, p.layout, p.accum);
  const KernelConfig slow = sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect, p.layout, p.accum);
  auto rec = [&](const Problem& prob, const KernelConfig& c, double us, Disposition d) {
    return timed_record(prob, c, us, 1000, d);
  };
  Database db;
  db.header = kH100;
  db.records = {rec(p, slow, 1200, Disposition::kPassed),
                rec(p, fast, 900, Disposition::kPassed),
                rec(p, fast, 950, Disposition::kPassed),  // averaged: 925
                rec(p, fastest_but_broken, 500, Disposition::kPassed),
                // Broken on another shape: blocked everywhere.
                rec({64, 64, 64, p.layout, p.accum}, fastest_but_broken, kNaN,
                    Disposition::kIncorrect)};
  const TunedTable table(db, space, /*exact=*/true);
  const TunedEntry* e = table.find(p);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->config, fast);
  EXPECT_EQ(e->samples, 2);
  EXPECT_DOUBLE_EQ(e->median_us, 925);
  EXPECT_NEAR(e->speedup(), 1000.0 / 925, 1e-12);
  EXPECT_EQ(table.blocklist().count(fastest_but_broken.name()), 1u);
  EXPECT_EQ(table.find({4096, 4096, 4096, Layout::kNN, Accum::kF32}), nullptr);
  EXPECT_EQ(table.size(), 1u);

  // Unseen shapes: the nearest tuned neighbour (no policy state saved), if legal there.
  EXPECT_EQ(table.predict_nearest({4000, 4096, 4096, p.layout, p.accum}), fast);
  EXPECT_EQ(table.lookup({4000, 4096, 4096, p.layout, p.accum}), fast);
  EXPECT_FALSE(table.predict({4096, 4096, 4090, p.layout, p.accum}));  // K % 8: not legal
  EXPECT_FALSE(table.predict({4096, 4096, 4096, Layout::kNN, p.accum}));

  // With a saved policy, a shape with a tuned neighbour of its layout and accumulation still gets
  // the neighbour's winner, near or far; the policy answers the others and avoids the blocklist.
  SoftmaxPolicy policy;
  db.policy = PolicyState{"rl", policy.save()};
  const TunedTable with_policy(db, space, true);
  for (const Problem& q : {Problem{4000, 6144, 4096, p.layout, p.accum},
                           Problem{128, 65536, 4096, p.layout, p.accum}}) {
    EXPECT_EQ(with_policy.predict(q), fast);
    EXPECT_NE(with_policy.predict_policy(q), fast);  // so the line above tests the order
  }
  // A database from another device: the policy first, even beside a tuned neighbour.
  const TunedTable foreign(db, space, /*exact=*/false);
  for (const Problem& q : {Problem{100, 8192, 512, Layout::kNN, Accum::kF16},
                           Problem{4000, 6144, 4096, p.layout, p.accum}}) {
    const auto c = foreign.predict(q);
    ASSERT_TRUE(c);
    EXPECT_TRUE(space.legal(q, *c).ok());
    EXPECT_EQ(foreign.blocklist().count(c->name()), 0u);
    EXPECT_EQ(c, foreign.predict_policy(q));
    EXPECT_EQ(c, with_policy.predict_policy(q));
  }
}

// A superseding record (a re-measurement after a kernel change) replaces the earlier records of
// its problem and config in the table, instead of being averaged with them; other configs and
// problems keep theirs, and the file keeps every record.
TEST(TunerDb, SupersedingRecordsReplaceTheOldKernelsTimes) {
  const SearchSpace space(catalog_like(), nominal_device("NVIDIA H100 80GB HBM3", 132));
  const Problem p{4096, 4096, 4096, Layout::kTN, Accum::kF32};
  const Problem q{2048, 4096, 4096, Layout::kTN, Accum::kF32};
  const KernelConfig a = sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore, p.layout, p.accum);
  const KernelConfig b = sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect, p.layout, p.accum);
  auto rec = [&](const Problem& prob, const KernelConfig& c, double us, bool supersedes) {
    Record r = timed_record(prob, c, us, 1000, Disposition::kPassed);
    r.supersedes = supersedes;
    return r;
  };
  Database db;
  db.header = kH100;
  db.records = {rec(p, a, 1200, false), rec(p, a, 1300, false), rec(q, a, 600, false),
                rec(p, b, 1000, false), rec(p, a, 800, true),   rec(p, a, 900, false)};
  const std::vector<Record> current = current_records(db.records);
  ASSERT_EQ(current.size(), 4u);
  EXPECT_EQ(current[0].problem.name(), q.name());  // another problem: kept
  EXPECT_EQ(current[1].config, b.name());          // another config: kept
  EXPECT_DOUBLE_EQ(current[2].measurement.median_us, 800);
  EXPECT_DOUBLE_EQ(current[3].measurement.median_us, 900);  // later than the superseding one
  const TunedTable table(db, space, /*exact=*/true);
  const TunedEntry* e = table.find(p);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->config, a);  // averaged with the old kernel's 1200 and 1300 it would lose to b
  EXPECT_EQ(e->samples, 2);
  EXPECT_DOUBLE_EQ(e->median_us, 850);
  EXPECT_EQ(current_records({}).size(), 0u);

  // The flag round-trips, and a record without it reads as not superseding.
  Record s = sample_record();
  s.supersedes = true;
  const Database parsed = parse_database(format_record(s) + "\n" + format_record(sample_record()) + "\n");
  ASSERT_EQ(parsed.records.size(), 2u);
  EXPECT_TRUE(parsed.records[0].supersedes);
  EXPECT_FALSE(parsed.records[1].supersedes);
  EXPECT_EQ(format_record(sample_record()).find("supersedes"), std::string::npos);
}

// --remeasure-top N: each problem's N fastest configs whose records all predate the instant are
// measured again (forced, not proposals), and only they; a resumed pass with the same instant
// measures nothing more, since the re-measured ones are current and the ranks did not move.
TEST(TunerDb, RemeasureTopMeasuresEachProblemsFastestStaleConfigsOnce) {
  TempDir dir;
  const std::string path = dir.file("tuned.jsonl");
  const SearchSpace space(catalog_like(), nominal_device());
  const std::vector<Problem> problems = {{4096, 4096, 4096, Layout::kTN, Accum::kF32},
                                         {512, 8192, 1024, Layout::kTN, Accum::kF32}};
  constexpr int kBudget = 5;
  constexpr int kTop = 2;
  {
    SoftmaxPolicy policy;
    SyntheticMeasurer measurer;
    Tuner tuner(space, policy, measurer, quiet_options(kBudget));
    DatabaseWriter writer(path, kH100);
    for (const Problem& p : problems) tuner.tune(p, [&](const Record& r) { writer.append(r); });
  }
  // The expected top: by mean reward over each config's records, as the tuner ranks them.
  std::map<std::string, std::set<std::string>> expected;
  {
    SoftmaxPolicy policy;
    SyntheticMeasurer measurer;
    Tuner tuner(space, policy, measurer, quiet_options(kBudget));
    std::map<std::string, std::vector<std::pair<double, std::string>>> ranked;
    for (const Record& r : load_database(path).records)
      if (r.measurement.timed()) ranked[r.problem.name()].emplace_back(-tuner.reward_of(r), r.config);
    for (auto& [name, list] : ranked) {
      std::sort(list.begin(), list.end());
      ASSERT_GT(list.size(), size_t(kTop));
      for (int i = 0; i < kTop; ++i) expected[name].insert(list[size_t(i)].second);
    }
  }
  for (int pass = 0; pass < 2; ++pass) {
    SoftmaxPolicy policy;
    SyntheticMeasurer measurer;
    TuneOptions options = quiet_options(kBudget);
    options.remeasure_before = "2026-01-02T00:00:00Z";
    options.remeasure_top = kTop;
    options.clock = [] { return std::string("2026-01-03T00:00:00Z"); };
    Tuner tuner(space, policy, measurer, options);
    tuner.load_history(load_database(path).records, /*resume=*/true);
    DatabaseWriter writer(path, kH100);
    std::map<std::string, std::set<std::string>> measured;
    for (const Problem& p : problems)
      tuner.tune(p, [&](const Record& r) {
        EXPECT_TRUE(r.supersedes) << r.config;
        EXPECT_FALSE(r.included) << r.config;
        measured[r.problem.name()].insert(r.config);
        writer.append(r);
      });
    EXPECT_EQ(measured, pass == 0 ? expected : decltype(measured){}) << pass;
  }
  EXPECT_EQ(load_database(path).records.size(), problems.size() * (kBudget + kTop));
}

// An untuned shape gets a nearby tuned problem's winner chosen by the cost model for its own tile
// count (the default rule, whose block_n siblings this catalog lacks): the nearest winner fills one
// wave at its shape and needs two here.
TEST(TunerDb, PredictionWeighsNeighboursByThisShapesWaves) {
  const SearchSpace space(catalog_like(), nominal_device("NVIDIA H100 80GB HBM3", 132));
  const KernelConfig narrow = sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect, Layout::kTN,
                                   Accum::kF32);
  const KernelConfig square = sm90(128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore, Layout::kTN,
                                   Accum::kF32);
  const Problem one_wave{128, 8448, 4096, Layout::kTN, Accum::kF32};  // 2 x 66 tiles of 64x128
  const Problem far{128, 16384, 4096, Layout::kTN, Accum::kF32};
  Database db;
  db.header = kH100;
  db.records = {timed_record(one_wave, narrow, 30, 31, Disposition::kPassed),
                timed_record(far, square, 50, 51, Disposition::kPassed)};
  const TunedTable table(db, space, /*exact=*/true);
  const Problem query{128, 9216, 4096, Layout::kTN, Accum::kF32};  // 144 tiles of 64x128: 2 waves
  // Each config is timed at one shape only, so the default rule (transfer) falls back to
  // siblings, whose cost-model ranking this test is about.
  ASSERT_EQ(kDefaultNeighborRule, NeighborRule::kTransfer);
  EXPECT_EQ(table.predict(query), square);
  EXPECT_EQ(table.predict(query, NeighborRule::kSiblings), square);
  EXPECT_EQ(table.predict_nearest(query, NeighborRule::kNearest), narrow);
  EXPECT_EQ(table.predict({128, 8192, 4096, Layout::kTN, Accum::kF32}), narrow);  // 128: 1 wave
}

// The transfer rule predicts each config's time here from its own times at the nearest shapes,
// where the cost rule ranks different tiles by the model (its tile efficiencies fitted to all the
// table's times, half way from the formula's). Around 4096^3 (K varies, so the
// model's ratio here/there is the same for every tile) 128x128 was measured faster than 128x256
// at two of three shapes and 128x256 won the third by a hair: the model prefers 128x256 for its
// reuse, the measurements say 128x128. The siblings pick stays unless the predicted gain exceeds
// the 5% margin.
TEST(TunerDb, TransferRulePredictsEachConfigFromItsOwnTimes) {
  const SearchSpace space(catalog_like(), nominal_device("NVIDIA H100 80GB HBM3", 132));
  const KernelConfig square =
      sm90(128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore, Layout::kTN, Accum::kF32);
  const KernelConfig wide =
      sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore, Layout::kTN, Accum::kF32);
  auto table_where_wide_takes = [&](double slower) {
    Database db;
    db.header = kH100;
    for (int64_t k : {2048, 3072, 8192}) {
      const Problem at{4096, 4096, k, Layout::kTN, Accum::kF32};
      const double us = 100.0 * double(k) / 4096;
      db.records.push_back(timed_record(at, square, us, us));
      db.records.push_back(timed_record(at, wide, k == 3072 ? 0.99 * us : slower * us, us));
    }
    return TunedTable(db, space, /*exact=*/true);
  };
  const Problem query{4096, 4096, 4096, Layout::kTN, Accum::kF32};
  const TunedTable clear = table_where_wide_takes(1.3);  // 7% by the weights of the distances
  ASSERT_EQ(clear.find({4096, 4096, 3072, Layout::kTN, Accum::kF32})->config, wide);
  // The siblings rule's model, its tile efficiencies fitted to these times, agrees here.
  EXPECT_EQ(clear.predict_nearest(query, NeighborRule::kSiblings)->instance(), square.instance());
  EXPECT_EQ(clear.predict_nearest(query, NeighborRule::kTransfer), square);
  EXPECT_EQ(clear.predict(query), square);  // the default rule
  // A predicted gain of 0.2%: inside the noise, so the siblings pick stays.
  const TunedTable close = table_where_wide_takes(1.03);
  EXPECT_EQ(close.predict_nearest(query, NeighborRule::kTransfer), wide);
  // Leaving one of the three out leaves each config timed twice: too few to trust, so transfer
  // answers as siblings does.
  const Problem left_out{4096, 4096, 8192, Layout::kTN, Accum::kF32};
  EXPECT_EQ(clear.predict_nearest(left_out, NeighborRule::kTransfer, /*leave_out_self=*/true),
            clear.predict_nearest(left_out, NeighborRule::kSiblings, /*leave_out_self=*/true));
  // A shape carries its timed configs fastest first.
  const TunedEntry* e = clear.find({4096, 4096, 2048, Layout::kTN, Accum::kF32});
  ASSERT_EQ(e->timed.size(), 2u);
  EXPECT_EQ(e->timed[0].config, square);
  EXPECT_DOUBLE_EQ(e->timed[0].us, 50.0);
}

// The siblings rule also weighs the winner with its other block_n values: at N = 3584 a 128x224
// tile fills the fourth wave that 128x256 leaves a third empty, for less work per tile.
TEST(TunerDb, SiblingsRuleTriesTheWinnersOtherBlockN) {
  std::vector<KernelConfig> compiled = catalog_like();
  const KernelConfig wide =
      sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore, Layout::kTN, Accum::kF32);
  const KernelConfig sibling =
      sm90(128, 224, 64, 3, 2, 2, 1, Epilogue::kTmaStore, Layout::kTN, Accum::kF32);
  compiled.push_back(sibling);
  const SearchSpace space(compiled, nominal_device("NVIDIA H100 80GB HBM3", 132));
  ASSERT_TRUE(space.compiled(sibling));
  Database db;
  db.header = kH100;
  db.records = {timed_record({4096, 4096, 4096, Layout::kTN, Accum::kF32}, wide, 180, 190)};
  const TunedTable table(db, space, /*exact=*/true);
  const Problem query{4096, 3584, 3584, Layout::kTN, Accum::kF32};  // 448 or 512 tiles: 4 waves
  EXPECT_EQ(table.predict_nearest(query, NeighborRule::kCost), wide);
  EXPECT_EQ(table.predict_nearest(query, NeighborRule::kSiblings), sibling);
  // Where 128x224 needs a fifth wave (N = 4096: 608 tiles), the winner stays.
  EXPECT_EQ(table.predict_nearest({4096, 4096, 4000, Layout::kTN, Accum::kF32},
                                  NeighborRule::kSiblings),
            wide);
  for (NeighborRule r : {NeighborRule::kNearest, NeighborRule::kCost, NeighborRule::kScaled,
                         NeighborRule::kSiblings})
    EXPECT_EQ(parse_neighbor_rule(to_string(r)), r);
  EXPECT_FALSE(parse_neighbor_rule("closest"));
}

// A neighbour's 1x2 cluster fits its own N (512: four 128-wide tiles) but not this one's (576:
// five tiles, so the last cluster runs a CTA on nothing): the siblings rule then weighs the same
// tile without a cluster, and keeps the cluster where the count is even (768: six).
TEST(TunerDb, SiblingsRuleDropsAClusterThatWastesTiles) {
  std::vector<KernelConfig> compiled = catalog_like();
  const KernelConfig clustered =
      sm90(128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore, Layout::kTN, Accum::kF32);
  const KernelConfig plain =
      sm90(128, 128, 64, 6, 2, 1, 1, Epilogue::kDirect, Layout::kTN, Accum::kF32);
  compiled.push_back(plain);
  const SearchSpace space(compiled, nominal_device("NVIDIA H100 80GB HBM3", 132));
  ASSERT_TRUE(space.compiled(clustered));
  ASSERT_TRUE(space.compiled(plain));
  Database db;
  db.header = kH100;
  db.records = {timed_record({4096, 512, 2048, Layout::kTN, Accum::kF32}, clustered, 20, 21)};
  const TunedTable table(db, space, /*exact=*/true);
  // 48 x 5 tiles: 2 waves on 132 SMs; with the cluster's sixth column, 48 x 6: 3 waves.
  const Problem odd{6144, 576, 2048, Layout::kTN, Accum::kF32};
  EXPECT_EQ(table.predict_nearest(odd, NeighborRule::kCost), clustered);
  EXPECT_EQ(table.predict_nearest(odd, NeighborRule::kSiblings), plain);
  EXPECT_EQ(table.predict_nearest({6144, 768, 2048, Layout::kTN, Accum::kF32},  // 6 tiles
                                  NeighborRule::kSiblings),
            clustered);
}

// At N = 7168 a 128x112 tile makes 64 columns of tiles where 128x128 makes 56, so with M = 256
// the grid fills 128 of 132 SMs instead of 112: the siblings rule takes it in TN. In NN the 112
// columns of an N-major B would be staged in 16-column chunks (64 + 48 has no wider exact
// swizzle span), which ran 1.7x slower on the H200: the rule never offers such a width.
TEST(TunerDb, SiblingsRuleSkipsWidthsWithNarrowNMajorChunks) {
  for (Layout layout : {Layout::kTN, Layout::kNN}) {
    const KernelConfig square =
        sm90(128, 128, 64, 6, 2, 1, 1, Epilogue::kDirect, layout, Accum::kF32);
    const KernelConfig narrower =
        sm90(128, 112, 64, 6, 2, 1, 1, Epilogue::kDirect, layout, Accum::kF32);
    std::vector<KernelConfig> compiled = catalog_like();
    compiled.push_back(square);
    compiled.push_back(narrower);
    const SearchSpace space(compiled, nominal_device("NVIDIA H100 80GB HBM3", 132));
    ASSERT_TRUE(space.compiled(narrower));
    Database db;
    db.header = kH100;
    db.records = {timed_record({256, 8192, 16384, layout, Accum::kF32}, square, 100, 100)};
    const TunedTable table(db, space, /*exact=*/true);
    const Problem query{256, 7168, 16384, layout, Accum::kF32};
    EXPECT_EQ(table.predict_nearest(query, NeighborRule::kCost), square);
    EXPECT_EQ(table.predict_nearest(query, NeighborRule::kSiblings),
              layout == Layout::kTN ? narrower : square)
        << to_string(layout);
  }
}

// A neighbour tuned at M = 128 won with a 64-row tile, which pads M = 80 to 128 rows; the
// transfer rule then weighs the swap-AB tiles that pad M x N less (80 over 64 rows of N) and
// takes one where the cost model finds it cheaper. Where the rows fit M (128) the pick stays, and
// the siblings rule does not fit M.
// A table of one timed record (`config` at `tuned`) over catalog_like() and `extra`.
struct OneRecord {
  OneRecord(std::vector<KernelConfig> extra, const Problem& tuned, const KernelConfig& config,
            double us, double ref_us)
      : space(with(std::move(extra)), nominal_device("NVIDIA H100 80GB HBM3", 132)) {
    db.header = kH100;
    db.records = {timed_record(tuned, config, us, ref_us)};
  }
  static std::vector<KernelConfig> with(std::vector<KernelConfig> extra) {
    std::vector<KernelConfig> compiled = catalog_like();
    compiled.insert(compiled.end(), extra.begin(), extra.end());
    return compiled;
  }
  TunedTable table() const { return TunedTable(db, space, /*exact=*/true); }
  SearchSpace space;
  Database db;
};

KernelConfig swapped(KernelConfig c) {
  c.swap_ab = true;
  return c;
}

TEST(TunerDb, TransferRuleFitsMWithASwapTile) {
  const KernelConfig narrow =
      sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect, Layout::kTN, Accum::kF32);
  const KernelConfig swap80 =
      swapped(sm90(80, 64, 64, 10, 1, 1, 1, Epilogue::kDirect, Layout::kTN, Accum::kF32));
  ASSERT_TRUE(swap80.validate().ok());
  const OneRecord one({swap80}, {128, 4096, 4096, Layout::kTN, Accum::kF32}, narrow, 20, 21);
  const SearchSpace& space = one.space;
  const Database& db = one.db;
  ASSERT_TRUE(space.compiled(narrow));
  const TunedTable table = one.table();
  const Problem eighty{80, 4096, 4096, Layout::kTN, Accum::kF32};
  EXPECT_EQ(table.predict_nearest(eighty, NeighborRule::kSiblings), narrow);
  EXPECT_EQ(table.predict_nearest(eighty, NeighborRule::kTransfer), swap80);
  EXPECT_EQ(table.predict(eighty), swap80);
  // 128 rows in two 80-wide tiles would pad more than the 64-row tile does, so the area rule keeps
  // it; from kSmallMFitMinM tokens the cost model's swap-AB tile over any height of N then takes
  // over (fit_small_m): two 80-wide tiles over 64 rows make 126 CTAs where 64x128 makes 64.
  EXPECT_EQ(table.predict({128, 4000, 4096, Layout::kTN, Accum::kF32}), swap80);
  // No swap-AB tile is compiled for NN here, so NN keeps its pick.
  Database nn = db;
  KernelConfig narrow_nn = narrow;
  narrow_nn.layout = Layout::kNN;
  nn.records = {timed_record({128, 4096, 4096, Layout::kNN, Accum::kF32}, narrow_nn, 20, 21)};
  EXPECT_EQ(TunedTable(nn, space, true).predict({80, 4096, 4096, Layout::kNN, Accum::kF32}),
            narrow_nn);
}

// The swap tiles compete by padded M x N area, not by M alone: at N = 576 a tile of 72 tokens over
// 192 rows of N makes 3 columns of tiles where 64x128 makes 4.5, though 72 pads M = 3000 more
// than 64 does (3024 against 3008 rows). Measured on the H100, 41 us against 65-72.
TEST(TunerDb, TransferRuleOffersSwapTilesThatPadMTimesNLess) {
  const KernelConfig narrow =
      sm90(64, 128, 64, 6, 1, 1, 1, Epilogue::kDirect, Layout::kTN, Accum::kF32);
  const KernelConfig swap72 =
      swapped(sm90(72, 192, 64, 6, 3, 1, 1, Epilogue::kDirect, Layout::kTN, Accum::kF32));
  ASSERT_TRUE(swap72.validate().ok());
  const OneRecord one({narrow, swap72}, {4096, 576, 7168, Layout::kTN, Accum::kF32}, narrow, 60,
                      61);
  const TunedTable table = one.table();
  const std::optional<KernelConfig> pick =
      table.predict_nearest({3000, 576, 7168, Layout::kTN, Accum::kF32}, NeighborRule::kTransfer);
  ASSERT_TRUE(pick.has_value());
  EXPECT_EQ(*pick, swap72) << pick->name();
  // At N = 512 the 192-row tiles pad N to 576 and cover more area than 64x128: not offered.
  EXPECT_EQ(table.predict_nearest({3000, 512, 7168, Layout::kTN, Accum::kF32},
                                  NeighborRule::kTransfer),
            narrow);
}

// A swap-AB tile `width` wide over 64 rows of N with one consumer warpgroup (TN, fp32).
KernelConfig swap_tile(int width, int stages) {
  return swapped(sm90(width, 64, 64, stages, 1, 1, 1, Epilogue::kDirect, Layout::kTN, Accum::kF32));
}

// With the JIT on every ring depth of a tile is legal, and the cost model charges a tile its
// ring's depth, so the swap-AB widths a pick varies over would all come with the shallowest ring
// (1000x576x2048 ran a 72-wide tile with 3 stages at 1.7x the catalog's 112-wide time). A width
// competes at the depths the catalog compiles for it, and a width only the JIT builds at the
// deepest legal one.
TEST(TunerDb, VariedSwapWidthsKeepADeepRing) {
  std::vector<KernelConfig> compiled = catalog_like();
  const KernelConfig winner = swap_tile(48, 12);
  compiled.push_back(winner);
  // As the JIT would make them legal: the widths at a shallow and a deep ring.
  for (int width : {72, 80})
    for (int stages : {3, 10}) {
      ASSERT_TRUE(swap_tile(width, stages).validate().ok());
      compiled.push_back(swap_tile(width, stages));
    }
  const SearchSpace space(compiled, nominal_device("NVIDIA H100 80GB HBM3", 132));
  Database db;
  db.header = kH100;
  db.records = {timed_record({48, 4096, 4096, Layout::kTN, Accum::kF32}, winner, 20, 21)};
  const TunedTable table(db, space, /*exact=*/true);
  // M = 70, N = 8192: one 72-wide tile per 64 columns (128 CTAs, one wave) instead of two
  // 48-wide ones (256, two waves). 72x64 is not in this build's catalog, so it competes at its
  // deepest legal ring, 10, not at 3, which the cost model would prefer.
  const std::optional<KernelConfig> pick =
      table.predict_nearest({70, 8192, 4096, Layout::kTN, Accum::kF32}, NeighborRule::kSiblings);
  ASSERT_TRUE(pick.has_value());
  EXPECT_EQ(*pick, swap_tile(72, 10)) << pick->name();
}

// Where the rules rank different tiles, each tile's efficiency is fitted to its times in the table
// (half way to the formula's): the formula rates a 48-wide swap-AB tile close enough to a 136-wide
// one that at M = 129 three 48-wide tiles in two waves look cheaper than one 136-wide in one;
// measured on the H100, 21.7 us against 16.7. Here the 136-wide tile's times at three shapes
// say it runs twice the formula's speed, and the 48-wide's what the formula says.
TEST(TunerDb, FittedEfficiencyRanksTilesByTheirTimes) {
  std::vector<KernelConfig> compiled = catalog_like();
  const KernelConfig narrow = swap_tile(48, 12), wide = swap_tile(136, 8);
  compiled.push_back(narrow);
  compiled.push_back(wide);
  const DeviceInfo device = nominal_device("NVIDIA H100 80GB HBM3", 132);
  const SearchSpace space(compiled, device);
  auto build = [&](double wide_speed) {
    Database db;
    db.header = kH100;
    for (int64_t m : {48, 40, 32}) {
      const Problem p{m, 4096, 4096, Layout::kTN, Accum::kF32};
      // Times in proportion to the formula's cost: the fit's scale cancels.
      const double narrow_us = dispatch::estimate_cost(p, narrow, device) / 1e6;
      const double wide_us = dispatch::estimate_cost(p, wide, device) / 1e6 / wide_speed;
      db.records.push_back(timed_record(p, narrow, narrow_us, 10));
      db.records.push_back(timed_record(p, wide, wide_us, 10));
    }
    return db;
  };
  const Problem target{129, 4608, 3584, Layout::kTN, Accum::kF32};
  ASSERT_LT(dispatch::estimate_cost(target, narrow, device),
            dispatch::estimate_cost(target, wide, device))
      << "the formula alone prefers the narrow tile here";
  const TunedTable fast_wide(build(2.0), space, /*exact=*/true);
  const std::optional<KernelConfig> pick = fast_wide.predict_nearest(target, NeighborRule::kSiblings);
  ASSERT_TRUE(pick.has_value());
  EXPECT_EQ(pick->instance(), wide.instance()) << pick->name();
  // Times that agree with the formula leave its ranking.
  const TunedTable as_formula(build(1.0), space, /*exact=*/true);
  const std::optional<KernelConfig> plain =
      as_formula.predict_nearest(target, NeighborRule::kSiblings);
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->instance(), narrow.instance()) << plain->name();
}

// The leave-one-out tests' two tiles, timed on problems 128 x N x 4096 (TN, fp32).
struct LooTiles {
  SearchSpace space{catalog_like(), nominal_device("NVIDIA H100 80GB HBM3", 132)};
  KernelConfig narrow = sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect, Layout::kTN, Accum::kF32);
  KernelConfig square =
      sm90(128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore, Layout::kTN, Accum::kF32);
  static Problem at(int64_t n) { return Problem{128, n, 4096, Layout::kTN, Accum::kF32}; }
};

// hgemm db loo: each measured problem is predicted from the others and the pick is scored by its
// own measurement there; a pick never measured there is not scored.
TEST(TunerDb, LeaveOneOutScoresPicksByTheirMeasurements) {
  const LooTiles tiles;
  const SearchSpace& space = tiles.space;
  const KernelConfig &narrow = tiles.narrow, &square = tiles.square;
  auto at = LooTiles::at;
  Database db;
  db.header = kH100;
  db.records = {timed_record(at(4096), narrow, 10, 11),  timed_record(at(4096), square, 12, 11),
                timed_record(at(8192), narrow, 25, 22),  timed_record(at(8192), square, 20, 22),
                timed_record(at(16384), narrow, 60, 44), timed_record(at(16384), square, 40, 44),
                timed_record(at(32768), narrow, 200, 90)};
  const TunedTable table(db, space, /*exact=*/true);
  // Left out, 4096 takes 8192's winner (square, 12 us against its best 10); 8192 ties between
  // 4096 and 16384 and takes the first name (square: its own best); 16384 takes square from
  // 8192 (ahead of 32768's narrow by name); 32768 takes square, never measured there.
  const auto scores = leave_one_out(table, db, {NeighborRule::kNearest, NeighborRule::kCost});
  ASSERT_EQ(scores.size(), 2u);
  const RuleScore& nearest = scores[0];
  EXPECT_EQ(nearest.problems, 4);
  EXPECT_EQ(nearest.covered, 3);
  EXPECT_EQ(nearest.best, 2);
  EXPECT_NEAR(nearest.ratio, std::cbrt(10.0 / 12.0), 1e-12);
  EXPECT_NEAR(nearest.speedup, std::cbrt(11.0 / 12 * 22.0 / 20 * 44.0 / 40), 1e-12);
  EXPECT_NEAR(nearest.best_speedup, std::cbrt(11.0 / 10 * 22.0 / 20 * 44.0 / 40), 1e-12);
  EXPECT_NEAR(nearest.within_2pct, 2.0 / 3, 1e-12);
  // Each covered problem with its pick and best, worst first: 4096's square against narrow.
  ASSERT_EQ(nearest.picks.size(), 3u);
  EXPECT_EQ(nearest.picks[0].problem.name(), at(4096).name());
  EXPECT_EQ(nearest.picks[0].pick, square.name());
  EXPECT_EQ(nearest.picks[0].best, narrow.name());
  EXPECT_NEAR(nearest.picks[0].ratio, 10.0 / 12.0, 1e-12);
  EXPECT_NEAR(nearest.picks[2].ratio, 1.0, 1e-12);
  EXPECT_LE(scores[1].common, std::min(scores[0].covered, scores[1].covered));
  EXPECT_EQ(scores[0].common, scores[1].common);
  // The table itself still answers for its own problems: leaving out is only for scoring.
  EXPECT_EQ(table.predict_nearest(at(4096), NeighborRule::kNearest), narrow);
  // Only the requested layout is scored.
  EXPECT_EQ(leave_one_out(table, db, {NeighborRule::kNearest}, Layout::kNN)[0].problems, 0);
}

// --twins-as-direct: a swap-AB TMA-store twin the table never measured at a problem is scored
// there by its direct-store tile; without it the problem is not covered.
TEST(TunerDb, LeaveOneOutScoresAnUnmeasuredTwinByItsDirectStoreTileWhenAsked) {
  KernelConfig twin = sm90(128, 128, 64, 5, 2, 1, 1, Epilogue::kTmaStore, Layout::kTN, Accum::kF32);
  twin.swap_ab = true;
  KernelConfig direct = twin;
  direct.epilogue = Epilogue::kDirect;
  direct.num_stages = 6;
  const KernelConfig narrow =
      sm90(64, 128, 32, 8, 1, 1, 1, Epilogue::kDirect, Layout::kTN, Accum::kF32);
  const SearchSpace space({twin, direct, narrow}, nominal_device("NVIDIA H100 80GB HBM3", 132));
  auto at = LooTiles::at;
  Database db;
  db.header = kH100;
  // 4096: the twin wins; 8192: the direct-store tile wins, the twin was never timed there.
  db.records = {timed_record(at(4096), twin, 10, 11), timed_record(at(4096), direct, 11, 11),
                timed_record(at(8192), direct, 20, 22), timed_record(at(8192), narrow, 25, 22)};
  const TunedTable table(db, space, /*exact=*/true);
  const RuleScore plain = leave_one_out(table, db, {NeighborRule::kNearest})[0];
  EXPECT_EQ(plain.covered, 1);  // 4096, whose pick (8192's winner, direct) was timed there
  EXPECT_EQ(plain.as_direct, 0);
  const RuleScore as_direct =
      leave_one_out(table, db, {NeighborRule::kNearest}, std::nullopt, true)[0];
  EXPECT_EQ(as_direct.covered, 2);
  EXPECT_EQ(as_direct.as_direct, 1);
  // 8192 takes 4096's twin, scored by direct's 20 us there: the best measured, ratio 1.
  const auto it =
      std::find_if(as_direct.picks.begin(), as_direct.picks.end(),
                   [&](const PickScore& p) { return p.problem.name() == at(8192).name(); });
  ASSERT_NE(it, as_direct.picks.end());
  EXPECT_EQ(it->pick, twin.name());
  EXPECT_EQ(it->scored_as, direct.name());
  EXPECT_NEAR(it->ratio, 1.0, 1e-12);
  EXPECT_EQ(as_direct.best, 1);
}

// The scores compare speedups, each time over its own interleaved reference: a config timed
// while the card ran a faster clock has the lower time but is not the better one.
TEST(TunerDb, LeaveOneOutRanksConfigsByTheirSpeedupsNotTheirTimes) {
  const LooTiles tiles;
  const SearchSpace& space = tiles.space;
  const KernelConfig &narrow = tiles.narrow, &square = tiles.square;
  auto at = LooTiles::at;
  Database db;
  db.header = kH100;
  // At 8192 narrow ran 10 us beside a reference of 8 (a fast clock), square 12 beside 11.
  db.records = {timed_record(at(4096), narrow, 10, 12), timed_record(at(4096), square, 12, 12),
                timed_record(at(8192), narrow, 10, 8), timed_record(at(8192), square, 12, 11)};
  const TunedTable table(db, space, /*exact=*/true);
  const RuleScore nearest = leave_one_out(table, db, {NeighborRule::kNearest}, Layout::kTN)[0];
  // Each takes the other's winner (the table's winners are by speedup too): 4096 square, 1.0
  // against narrow's 1.2; 8192 narrow, the lower time there (10 us against 12) but the worse
  // speedup (0.8 against 11 / 12). By times 8192's pick would have scored as its best.
  EXPECT_EQ(nearest.covered, 2);
  EXPECT_EQ(nearest.best, 0);
  EXPECT_NEAR(nearest.ratio, std::sqrt(1.0 / 1.2 * 0.8 / (11.0 / 12)), 1e-12);
  EXPECT_EQ(nearest.within_2pct, 0.0);
}

// Whether a problem's winner was ever compared with a split-K config is tracked per problem:
// a database tuned before the split-K axis existed must not hide a split from dispatch.
TEST(TunerDb, TunedTableTracksSplitKSearchPerProblem) {
  const SearchSpace space(catalog_like(), nominal_device("NVIDIA H100 80GB HBM3", 132));
  const Problem old_shape{256, 256, 16384, Layout::kTN, Accum::kF32};
  const Problem new_shape{256, 512, 16384, Layout::kTN, Accum::kF32};
  const KernelConfig wide =
      sm90(128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore, Layout::kTN, Accum::kF32);
  KernelConfig split;  // the sm80 instance
  split.layout = Layout::kTN;
  split.accum = Accum::kF32;
  split.split_k = 8;
  auto rec = [&](const Problem& prob, const KernelConfig& c, double us) {
    return timed_record(prob, c, us, 100);
  };
  Database db;
  db.header = kH100;
  db.records = {rec(old_shape, wide, 80), rec(new_shape, wide, 80), rec(new_shape, split, 120)};
  const TunedTable table(db, space, true);
  ASSERT_NE(table.find(old_shape), nullptr);
  ASSERT_NE(table.find(new_shape), nullptr);
  EXPECT_FALSE(table.find(old_shape)->searched_split_k);
  EXPECT_TRUE(table.find(new_shape)->searched_split_k);
  EXPECT_EQ(table.find(new_shape)->config, wide);  // the split was measured and lost
  EXPECT_TRUE(table.measured_split_k());
}

// A database's records are used on the CPU as on its own device: the header's GPU, SMs and L2
// (the raster guard reads the L2), the nominal H100's where the header is silent.
TEST(TunerDb, TheDeviceADatabaseDescribes) {
  const DeviceInfo h200 = database_device(
      {{"gpu", "NVIDIA H200"}, {"sm_count", "132"}, {"l2_bytes", "62914560"}});
  EXPECT_EQ(h200.name, "NVIDIA H200");
  EXPECT_EQ(h200.sm_count, 132);
  EXPECT_EQ(h200.l2_bytes, 62914560);
  const DeviceInfo silent = database_device({{"gpu", "NVIDIA H800"}, {"sm_count", "x"}});
  EXPECT_EQ(silent.sm_count, 132);
  EXPECT_EQ(silent.l2_bytes, nominal_device().l2_bytes);
  EXPECT_EQ(database_device({{"l2_bytes", "-1"}}).l2_bytes, nominal_device().l2_bytes);
  EXPECT_EQ(database_device({}).name, "unknown");
}

TEST(TunerDb, PathsAndSlugs) {
  EXPECT_EQ(gpu_slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(gpu_slug("  NVIDIA  H200 (MIG 1g.18gb) "), "nvidia-h200-mig-1g-18gb");
  EXPECT_EQ(gpu_slug(""), "unknown-gpu");
  const char* saved = std::getenv("HGEMM_DB");
  const std::string saved_value = saved ? saved : "";
  ::unsetenv("HGEMM_DB");
  const std::string path = default_db_path("NVIDIA H100 80GB HBM3", Accum::kF16);
  EXPECT_NE(path.find("data/tuned/nvidia-h100-80gb-hbm3-f16.jsonl"), std::string::npos) << path;
  // The compressed file is taken only when no plain one (a database being tuned) is beside it.
  const std::string plain = path.substr(0, path.find(".jsonl") + 6);
  EXPECT_EQ(path == plain + ".gz", !fs::exists(plain) && fs::exists(plain + ".gz")) << path;
  ::setenv("HGEMM_DB", "/tmp/elsewhere.jsonl", 1);
  EXPECT_EQ(default_db_path("NVIDIA H100 80GB HBM3", Accum::kF16), "/tmp/elsewhere.jsonl");
  if (saved) ::setenv("HGEMM_DB", saved_value.c_str(), 1);
  else ::unsetenv("HGEMM_DB");
}

// Records timed with and without programmatic dependent launch must not compete in one database:
// a run may append only under the database's timing conditions.
TEST(TunerDb, TimingConditionsMustMatchToAppend) {
  const Fingerprint on{{"gpu", "NVIDIA H100 80GB HBM3"}, {"sm_count", "132"}, {"pdl", "on"}};
  const Fingerprint off{{"gpu", "NVIDIA H100 80GB HBM3"}, {"sm_count", "132"}, {"pdl", "off"}};
  EXPECT_EQ(timing_mismatch(on, true, on), "");
  EXPECT_EQ(timing_mismatch(off, true, off), "");
  const std::string why = timing_mismatch(off, true, on);
  EXPECT_NE(why.find("launch off"), std::string::npos) << why;
  EXPECT_NE(why.find("HGEMM_PDL=0"), std::string::npos) << why;
  EXPECT_NE(timing_mismatch(on, true, off).find("HGEMM_PDL=1"), std::string::npos);
  // Records from before the key existed were timed without PDL; an empty file takes any run.
  EXPECT_NE(timing_mismatch(kH100, true, on), "");
  EXPECT_EQ(timing_mismatch(kH100, true, off), "");
  EXPECT_EQ(timing_mismatch(kH100, false, on), "");
  EXPECT_EQ(timing_mismatch({}, false, on), "");
  // A run that does not say (the synthetic measurer) is not compared.
  EXPECT_EQ(timing_mismatch(off, true, kH100), "");
}

}  // namespace
}  // namespace hgemm::tuner
