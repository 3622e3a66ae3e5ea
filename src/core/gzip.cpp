#include "core/gzip.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace hgemm {
namespace {

struct Corrupt {
  size_t offset;  // in the compressed bytes
  std::string why;
};

// Slicing by 8: table j maps a byte to its CRC contribution j bytes further on, so eight bytes
// cost eight independent lookups (a byte-at-a-time loop took an eighth of a database's load).
constexpr std::array<std::array<uint32_t, 256>, 8> kCrcTables = [] {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (int j = 1; j < 8; ++j)
    for (uint32_t i = 0; i < 256; ++i) t[j][i] = (t[j - 1][i] >> 8) ^ t[0][t[j - 1][i] & 0xFF];
  return t;
}();

// Deflate's bits come least significant first. The reader runs on past the end of the input
// with zero bits, so that a Huffman lookup never has to ask how many bits remain; whoever
// consumes bits checks overrun() before trusting what it read.
class BitReader {
 public:
  BitReader(std::string_view bytes, size_t start) : bytes_(bytes), pos_(start) {}

  uint32_t peek(int n) {
    if (count_ < n) refill();
    return uint32_t(buffer_ & ((uint64_t(1) << n) - 1));
  }
  void drop(int n) {
    buffer_ >>= n;
    count_ -= n;
  }
  uint32_t bits(int n) {
    const uint32_t v = peek(n);
    drop(n);
    if (overrun()) throw Corrupt{bytes_.size(), "truncated"};
    return v;
  }
  void align_to_byte() { drop(count_ & 7); }
  // Bytes consumed so far; only meaningful at a byte boundary.
  size_t byte_position() const { return pos_ - size_t(count_ / 8); }
  bool overrun() const { return byte_position() > bytes_.size(); }
  size_t offset() const { return std::min(byte_position(), bytes_.size()); }

 private:
  void refill() {
    while (count_ <= 56) {
      const uint64_t byte = pos_ < bytes_.size() ? uint8_t(bytes_[pos_]) : 0;
      ++pos_;
      buffer_ |= byte << count_;
      count_ += 8;
    }
  }

  std::string_view bytes_;
  size_t pos_;
  uint64_t buffer_ = 0;
  int count_ = 0;
};

// A canonical Huffman code as one lookup table indexed by the next max_bits input bits (bit
// reversed, as deflate sends codes most significant bit first). An entry is symbol << 4 | length;
// 0 marks bits that no code of an incomplete table starts with.
class Huffman {
 public:
  // Returns false for an over-subscribed set of lengths, which no encoder can produce.
  bool build(const uint8_t* lengths, int count) {
    std::array<int, 16> per_length{};
    for (int s = 0; s < count; ++s) ++per_length[lengths[s]];
    per_length[0] = 0;
    int left = 1;
    max_bits_ = 1;
    for (int len = 1; len <= 15; ++len) {
      left = 2 * left - per_length[len];
      if (left < 0) return false;
      if (per_length[len]) max_bits_ = len;
    }
    std::array<uint32_t, 16> next{};
    for (int len = 1, code = 0; len <= 15; ++len) {
      code = (code + per_length[len - 1]) << 1;
      next[len] = uint32_t(code);
    }
    table_.assign(size_t(1) << max_bits_, 0);
    for (int s = 0; s < count; ++s) {
      const int len = lengths[s];
      if (!len) continue;
      const uint32_t code = next[len]++;
      uint32_t reversed = 0;
      for (int b = 0; b < len; ++b) reversed |= ((code >> b) & 1u) << (len - 1 - b);
      for (size_t i = reversed; i < table_.size(); i += size_t(1) << len)
        table_[i] = uint16_t(s << 4 | len);
    }
    return true;
  }

  int decode(BitReader& in) const {
    const uint16_t entry = table_[in.peek(max_bits_)];
    if (!entry) throw Corrupt{in.offset(), "invalid Huffman code"};
    in.drop(entry & 15);
    if (in.overrun()) throw Corrupt{in.offset(), "truncated"};
    return entry >> 4;
  }

 private:
  std::vector<uint16_t> table_;
  int max_bits_ = 1;
};

constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistBase[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                    33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                    1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                    6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

const std::pair<Huffman, Huffman>& fixed_codes() {
  static const std::pair<Huffman, Huffman> codes = [] {
    std::pair<Huffman, Huffman> c;
    uint8_t lengths[288];
    for (int s = 0; s < 288; ++s) lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    c.first.build(lengths, 288);
    uint8_t dist[30];
    for (uint8_t& d : dist) d = 5;
    c.second.build(dist, 30);
    return c;
  }();
  return codes;
}

void read_dynamic_codes(BitReader& in, Huffman& literals, Huffman& distances) {
  const int nlit = int(in.bits(5)) + 257;
  const int ndist = int(in.bits(5)) + 1;
  const int ncode = int(in.bits(4)) + 4;
  if (nlit > 286 || ndist > 30) throw Corrupt{in.offset(), "too many length or distance codes"};
  static constexpr uint8_t kOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                         11, 4,  12, 3, 13, 2, 14, 1, 15};
  uint8_t code_lengths[19] = {};
  for (int i = 0; i < ncode; ++i) code_lengths[kOrder[i]] = uint8_t(in.bits(3));
  Huffman lengths_code;
  if (!lengths_code.build(code_lengths, 19))
    throw Corrupt{in.offset(), "over-subscribed code-length code"};
  uint8_t lengths[286 + 30] = {};
  for (int i = 0; i < nlit + ndist;) {
    const int symbol = lengths_code.decode(in);
    if (symbol < 16) {
      lengths[i++] = uint8_t(symbol);
      continue;
    }
    uint8_t value = 0;
    int repeat = 0;
    if (symbol == 16) {
      if (i == 0) throw Corrupt{in.offset(), "repeat of a length before the first"};
      value = lengths[i - 1];
      repeat = 3 + int(in.bits(2));
    } else if (symbol == 17) {
      repeat = 3 + int(in.bits(3));
    } else {
      repeat = 11 + int(in.bits(7));
    }
    if (i + repeat > nlit + ndist) throw Corrupt{in.offset(), "code lengths overrun their count"};
    while (repeat--) lengths[i++] = value;
  }
  if (lengths[256] == 0) throw Corrupt{in.offset(), "no end-of-block code"};
  if (!literals.build(lengths, nlit) || !distances.build(lengths + nlit, ndist))
    throw Corrupt{in.offset(), "over-subscribed literal or distance code"};
}

void inflate_codes(BitReader& in, const Huffman& literals, const Huffman& distances,
                   std::string& out, size_t member_start, size_t max_output) {
  for (;;) {
    const int symbol = literals.decode(in);
    if (symbol < 256) {
      out.push_back(char(symbol));
      continue;
    }
    if (symbol == 256) return;
    // Checked per match: literals alone expand the input at most 8x (one bit each).
    if (out.size() > max_output)
      throw Corrupt{in.offset(), "decompresses to more than " + std::to_string(max_output) +
                                     " bytes"};
    const int li = symbol - 257;
    if (li >= 29) throw Corrupt{in.offset(), "invalid length symbol"};
    const size_t length = kLengthBase[li] + in.bits(kLengthExtra[li]);
    const int di = distances.decode(in);
    if (di >= 30) throw Corrupt{in.offset(), "invalid distance symbol"};
    const size_t distance = kDistBase[di] + in.bits(kDistExtra[di]);
    if (distance > out.size() - member_start)
      throw Corrupt{in.offset(), "distance reaches before the start of the data"};
    const size_t from = out.size() - distance;
    if (distance >= length) {
      out.append(out, from, length);
    } else {
      // The match overlaps the bytes it produces: byte by byte.
      for (size_t i = 0; i < length; ++i) out.push_back(out[from + i]);
    }
  }
}

uint32_t le32(std::string_view b, size_t at) {
  return uint32_t(uint8_t(b[at])) | uint32_t(uint8_t(b[at + 1])) << 8 |
         uint32_t(uint8_t(b[at + 2])) << 16 | uint32_t(uint8_t(b[at + 3])) << 24;
}

// Parses one member's header at `at` and returns where its deflate data begins.
size_t skip_header(std::string_view b, size_t at) {
  const auto need = [&](size_t n) {
    if (b.size() - at < n) throw Corrupt{b.size(), "truncated header"};
  };
  if (b.size() - at >= 2 && !is_gzip(b.substr(at))) throw Corrupt{at, "not a gzip member"};
  need(10);
  if (uint8_t(b[at + 2]) != 8) throw Corrupt{at + 2, "compression method is not deflate"};
  const uint8_t flags = uint8_t(b[at + 3]);
  if (flags & 0xE0) throw Corrupt{at + 3, "reserved header flags set"};
  at += 10;
  if (flags & 4) {  // FEXTRA
    need(2);
    const size_t len = size_t(uint8_t(b[at])) | size_t(uint8_t(b[at + 1])) << 8;
    at += 2;
    need(len);
    at += len;
  }
  for (const uint8_t zero_terminated : {uint8_t(8), uint8_t(16)}) {  // FNAME, FCOMMENT
    if (!(flags & zero_terminated)) continue;
    const size_t end = b.find('\0', at);
    if (end == std::string_view::npos) throw Corrupt{b.size(), "truncated header"};
    at = end + 1;
  }
  if (flags & 2) {  // FHCRC
    need(2);
    at += 2;
  }
  return at;
}

// Decodes the member at `at` onto `out`; returns the offset just past its trailer.
size_t inflate_member(std::string_view bytes, size_t at, std::string& out, size_t max_output) {
  const size_t member_start = out.size();
  BitReader in(bytes, skip_header(bytes, at));
  Huffman literals, distances;
  for (bool last = false; !last;) {
    last = in.bits(1);
    const uint32_t type = in.bits(2);
    if (type == 0) {
      in.align_to_byte();
      const uint32_t len = in.bits(16);
      const uint32_t nlen = in.bits(16);
      if ((len ^ 0xFFFFu) != nlen) throw Corrupt{in.offset(), "stored block length check"};
      for (uint32_t i = 0; i < len; ++i) out.push_back(char(in.bits(8)));
    } else if (type == 1) {
      inflate_codes(in, fixed_codes().first, fixed_codes().second, out, member_start, max_output);
    } else if (type == 2) {
      read_dynamic_codes(in, literals, distances);
      inflate_codes(in, literals, distances, out, member_start, max_output);
    } else {
      throw Corrupt{in.offset(), "invalid block type"};
    }
  }
  in.align_to_byte();
  const size_t trailer = in.byte_position();
  if (bytes.size() - trailer < 8) throw Corrupt{bytes.size(), "truncated trailer"};
  const std::string_view data(out.data() + member_start, out.size() - member_start);
  if (le32(bytes, trailer) != crc32(data)) throw Corrupt{trailer, "CRC-32 mismatch"};
  if (le32(bytes, trailer + 4) != uint32_t(data.size()))
    throw Corrupt{trailer + 4, "size mismatch"};
  return trailer + 8;
}

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && uint8_t(bytes[0]) == 0x1f && uint8_t(bytes[1]) == 0x8b;
}

uint32_t crc32(std::string_view bytes, uint32_t crc) {
  const auto& t = kCrcTables;
  crc = ~crc;
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t n = bytes.size();
  for (; n >= 8; n -= 8, p += 8) {
    const uint32_t lo = crc ^ (uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
                               uint32_t(p[3]) << 24);
    crc = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
          t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
  }
  for (; n > 0; --n, ++p) crc = t[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

GunzipResult gunzip(std::string_view bytes, size_t max_output) {
  GunzipResult result;
  // The last member's size field: a good first guess of the output for a single member, bounded
  // so that a corrupt field cannot ask for gigabytes (deflate expands at most about 1000x).
  if (bytes.size() >= 18)
    result.data.reserve(std::min<size_t>(le32(bytes, bytes.size() - 4), 64 * bytes.size()));
  size_t at = 0;
  try {
    if (bytes.empty()) throw Corrupt{0, "empty input"};
    do {
      at = inflate_member(bytes, at, result.data, max_output);
    } while (at < bytes.size());
  } catch (const Corrupt& c) {
    result.error = "gzip data corrupt at byte " + std::to_string(c.offset) + ": " + c.why;
  }
  return result;
}

}  // namespace hgemm
