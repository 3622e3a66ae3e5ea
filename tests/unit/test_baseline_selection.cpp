// cublaslt-autotune's and cublaslt-best's selection logic (baselines::select_finalists and
// choose_algorithms) on recorded timings: which candidates the final measurement re-times, and
// which of them each kind runs. Candidate 0 is the heuristic's pick.
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "baselines/baselines.hpp"

namespace {

using hgemm::baselines::choose_algorithms;
using hgemm::baselines::Kind;
using hgemm::baselines::parse_kind;
using hgemm::baselines::select_finalists;
using hgemm::baselines::Selection;

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(BaselineSelection, FinalistsAreTheScreensFastestThenTheHeuristic) {
  // Screen order by time: 3 (0.8), 5 (0.9), 1 (1.0), then 0 (1.2): the heuristic is appended.
  EXPECT_EQ(select_finalists({1.2, 1.0, 1.5, 0.8, 2.0, 0.9}, 3), (std::vector<int>{3, 5, 1, 0}));
  // The heuristic among the fastest is not repeated.
  EXPECT_EQ(select_finalists({0.7, 1.0, 1.5, 0.8, 2.0, 0.9}, 3), (std::vector<int>{0, 3, 5}));
}

TEST(BaselineSelection, FinalistsSkipFailedCandidatesAndBreakTiesByIndex) {
  EXPECT_EQ(select_finalists({kInf, 1.0, kInf, 1.0, 0.5}, 3), (std::vector<int>{4, 1, 3, 0}));
  // Everything failed in the screen: the heuristic alone is re-timed.
  EXPECT_EQ(select_finalists({kInf, kInf}, 3), (std::vector<int>{0}));
  EXPECT_EQ(select_finalists({}, 3), (std::vector<int>{}));
}

TEST(BaselineSelection, BestIsTheFasterOfTheAutotunePickAndTheHeuristic) {
  // Finalists 3, 5, 1 from the screen, then the heuristic 0.
  const std::vector<int> finalists{3, 5, 1, 0};
  // The screen's second pick is fastest in the final; the heuristic is slower still.
  auto p = choose_algorithms(finalists, {1.00, 0.95, 1.10, 1.20}, 3);
  EXPECT_EQ(p.autotune, 5);
  EXPECT_EQ(p.best, 5);
  // The heuristic wins the final: autotune keeps the screen's picks, best takes the heuristic.
  p = choose_algorithms(finalists, {1.00, 0.95, 1.10, 0.90}, 3);
  EXPECT_EQ(p.autotune, 5);
  EXPECT_EQ(p.best, 0);
}

TEST(BaselineSelection, FailedFinalistsAreNeverChosen) {
  const std::vector<int> finalists{3, 5, 0};
  auto p = choose_algorithms(finalists, {kInf, 1.0, 0.5}, 2);
  EXPECT_EQ(p.autotune, 5);
  EXPECT_EQ(p.best, 0);
  // Every screen pick failed in the final: autotune falls back to the heuristic.
  p = choose_algorithms(finalists, {kInf, kInf, 0.5}, 2);
  EXPECT_EQ(p.autotune, 0);
  EXPECT_EQ(p.best, 0);
  // Nothing ran: no pick at all.
  p = choose_algorithms(finalists, {kInf, kInf, kInf}, 2);
  EXPECT_EQ(p.autotune, -1);
  EXPECT_EQ(p.best, -1);
  EXPECT_THROW(choose_algorithms(finalists, {1.0}, 1), hgemm::Error);
}

TEST(BaselineSelection, WithoutAScreenEveryCandidateIsFinal) {
  // Few candidates: all of them are timed in the final, and both kinds take the fastest.
  const auto p = choose_algorithms({0, 1, 2}, {1.0, 0.7, 0.9}, 3);
  EXPECT_EQ(p.autotune, 1);
  EXPECT_EQ(p.best, 1);
}

TEST(BaselineSelection, DescribeNamesTheAlgorithmAndTheFinalTimes) {
  Selection s;
  s.candidates = {"id 1 tile 2 stages 3 splitk 1", "id 4 tile 5 stages 6 splitk 1",
                  "id 7 tile 8 stages 9 splitk 2"};
  s.screen_ms = {1.2, 0.8, 0.9};
  s.finalists = {1, 2, 0};
  s.final_ms = {0.81, 0.9, 0.8};
  s.from_screen = 2;
  s.picks = choose_algorithms(s.finalists, s.final_ms, s.from_screen);
  EXPECT_EQ(s.describe(Kind::kLtAutotune),
            "candidate 1 of 3, the autotune pick (id 4 tile 5 stages 6 splitk 1); graph ms #1 "
            "0.81 #2 0.9 #0 0.8");
  EXPECT_EQ(s.describe(Kind::kLtBest),
            "candidate 0 of 3, the heuristic's pick (id 1 tile 2 stages 3 splitk 1); graph ms "
            "#1 0.81 #2 0.9 #0 0.8");
}

TEST(BaselineSelection, KindNamesRoundTrip) {
  for (Kind k : hgemm::baselines::kAllKinds) EXPECT_EQ(parse_kind(to_string(k)), k);
  EXPECT_EQ(parse_kind("cublaslt-best"), Kind::kLtBest);
  EXPECT_FALSE(parse_kind("cublaslt-fastest"));
}

}  // namespace
