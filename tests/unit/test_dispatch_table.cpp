// The dispatch table: its text form, the committed H100 tables against the JSONL histories they
// are exported from, dispatch on them against the tuner's TunedTable, and the cost of loading one.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>

#include "launch/launch.hpp"
#include "core/file_io.hpp"
#include "core/suite.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/locate.hpp"
#include "dispatch/table.hpp"
#include "registry/registry.hpp"
#include "tuner/db/database.hpp"
#include "tuner/db/table_export.hpp"
#include "tuner/db/tuned_table.hpp"
#include "tuner/space/space.hpp"

namespace {

using namespace hgemm;

const char* kH100 = "NVIDIA H100 80GB HBM3";

DeviceInfo h100() {
  DeviceInfo d = tuner::nominal_device(kH100, 132);
  d.ordinal = 0;
  return d;
}

std::string jsonl(Accum acc) {
  return std::string(HGEMM_SOURCE_DIR) + "/data/tuned/nvidia-h100-80gb-hbm3-" +
         std::string(to_string(acc)) + ".jsonl.gz";
}

std::string committed(Accum acc) {
  return std::string(HGEMM_SOURCE_DIR) + "/data/tables/" + dispatch::table_file_name(kH100, acc);
}

void expect_parse_error(const std::string& text, const std::string& needle) {
  try {
    dispatch::parse_table(text, "t.table");
    ADD_FAILURE() << "parsed: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(DispatchTable, RoundTripAndErrors) {
  dispatch::Table t;
  t.gpu = kH100;
  t.sm_count = 132;
  t.source = "x.jsonl.gz";
  t.measured_split_k = true;
  const auto c = KernelConfig::parse("sm80_mma_128x128x32_s3_w2x2_sk8_f32_tn");
  ASSERT_TRUE(c) << "test config name no longer parses";
  const auto d = KernelConfig::parse("sm90_ws_128x128x64_s5_c1x2_w2_m8_tma_sk1_f32_tn");
  ASSERT_TRUE(d) << "test config name no longer parses";
  t.entries.push_back({4096, 128, 16384, Layout::kTN, *c, true, {{*d, 812.25}, {*c, 1234.5678}}});
  t.entries.push_back({64, 128, 16384, Layout::kTN, *c, false});
  t.blocked.push_back(c->name());
  const std::string text = dispatch::format_table(t);
  const dispatch::Table back = dispatch::parse_table(text, "t.table");
  EXPECT_EQ(dispatch::format_table(back), text);
  ASSERT_EQ(back.entries.size(), 2u);
  EXPECT_EQ(back.entries[0].m, 64);  // sorted by shape
  EXPECT_FALSE(back.entries[0].searched_split_k);
  EXPECT_TRUE(back.entries[0].timed.empty());
  EXPECT_EQ(back.entries[1].config, *c);
  ASSERT_EQ(back.entries[1].timed.size(), 2u);
  EXPECT_EQ(back.entries[1].timed[0].config, *d);
  EXPECT_EQ(back.entries[1].timed[0].us, 812.2);  // four significant digits
  EXPECT_EQ(back.entries[1].timed[1].us, 1235.0);
  EXPECT_EQ(dispatch::carried_us(1234.5678), 1235.0);
  EXPECT_NE(text.find("\n4096 128 16384 tn 0 1 1:812.2 0:1235\n"), std::string::npos) << text;

  // Format 1 (the user tables of earlier versions) has no times and is still read; a time in it
  // is an error.
  std::string v1 = text;
  v1.replace(v1.find("hgemm-dispatch-table 2"), 22, "hgemm-dispatch-table 1");
  v1.replace(v1.find(" 1:812.2 0:1235"), 15, "");
  const dispatch::Table old = dispatch::parse_table(v1, "t.table");
  ASSERT_EQ(old.entries.size(), 2u);
  EXPECT_TRUE(old.entries[1].timed.empty());
  std::string v1_timed = v1;
  v1_timed.replace(v1_timed.find("4096 128 16384 tn 0 1"), 21, "4096 128 16384 tn 0 1 0:5");
  expect_parse_error(v1_timed, "'m n k layout config searched_split_k'");

  auto entry_with = [&](const std::string& timed) {
    std::string bad = text;
    bad.replace(bad.find("1:812.2 0:1235"), 14, timed);
    return bad;
  };
  expect_parse_error(entry_with("1:812.2 0-1235"), "is not number:microseconds");
  expect_parse_error(entry_with("1:812.2 0:-3"), "not a positive number of microseconds");
  expect_parse_error(entry_with("1:812.2 0:nan"), "not a positive number of microseconds");
  expect_parse_error(entry_with("1:812.2 0:12us"), "not a positive number of microseconds");
  expect_parse_error(entry_with("1:812.2 7:1235"), "config number");
  std::string many;
  for (int i = 0; i <= dispatch::kCarriedConfigs; ++i) many += (i ? " " : "") + std::string("0:1");
  expect_parse_error(entry_with(many), "timed configs, at most");

  expect_parse_error("", "not a dispatch table");
  expect_parse_error("\x1f\x8b garbage", "not a dispatch table");
  expect_parse_error("hgemm-dispatch-table 3\n", "format 3");
  std::string cut = text.substr(0, text.size() - 30);  // into the last entry's shape
  expect_parse_error(cut, "t.table:");
  std::string dup = text + "64 128 16384 tn 0 1\n";
  expect_parse_error(dup, "unexpected text");
  // After the last entry blank lines and comments, indented or not, are no text; a line with
  // text before its comment is.
  EXPECT_EQ(dispatch::parse_table(text + "\n# note\n  # indented note\n\t\r\n", "t.table")
                .entries.size(),
            2u);
  expect_parse_error(text + "  # note\n  x # y\n", "unexpected text");
  std::string big = text;
  big.replace(big.find("entries 2"), 9, "entries 99999999999");
  expect_parse_error(big, "entries");
}

// The committed tables are exactly what `hgemm db export --table` makes of the committed
// histories with this build's catalog: regenerate them when either changes.
TEST(DispatchTable, CommittedTablesMatchTheirHistories) {
  for (Accum acc : {Accum::kF32, Accum::kF16}) {
    const tuner::Database db = tuner::load_database(jsonl(acc));
    const std::string fresh = dispatch::format_table(
        tuner::export_table(db, acc, std::filesystem::path(jsonl(acc)).filename().string()));
    const auto file = read_file(committed(acc));
    ASSERT_TRUE(file) << committed(acc) << " is missing";
    EXPECT_TRUE(*file == fresh) << committed(acc) << " differs from the export of " << jsonl(acc)
                                << ": hgemm db export " << jsonl(acc) << " --acc "
                                << to_string(acc) << " --table " << committed(acc);
  }
}

// Every tuned problem: the table's decision is the TunedTable's winner (dispatch as it was), and
// for untuned shapes the table's neighbour rule picks what TunedTable::predict picks.
TEST(DispatchTable, SameWinnersAsTheHistory) {
  const DeviceInfo d = h100();
  std::vector<Shape> untuned = load_suite(std::string(HGEMM_SOURCE_DIR) + "/bench/suites/llm.txt");
  for (int64_t n : {100, 1000, 3000, 7168, 12345})
    untuned.push_back({n / 3 + 1, n, 4096 + n % 7});
  for (Accum acc : {Accum::kF32, Accum::kF16}) {
    tuner::TunedTable history = tuner::TunedTable::load(
        jsonl(acc), tuner::SearchSpace::from_catalog(d));
    const dispatch::LoadedTable shipped(dispatch::load_table(committed(acc)), committed(acc), d);
    ASSERT_TRUE(shipped.usable()) << shipped.status();
    // The model beside the table, where there is one, as `hgemm db predict --model` gives it.
    const std::string model = dispatch::model_path_for_table(committed(acc));
    if (std::filesystem::exists(model))
      history.set_model(
          std::make_shared<const dispatch::DispatchModel>(dispatch::load_model(model)));
    EXPECT_EQ(shipped.model() != nullptr, std::filesystem::exists(model)) << shipped.model_status();
    const dispatch::LoadedTable none = dispatch::LoadedTable::none("", "");
    const dispatch::Tables tables{&none, &shipped};
    size_t tuned = 0;
    for (const auto& [key, entry] : history.entries()) {
      const Problem p = key.problem();
      const dispatch::TableEntry* e = shipped.find(p);
      ASSERT_NE(e, nullptr) << p.name();
      EXPECT_EQ(e->config, entry.config) << p.name();
      EXPECT_EQ(e->searched_split_k, entry.searched_split_k) << p.name();
      ++tuned;
    }
    EXPECT_EQ(tuned, shipped.table()->entries.size());
    int neighbours = 0;
    for (const Shape& s : untuned)
      for (Layout l : {Layout::kNN, Layout::kTN}) {
        const Problem p{s.m, s.n, s.k, l, acc};
        if (history.find(p)) continue;
        auto expected = history.predict(p);
        const dispatch::Decision got = dispatch::decide(p, stand_in_args(p), d, tables);
        if (got.source != dispatch::Source::kNeighbors) continue;
        ++neighbours;
        ASSERT_TRUE(expected) << p.name();
        // After the rule dispatch trims a split that runs no shorter than fewer splits
        // (split_within_rounds), unsplits few tokens over a wide N (narrow_unsplit_tile), then
        // splits the last round (splits_last_round).
        if (const std::optional<int> s = dispatch::split_within_rounds(p, *expected,
                                                                       stand_in_args(p), d))
          expected->split_k = *s;
        if (const std::optional<KernelConfig> u =
                dispatch::narrow_unsplit_tile(p, *expected, stand_in_args(p), d))
          *expected = *u;
        if (dispatch::splits_last_round(p, *expected, stand_in_args(p), d)) expected->split_k = 0;
        EXPECT_EQ(got.config.name(), expected->name()) << p.name() << ": " << got.reason;
      }
    EXPECT_GT(neighbours, 50);
  }
}

// What the first hgemmRun adds over context creation: read and parse the table, index it, and
// decide one untuned shape (the neighbour rule's full scan). The GPU measurement is the lead's.
// The bound is on this thread's CPU time: the wall time of a 2-core CI machine compiling or
// running another test beside it measured the scheduler (21.7 ms once, against 10-16 ms idle).
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

TEST(DispatchTable, LoadAndFirstLookupTime) {
  const DeviceInfo d = h100();
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_ms();
  const dispatch::LoadedTable shipped(dispatch::load_table(committed(Accum::kF16)),
                                      committed(Accum::kF16), d);
  const double cpu_loaded = thread_cpu_ms();
  const dispatch::LoadedTable none = dispatch::LoadedTable::none("", "");
  const Problem p{128, 5120, 13824, Layout::kTN, Accum::kF16};
  const dispatch::Decision c = dispatch::decide(p, stand_in_args(p), d, {&none, &shipped});
  const double cpu_decided = thread_cpu_ms();
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ timing ] f16 table (%zu entries): load %.2f ms, load + first decision %.2f ms "
              "of CPU time, %.2f ms of wall time (%s)\n",
              shipped.table()->entries.size(), cpu_loaded - cpu_start, cpu_decided - cpu_start,
              wall_ms, std::string(to_string(c.source)).c_str());
  EXPECT_LT(cpu_decided - cpu_start, 20.0);
}

TEST(DispatchTable, LocatesThroughHgemmDb) {
  const char* saved = std::getenv("HGEMM_DB");
  const std::string saved_value = saved ? saved : "";
  ::setenv("HGEMM_DB", "/somewhere/history.jsonl.gz", 1);
  const dispatch::TableLocation jsonl_db = dispatch::locate_shipped_table(kH100, Accum::kF32);
  EXPECT_TRUE(jsonl_db.path.empty());
  EXPECT_NE(jsonl_db.problem.find("hgemm db export"), std::string::npos) << jsonl_db.problem;
  ::setenv("HGEMM_DB", (std::string(HGEMM_SOURCE_DIR) + "/data/tables").c_str(), 1);
  EXPECT_EQ(dispatch::locate_shipped_table(kH100, Accum::kF16).path,
            std::string(HGEMM_SOURCE_DIR) + "/data/tables/nvidia-h100-80gb-hbm3-f16.table");
  if (saved) ::setenv("HGEMM_DB", saved_value.c_str(), 1);
  else ::unsetenv("HGEMM_DB");
  // Without HGEMM_DB the build tree's copy is found beside the test binary's directory.
  bool found_build_copy = false;
  for (const std::string& dir : dispatch::shipped_table_dirs())
    found_build_copy |= std::filesystem::exists(dir + "/nvidia-h100-80gb-hbm3-f32.table");
  EXPECT_TRUE(found_build_copy || saved) << "no build/share/hgemm/tables copy";
}

}  // namespace
