#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>

#include "core/suite.hpp"
#include "dispatch/table.hpp"
#include "hgemm/hgemm.hpp"

TEST(Suite, ParsesCommentsBlanksAndCommas) {
  auto shapes = hgemm::parse_suite("# header\n\n64 128 256\n  1,2,3  # trailing\n\t7\t8\t9\n");
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[0], (hgemm::Shape{64, 128, 256}));
  EXPECT_EQ(shapes[1], (hgemm::Shape{1, 2, 3}));
  EXPECT_EQ(shapes[2], (hgemm::Shape{7, 8, 9}));
}

TEST(Suite, ErrorsNameTheLine) {
  struct Case {
    const char* text;
    const char* needle;
  };
  for (const Case& c : {Case{"1 2\n", "x:1: expected 'M N K'"}, Case{"1 2 3\n4 5 six\n", "x:2:"},
                        Case{"1 2 3 4\n", "x:1:"}, Case{"0 2 3\n", "positive"},
                        Case{"1 -2 3\n", "positive"}, Case{"1 2 3.5\n", "not an integer"}}) {
    try {
      hgemm::parse_suite(c.text, "x");
      ADD_FAILURE() << "no error for: " << c.text;
    } catch (const hgemm::Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << e.what();
      EXPECT_EQ(e.status(), HGEMM_ERROR_INVALID_SIZE);
    }
  }
}

TEST(Suite, NamedSuitesShipWithTheRepo) {
  setenv("HGEMM_SUITE_DIR", HGEMM_SOURCE_DIR "/bench/suites", 1);
  auto grid = hgemm::load_suite("grid");
  ASSERT_EQ(grid.size(), 1000u);
  std::set<std::tuple<int64_t, int64_t, int64_t>> unique;
  const std::set<int64_t> values{64, 128, 256, 512, 1024, 2048, 4096, 8192, 12288, 16384};
  for (auto s : grid) {
    unique.insert({s.m, s.n, s.k});
    EXPECT_TRUE(values.count(s.m) && values.count(s.n) && values.count(s.k));
  }
  EXPECT_EQ(unique.size(), 1000u);
  auto smoke = hgemm::load_suite("smoke");
  EXPECT_GE(smoke.size(), 15u);
  EXPECT_LE(smoke.size(), 30u);
  auto edge = hgemm::load_suite("edge");
  bool has_unit = false, has_odd = false;
  for (auto s : edge) {
    has_unit |= s == hgemm::Shape{1, 1, 1};
    has_odd |= s == hgemm::Shape{17, 33, 65};
  }
  EXPECT_TRUE(has_unit && has_odd);
  // Every shipped suite parses; decode holds 25 LLM decode shapes and 50 grid ones, all skinny.
  for (const auto& entry : std::filesystem::directory_iterator(HGEMM_SOURCE_DIR "/bench/suites"))
    if (entry.path().extension() == ".txt")
      EXPECT_FALSE(hgemm::load_suite(entry.path().stem().string()).empty()) << entry.path();
  auto decode = hgemm::load_suite("decode");
  EXPECT_EQ(decode.size(), 75u);
  for (auto s : decode) EXPECT_LE(s.m, 128);
  EXPECT_THROW(hgemm::load_suite("no-such-suite"), hgemm::Error);
}

// Issue 19's public suite: at least 150 real shapes; llm-tune and llm-heldout split it without
// overlap, the held-out part about a fifth; at least a third of the token counts (M) are not
// multiples of 64 and some are odd; the token counts the issue names are all there.
TEST(Suite, LlmSuiteSplitsIntoTuneAndHeldOut) {
  using Key = std::tuple<int64_t, int64_t, int64_t>;
  auto keys = [](const std::string& name) {
    std::set<Key> out;
    for (const auto& s : hgemm::load_suite(HGEMM_SOURCE_DIR "/bench/suites/" + name + ".txt"))
      out.insert({s.m, s.n, s.k});
    return out;
  };
  const auto all = keys("llm"), tune = keys("llm-tune"), held = keys("llm-heldout");
  EXPECT_GE(all.size(), 150u);
  std::set<Key> both;
  for (const Key& k : tune) EXPECT_EQ(held.count(k), 0u) << "tuned and held out";
  both.insert(tune.begin(), tune.end());
  both.insert(held.begin(), held.end());
  EXPECT_EQ(both, all);
  EXPECT_GE(held.size() * 6, all.size());
  EXPECT_LE(held.size() * 4, all.size());
  std::set<int64_t> ms;
  for (const Key& k : all) ms.insert(std::get<0>(k));
  const size_t unaligned = size_t(std::count_if(ms.begin(), ms.end(), [](int64_t m) { return m % 64; }));
  EXPECT_GE(unaligned * 3, ms.size());
  EXPECT_TRUE(std::any_of(ms.begin(), ms.end(), [](int64_t m) { return m % 2 == 1 && m > 1; }));
  for (int64_t t : {1, 2, 4, 8, 16, 24, 32, 48, 64, 100, 128, 200, 256, 384, 500, 512, 768, 1000,
                    1024, 1536, 2048, 3000, 4096, 8192})
    EXPECT_EQ(ms.count(t), 1u) << "token count " << t;
}

// The held-out fifth and llm-fresh stay untuned: no shipped table has an entry for one of their
// shapes, so the generalization checks (scripts/gpu-check generalize-untuned, the fresh suite's
// A/Bs) always measure dispatch's guess.
TEST(Suite, ShippedTablesHoldNoHeldOutShape) {
  std::set<std::tuple<int64_t, int64_t, int64_t>> held;
  for (const char* suite : {HGEMM_SOURCE_DIR "/bench/suites/llm-heldout.txt",
                            HGEMM_SOURCE_DIR "/bench/suites/llm-fresh.txt"})
    for (const auto& s : hgemm::load_suite(suite)) held.insert({s.m, s.n, s.k});
  int tables = 0;
  for (const auto& file : std::filesystem::directory_iterator(HGEMM_SOURCE_DIR "/data/tables")) {
    if (file.path().extension() != ".table") continue;
    ++tables;
    const hgemm::dispatch::Table table = hgemm::dispatch::load_table(file.path().string());
    EXPECT_GT(table.entries.size(), 1000u) << file.path();
    for (const auto& e : table.entries)
      EXPECT_EQ(held.count({e.m, e.n, e.k}), 0u)
          << file.path() << " tunes held-out shape " << e.m << "x" << e.n << "x" << e.k;
  }
  EXPECT_GE(tables, 2);
}
