// The user table: merging a run's winners into it, writing it, `hgemm tune` and `hgemm db export
// --user-table` keeping it, and dispatch reading it again after reload_tables().
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "cli_runner.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/locate.hpp"
#include "dispatch/table.hpp"
#include "hgemm/hgemm.hpp"
#include "temp_dir.hpp"
#include "tuner/db/database.hpp"
#include "tuner/db/user_table.hpp"
#include "tuner/space/space.hpp"

namespace {

using namespace hgemm;

constexpr const char* kGpu = "NVIDIA H100 80GB HBM3";
constexpr const char* kConfig = "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn";

KernelConfig config(const char* name = kConfig) {
  const auto c = KernelConfig::parse(name);
  EXPECT_TRUE(c) << name << " no longer parses";
  return c.value_or(KernelConfig{});
}

dispatch::Table table(std::vector<dispatch::TableEntry> entries, int sm_count = 132) {
  dispatch::Table t;
  t.gpu = kGpu;
  t.sm_count = sm_count;
  t.accum = Accum::kF32;
  t.source = "a.jsonl";
  t.entries = std::move(entries);
  return t;
}

dispatch::TableEntry entry(int64_t m, const KernelConfig& c) {
  return {m, 4096, 4096, Layout::kTN, c, true};
}

Problem problem(int64_t m) { return {m, 4096, 4096, Layout::kTN, Accum::kF32}; }

const dispatch::TableEntry* find(const dispatch::Table& t, int64_t m) {
  for (const auto& e : t.entries)
    if (e.m == m) return &e;
  return nullptr;
}

std::string measurement(int64_t m, const char* config, double us) {
  return "{\"type\":\"measurement\",\"m\":" + std::to_string(m) +
         ",\"n\":4096,\"k\":4096,\"layout\":\"tn\",\"acc\":\"f32\",\"config\":\"" + config +
         "\",\"disposition\":\"passed\",\"median_us\":" + std::to_string(us) +
         ",\"p20_us\":" + std::to_string(us) + ",\"p80_us\":" + std::to_string(us) +
         ",\"reference_us\":200.0,\"policy\":\"rl\",\"timestamp\":\"2026-11-23T00:00:00Z\"}\n";
}

const std::string kHeader =
    "{\"type\":\"header\",\"schema\":1,\"gpu\":\"NVIDIA H100 80GB HBM3\",\"sm_count\":\"132\"}\n";

TEST(UserTable, MergeKeepsOtherShapesAndReplacesRetunedOnes) {
  KernelConfig old_winner = config(), new_winner = config();
  old_winner.group_size = 1;
  new_winner.group_size = 16;
  dispatch::Table existing =
      table({entry(128, old_winner), entry(256, old_winner), entry(512, old_winner)});
  existing.blocked = {"sm80_mma_128x128x32_s3_w2x2_sk1_f32_tn"};
  dispatch::Table tuned = table({entry(256, new_winner), entry(1024, new_winner)});
  tuned.source = "b.jsonl";
  tuned.measured_split_k = true;
  tuned.blocked = {"sm80_mma_64x64x32_s3_w2x2_sk1_f32_tn"};
  // 512 was re-tuned and has no winner now: its old entry goes.
  const dispatch::Table merged =
      tuner::merge_tables(existing, tuned, {problem(256), problem(512), problem(1024)});
  ASSERT_EQ(merged.entries.size(), 3u);
  EXPECT_EQ(find(merged, 128)->config, old_winner);
  EXPECT_EQ(find(merged, 256)->config, new_winner);
  EXPECT_EQ(find(merged, 1024)->config, new_winner);
  EXPECT_EQ(find(merged, 512), nullptr);
  EXPECT_EQ(merged.gpu, kGpu);
  EXPECT_EQ(merged.sm_count, 132);
  EXPECT_EQ(merged.source, "b.jsonl");
  EXPECT_TRUE(merged.measured_split_k);
  EXPECT_EQ(merged.blocked.size(), 2u);
  // Another accumulation's problems replace nothing.
  const dispatch::Table f16_only = tuner::merge_tables(
      existing, table({}), {Problem{128, 4096, 4096, Layout::kTN, Accum::kF16}});
  EXPECT_EQ(f16_only.entries.size(), 3u);

  EXPECT_THROW(tuner::merge_tables(existing, table({}, 114), {}), Error);
}

TEST(UserTable, UpdateCreatesTheDirectoryAndWritesAtomically) {
  TempDir dir;
  const std::string path = dir.file("cache/hgemm/tables/user.table");
  const tuner::UserTableWrite first =
      tuner::update_user_table(path, table({entry(128, config())}), {problem(128)});
  EXPECT_EQ(first.entries, 1u);
  EXPECT_EQ(first.written, 1u);
  const tuner::UserTableWrite second =
      tuner::update_user_table(path, table({entry(256, config())}), {problem(256)});
  EXPECT_EQ(second.entries, 2u);
  EXPECT_EQ(second.written, 1u);
  const dispatch::Table back = dispatch::load_table(path);
  EXPECT_EQ(back.gpu, kGpu);
  EXPECT_EQ(back.sm_count, 132);
  EXPECT_EQ(back.accum, Accum::kF32);
  EXPECT_EQ(back.entries.size(), 2u);
  // Nothing but the table is left beside it (no temp file).
  int files = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir.file("cache/hgemm/tables"))) {
    ++files;
    EXPECT_EQ(f.path().filename(), "user.table");
  }
  EXPECT_EQ(files, 1);

  // The user's tuning is never overwritten blind: another device's table, or a foreign file.
  EXPECT_THROW(tuner::update_user_table(path, table({entry(512, config())}, 114), {}), Error);
  write(dir.file("foreign.table"), "not a table\n");
  EXPECT_THROW(tuner::update_user_table(dir.file("foreign.table"), table({}), {}), Error);
  EXPECT_EQ(dispatch::load_table(path).entries.size(), 2u);
}

// The winners are export_table's (the highest mean reward), restricted to the problems asked for.
TEST(UserTable, ExportProblemsChoosesAsTheTableExport) {
  TempDir dir;
  KernelConfig slow = config(), fast = config();
  slow.group_size = 1;
  fast.group_size = 16;
  write(dir.file("db.jsonl"), kHeader + measurement(128, slow.name().c_str(), 190.0) +
                                  measurement(128, fast.name().c_str(), 150.0) +
                                  measurement(256, slow.name().c_str(), 100.0));
  const tuner::Database db = tuner::load_database(dir.file("db.jsonl"));
  ASSERT_TRUE(db.errors.empty()) << db.errors.front();
  const dispatch::Table t = tuner::export_problems(db, Accum::kF32, {problem(128)}, "db.jsonl");
  ASSERT_EQ(t.entries.size(), 1u);
  EXPECT_EQ(t.entries[0].config, fast);
  EXPECT_EQ(t.gpu, kGpu);
  EXPECT_EQ(t.sm_count, 132);
}

TEST(UserTable, TuneMergesItsWinnersIntoTheUserTable) {
  TempDir dir;
  const std::string user = dir.file("new/dir/user.table");
  // An entry of an earlier run, on the synthetic measurer's device.
  dispatch::Table earlier = table({entry(96, config())});
  earlier.gpu = tuner::nominal_device("synthetic").name;
  earlier.sm_count = tuner::nominal_device("synthetic").sm_count;
  std::filesystem::create_directories(dir.file("new/dir"));
  write(user, dispatch::format_table(earlier));
  const std::string tune = "tune --measurer synthetic --shape 256x256x256,512x512x512 --layout tn "
                           "--acc f32 --budget 4 --db " + dir.file("db.jsonl");
  const CliResult r = run_cli(tune + " --user-table " + user);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("user table: " + user + " (3 entries, 2 from this run"),
            std::string::npos)
      << r.output;
  const dispatch::Table back = dispatch::load_table(user);
  EXPECT_EQ(back.gpu, earlier.gpu);
  EXPECT_EQ(back.entries.size(), 3u);
  EXPECT_NE(find(back, 96), nullptr);
  EXPECT_NE(find(back, 256), nullptr);

  // Made-up timings reach no user table unless one is named; --no-user-table writes none.
  const std::string env = "XDG_CACHE_HOME=" + dir.file("cache") + " HGEMM_USER_TABLE=";
  EXPECT_EQ(run_cli(tune, env).code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir.file("cache")));
  const CliResult skipped = run_cli(tune + " --no-user-table", env);
  EXPECT_EQ(skipped.code, 0) << skipped.output;
  EXPECT_EQ(skipped.output.find("user table:"), std::string::npos) << skipped.output;

  EXPECT_EQ(run_cli(tune + " --user-table " + user + " --no-user-table").code, 2);
  const CliResult both = run_cli("tune --measurer synthetic --shape 256x256x256 --acc f32,f16 "
                                 "--db " + dir.file("db2.jsonl") + " --user-table " + user);
  EXPECT_EQ(both.code, 2) << both.output;
  EXPECT_NE(both.output.find("one accumulation"), std::string::npos) << both.output;
}

// A TN call whose N is no multiple of 8 runs on a padded copy of C, and dispatch decides for the
// copy's problem (N rounded up to 8): tuning the given shape would write an entry dispatch never
// reads. NN (B's rows are N) runs the given shape in place, and so is tuned as given.
TEST(UserTable, TuneTunesTheProblemDispatchDecidesForARaggedN) {
  TempDir dir;
  const std::string user = dir.file("user.table");
  const CliResult r = run_cli("tune --measurer synthetic --shape 300x50257x768,300x50264x768 "
                              "--layout tn,nn --acc f32 --budget 2 --db " + dir.file("db.jsonl") +
                              " --user-table " + user);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("300x50257x768_tn_f32 runs on a padded copy of C (N % 8 != 0): tuning "
                          "300x50264x768_tn_f32, the problem dispatch decides for it"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("300x50257x768_nn_f32 runs on a padded copy"), std::string::npos)
      << r.output;
  // The rounded-up TN shape once (also given as such), and the NN shapes as given.
  EXPECT_NE(r.output.find("3 of 3 shape x layout x acc tuned"), std::string::npos) << r.output;
  const dispatch::Table back = dispatch::load_table(user);
  auto has = [&](int64_t n, Layout layout) {
    for (const auto& e : back.entries)
      if (e.m == 300 && e.n == n && e.k == 768 && e.layout == layout) return true;
    return false;
  };
  EXPECT_TRUE(has(50264, Layout::kTN));
  EXPECT_FALSE(has(50257, Layout::kTN));
  EXPECT_TRUE(has(50257, Layout::kNN));
  EXPECT_TRUE(has(50264, Layout::kNN));
}

TEST(UserTable, DbExportMergesIntoTheDefaultUserTable) {
  TempDir dir;
  write(dir.file("db.jsonl"), kHeader + measurement(128, kConfig, 150.0));
  const std::string env =
      "CUDA_VISIBLE_DEVICES=-1 HGEMM_USER_TABLE= XDG_CACHE_HOME=" + dir.file("cache");
  const CliResult r = run_cli("db export " + dir.file("db.jsonl") + " --user-table", env);
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string expected =
      dir.file("cache") + "/hgemm/tables/" + dispatch::table_file_name(kGpu, Accum::kF32);
  EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
  EXPECT_EQ(dispatch::load_table(expected).entries.size(), 1u);
  // --table FILE names the table to merge into.
  const CliResult named = run_cli(
      "db export " + dir.file("db.jsonl") + " --user-table --table " + dir.file("u.table"), env);
  ASSERT_EQ(named.code, 0) << named.output;
  EXPECT_EQ(dispatch::load_table(dir.file("u.table")).entries.size(), 1u);
  EXPECT_EQ(run_cli("db show " + dir.file("db.jsonl") + " --user-table", env).code, 2);
}

// Tables load once per process; reload_tables() makes the next call read them again.
TEST(UserTable, ReloadPicksUpANewUserTable) {
  TempDir dir;
  DeviceInfo device = tuner::nominal_device("described reload GPU", 132);
  device.ordinal = 0;
  const std::string path = dir.file("user.table");
  const char* saved = std::getenv("HGEMM_USER_TABLE");
  const std::string saved_value = saved ? saved : "";
  ::setenv("HGEMM_USER_TABLE", path.c_str(), 1);
  EXPECT_FALSE(dispatch::tables_for(device, Accum::kF32).user->usable());
  dispatch::Table t = table({entry(128, config())});
  t.gpu = device.name;
  write_file_atomically(path, dispatch::format_table(t));
  const dispatch::LoadedTable* before = dispatch::tables_for(device, Accum::kF32).user;
  EXPECT_FALSE(before->usable());
  hgemm::reload_tables();
  const dispatch::LoadedTable* after = dispatch::tables_for(device, Accum::kF32).user;
  EXPECT_TRUE(after->usable()) << after->status();
  EXPECT_NE(after->find(problem(128)), nullptr);
  EXPECT_FALSE(before->usable());  // still valid: earlier tables are kept
  if (saved) ::setenv("HGEMM_USER_TABLE", saved_value.c_str(), 1);
  else ::unsetenv("HGEMM_USER_TABLE");
}

// A GPU with no table of its own uses one tuned on another GPU of the same architecture and SM
// count (the H100's on an H200) and says so; never one of another SM count or architecture.
TEST(OtherGpusTable, UsedOnlyOnAGpuOfTheSameArchitectureAndSmCount) {
  DeviceInfo h200 = tuner::nominal_device("described H200", 132);
  h200.ordinal = 0;
  const dispatch::LoadedTable sibling(table({entry(128, config())}), "h100.table", h200);
  EXPECT_TRUE(sibling.usable()) << sibling.status();
  EXPECT_NE(sibling.status().find("tuned on NVIDIA H100 80GB HBM3 (132 SMs), used on described "
                                  "H200 (132 SMs)"),
            std::string::npos)
      << sibling.status();
  EXPECT_NE(sibling.find(problem(128)), nullptr);

  DeviceInfo fewer_sms = h200;
  fewer_sms.sm_count = 114;
  const dispatch::LoadedTable other_count(table({entry(128, config())}), "h100.table", fewer_sms);
  EXPECT_FALSE(other_count.usable());
  EXPECT_NE(other_count.status().find("not used"), std::string::npos) << other_count.status();

  // The sm90 kernels run on sm_90 only: an sm_80 device of 132 SMs cannot use their table.
  DeviceInfo ampere = h200;
  ampere.cc_major = 8;
  const dispatch::LoadedTable other_arch(table({entry(128, config())}), "h100.table", ampere);
  EXPECT_FALSE(other_arch.usable());
  EXPECT_NE(other_arch.status().find("architecture cannot run its kernels"), std::string::npos)
      << other_arch.status();
  // ... a table of sm80 kernels alone it can.
  const dispatch::LoadedTable portable(
      table({entry(128, config("sm80_mma_128x128x32_s3_w2x2_sk1_f32_tn"))}), "h100.table", ampere);
  EXPECT_TRUE(portable.usable()) << portable.status();

  const dispatch::LoadedTable own(table({entry(128, config())}), "h100.table",
                                  tuner::nominal_device(kGpu, 132));
  EXPECT_TRUE(own.usable());
  EXPECT_EQ(own.status(), "loaded");
}

// Where the device's own table is missing, dispatch loads the first other GPU's table of the
// directory that fits the device, and hgemmGetDispatchInfo's fields say which.
TEST(OtherGpusTable, FoundWhereTheDeviceHasNoTable) {
  TempDir dir;
  dispatch::Table h100 = table({entry(128, config())});
  write_file_atomically(dir.file("nvidia-h100-80gb-hbm3-f32.table"), dispatch::format_table(h100));
  dispatch::Table fewer = table({entry(256, config())}, 114);
  fewer.gpu = "A GPU of 114 SMs";
  write_file_atomically(dir.file("a-gpu-of-114-sms-f32.table"), dispatch::format_table(fewer));
  dispatch::Table f16 = h100;
  f16.accum = Accum::kF16;
  f16.entries = {entry(512, config("sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f16_tn"))};
  write_file_atomically(dir.file("nvidia-h100-80gb-hbm3-f16.table"), dispatch::format_table(f16));

  auto saved = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const std::optional<std::string> db = saved("HGEMM_DB"), user = saved("HGEMM_USER_TABLE");
  ::setenv("HGEMM_DB", dir.path().c_str(), 1);
  ::setenv("HGEMM_USER_TABLE", dir.file("no-user.table").c_str(), 1);
  hgemm::reload_tables();

  DeviceInfo device = tuner::nominal_device("described H200", 132);
  device.ordinal = 0;
  EXPECT_EQ(dispatch::other_gpus_tables(device.name, Accum::kF32),
            (std::vector<std::string>{dir.file("a-gpu-of-114-sms-f32.table"),
                                      dir.file("nvidia-h100-80gb-hbm3-f32.table")}));
  const dispatch::Tables tables = dispatch::tables_for(device, Accum::kF32);
  ASSERT_TRUE(tables.shipped->usable()) << tables.shipped->status();
  EXPECT_EQ(tables.shipped->path(), dir.file("nvidia-h100-80gb-hbm3-f32.table"));
  EXPECT_NE(tables.shipped->find(problem(128)), nullptr);
  const hgemmDispatchInfo_t info = dispatch::describe(device, Accum::kF16);
  EXPECT_EQ(info.matches_device, 1);
  EXPECT_STREQ(info.tuned_gpu, kGpu);
  EXPECT_STREQ(info.device_gpu, "described H200");
  EXPECT_EQ(std::string(info.status).rfind("loaded: tuned on " + std::string(kGpu), 0), 0u)
      << info.status;
  EXPECT_EQ(info.entries, 1);

  // A device of another SM count finds none that fits: no table, and the status says why.
  DeviceInfo other = tuner::nominal_device("described GPU of 100 SMs", 100);
  other.ordinal = 0;
  EXPECT_FALSE(dispatch::tables_for(other, Accum::kF32).shipped->usable());
  EXPECT_NE(dispatch::tables_for(other, Accum::kF32).shipped->status().find(
                "no dispatch table described-gpu-of-100-sms-f32.table"),
            std::string::npos);

  // HGEMM_DB naming a file names that table alone.
  ::setenv("HGEMM_DB", dir.file("missing.table").c_str(), 1);
  EXPECT_TRUE(dispatch::other_gpus_tables(device.name, Accum::kF32).empty());

  if (db) ::setenv("HGEMM_DB", db->c_str(), 1);
  else ::unsetenv("HGEMM_DB");
  if (user) ::setenv("HGEMM_USER_TABLE", user->c_str(), 1);
  else ::unsetenv("HGEMM_USER_TABLE");
  hgemm::reload_tables();
}

}  // namespace

// hgemmSetUserTable names the user table ahead of $HGEMM_USER_TABLE; NULL and "" give it back.
TEST(UserTable, SetUserTableOverridesTheEnvironment) {
  const char* before = std::getenv("HGEMM_USER_TABLE");
  const std::string saved = before ? before : "";
  setenv("HGEMM_USER_TABLE", "/from/env.table", 1);
  EXPECT_EQ(hgemmSetUserTable("/from/api.table"), HGEMM_SUCCESS);
  EXPECT_EQ(dispatch::user_table_path(kGpu, Accum::kF32), "/from/api.table");
  EXPECT_EQ(dispatch::user_table_path(kGpu, Accum::kF16), "/from/api.table");
  EXPECT_EQ(hgemmSetUserTable(nullptr), HGEMM_SUCCESS);
  EXPECT_EQ(dispatch::user_table_path(kGpu, Accum::kF32), "/from/env.table");
  set_user_table("/from/cxx.table");
  EXPECT_EQ(dispatch::user_table_path(kGpu, Accum::kF32), "/from/cxx.table");
  EXPECT_EQ(hgemmSetUserTable(""), HGEMM_SUCCESS);
  EXPECT_EQ(dispatch::user_table_path(kGpu, Accum::kF32), "/from/env.table");
  hgemmReloadTables();
  if (before) setenv("HGEMM_USER_TABLE", saved.c_str(), 1);
  else unsetenv("HGEMM_USER_TABLE");
}
