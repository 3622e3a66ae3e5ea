// The gzip reader against the gzip command (dynamic Huffman, stored blocks, levels 1 and 9,
// several members) and a fixed-Huffman stream made with zlib's Z_FIXED strategy; damaged
// streams must report where and still return the intact prefix.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "core/gzip.hpp"
#include "temp_dir.hpp"

namespace hgemm {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `data` compressed by the system's gzip command at `level`.
std::string system_gzip(const std::string& data, int level) {
  TempDir dir("hgemm-gzip");
  const std::string in = dir.file("in"), out = dir.file("in.gz");
  std::ofstream(in, std::ios::binary) << data;
  const std::string command = "gzip -" + std::to_string(level) + "n -c '" + in + "' > '" + out + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return slurp(out);
}

// Text shaped like a tuning database: long repeats at many distances, and runs that make
// matches overlap their own output.
std::string database_like_text(size_t bytes) {
  std::mt19937 rng(7);
  std::string out;
  const char* configs[] = {"sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn",
                           "sm90_ws_64x96x64_s10_c1x1_w1_n2_st_sk1_f32_nn",
                           "sm80_mma_128x128x32_s4_w4_sk1_f16_tn"};
  while (out.size() < bytes) {
    out += "{\"type\":\"measurement\",\"m\":" + std::to_string(64 << (rng() % 9)) +
           ",\"config\":\"" + configs[rng() % 3] + "\",\"median_us\":" +
           std::to_string(std::uniform_real_distribution<double>(1, 9000)(rng)) + ",\"pad\":\"" +
           std::string(rng() % 300, 'x') + "\"}\n";
  }
  return out;
}

std::string random_bytes(size_t bytes) {
  std::mt19937 rng(11);
  std::string out(bytes, '\0');
  for (char& c : out) c = char(rng());
  return out;
}

TEST(Gzip, Crc32) {
  EXPECT_EQ(crc32("123456789"), 0xCBF43926u);
  EXPECT_EQ(crc32(""), 0u);
  EXPECT_EQ(crc32("56789", crc32("1234")), 0xCBF43926u);
}

TEST(Gzip, MatchesTheGzipCommand) {
  const std::string inputs[] = {"", "a", "hello, hello, hello\n", database_like_text(3 << 20),
                                random_bytes(200000)};
  for (const std::string& data : inputs)
    for (int level : {1, 9}) {
      const std::string packed = system_gzip(data, level);
      ASSERT_TRUE(is_gzip(packed));
      const GunzipResult r = gunzip(packed);
      EXPECT_EQ(r.error, "") << data.size() << " bytes, level " << level;
      EXPECT_TRUE(r.data == data) << data.size() << " bytes, level " << level;
    }
}

TEST(Gzip, FixedHuffmanBlock) {
  // zlib.compressobj(9, DEFLATED, 31, 9, Z_FIXED) of the text below: one fixed-code block.
  const unsigned char packed[] = {
      0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x4b, 0xcb, 0xac, 0x48, 0x4d,
      0x51, 0xf0, 0x28, 0x4d, 0x4b, 0xcb, 0x4d, 0xcc, 0x53, 0x48, 0xce, 0x4f, 0x49, 0x2d, 0xb6,
      0x52, 0x48, 0x4c, 0x4a, 0x46, 0x46, 0x3a, 0x0a, 0x89, 0x0a, 0xb9, 0x89, 0x25, 0xc9, 0x19,
      0x0a, 0x25, 0x19, 0x89, 0x25, 0x0a, 0xf9, 0x65, 0xa9, 0x45, 0x39, 0x89, 0x05, 0xc5, 0x0a,
      0x99, 0x25, 0xc5, 0xa9, 0x39, 0x69, 0x56, 0x0a, 0x55, 0x44, 0x02, 0x3d, 0x2e, 0x00, 0x12,
      0xbe, 0x6e, 0x03, 0x6e, 0x00, 0x00, 0x00};
  ASSERT_EQ(packed[10] & 7, 0x3);  // final block, type 1 (fixed codes)
  const GunzipResult r = gunzip(std::string_view(reinterpret_cast<const char*>(packed), sizeof packed));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.data, "fixed Huffman codes: abcabcabcabcabc, a match that overlaps itself: " +
                        std::string(40, 'z') + ".\n");
}

TEST(Gzip, SeveralMembersAreOneStream) {
  const std::string a = database_like_text(100000), b = "second member\n";
  const GunzipResult r = gunzip(system_gzip(a, 6) + system_gzip(b, 9));
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.data == a + b);
}

TEST(Gzip, DamageIsReportedAndThePrefixKept) {
  const std::string data = database_like_text(1 << 20);
  const std::string packed = system_gzip(data, 9);

  const GunzipResult cut = gunzip(std::string_view(packed).substr(0, packed.size() / 2));
  EXPECT_NE(cut.error.find("truncated"), std::string::npos) << cut.error;
  EXPECT_GT(cut.data.size(), data.size() / 4);  // deflate ratio is far above 2 on this text
  EXPECT_TRUE(data.compare(0, cut.data.size(), cut.data) == 0);

  const GunzipResult no_trailer = gunzip(std::string_view(packed).substr(0, packed.size() - 3));
  EXPECT_NE(no_trailer.error.find("truncated trailer"), std::string::npos) << no_trailer.error;
  EXPECT_TRUE(no_trailer.data == data);

  std::string bad_crc = packed;
  bad_crc[bad_crc.size() - 8] ^= 1;
  const GunzipResult crc = gunzip(bad_crc);
  EXPECT_NE(crc.error.find("CRC-32 mismatch"), std::string::npos) << crc.error;
  EXPECT_NE(crc.error.find("at byte " + std::to_string(packed.size() - 8)), std::string::npos)
      << crc.error;

  std::string flipped = packed;
  flipped[packed.size() / 2] ^= 0x5a;
  EXPECT_NE(gunzip(flipped).error, "");

  std::string trailing = packed + "junk";
  EXPECT_NE(gunzip(trailing).error.find("not a gzip member"), std::string::npos);

  const GunzipResult capped = gunzip(packed, 100000);
  EXPECT_NE(capped.error.find("decompresses to more than 100000 bytes"), std::string::npos)
      << capped.error;
  EXPECT_LE(capped.data.size(), 100000u + 258);
  EXPECT_TRUE(data.compare(0, capped.data.size(), capped.data) == 0);

  EXPECT_NE(gunzip("").error, "");
  EXPECT_FALSE(is_gzip("{\"type\":\"header\"}"));
  EXPECT_NE(gunzip("\x1f\x8b\x07").error.find("truncated header"), std::string::npos);
}

}  // namespace
}  // namespace hgemm
