// Reading gzip files (RFC 1952 around RFC 1951 deflate) without zlib: the shipped tuning
// databases are stored compressed (a sixth of their size), and zlib's headers are not on every
// machine that builds the library. Only decompression lives here; files are compressed with the
// gzip command (`gzip -9n`), which every build and GPU machine has.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hgemm {

// True when `bytes` begins with the gzip magic number.
bool is_gzip(std::string_view bytes);

// CRC-32 (the gzip and PNG polynomial), continuing from `crc` (0 to start).
uint32_t crc32(std::string_view bytes, uint32_t crc = 0);

struct GunzipResult {
  std::string data;   // everything decoded: on an error, the intact prefix
  std::string error;  // empty when every member was whole and its CRC and size matched
};

// Decodes every member of a gzip stream (`cat a.gz b.gz` is one valid stream). A truncated or
// corrupt stream still returns what was decoded before the damage, with `error` naming the
// compressed byte offset and the reason; a bad CRC or size is reported the same way. Output past
// `max_output` bytes (deflate can expand a thousandfold) is an error of the same kind, so a
// damaged or hostile file cannot exhaust memory.
GunzipResult gunzip(std::string_view bytes, size_t max_output = size_t(1) << 30);

}  // namespace hgemm
