// `hgemm db` on inputs it cannot use: no device (it needs none when it is told which database),
// a path that names nothing, a file that is not a database, a saved policy state that is corrupt.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "temp_dir.hpp"

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
