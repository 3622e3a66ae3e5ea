#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <tuple>

#include "core/suite.hpp"
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
