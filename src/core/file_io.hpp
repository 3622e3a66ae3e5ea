// Whole-file reads and crash-safe whole-file writes, shared by the tuning database, the JIT cache
// and the readers of suites and results.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hgemm {

// The file's bytes, or nullopt when it cannot be opened.
std::optional<std::string> read_file(const std::string& path);

// Throws hgemm::Error (HGEMM_ERROR_INTERNAL): "<what> <path>: <strerror(errno)>".
[[noreturn]] void throw_io_error(const std::string& what, const std::string& path);

// "<pid>-<thread>": names a temporary file or directory that no other process or thread of this
// one is writing at the same time.
std::string unique_suffix();

// Writes all of `data` to `fd` (retrying short writes and EINTR). Throws hgemm::Error
// (HGEMM_ERROR_INTERNAL) naming `path` and the system's reason.
void write_all(int fd, std::string_view data, const std::string& path);

// Replaces `path` with `text` so that a reader sees the old file or the whole new one: a temp file
// beside it, fsync, rename, fsync of the directory (creating the directory first). Throws
// hgemm::Error (HGEMM_ERROR_INTERNAL) naming the step, the file and the system's reason.
void write_file_atomically(const std::string& path, std::string_view text);

}  // namespace hgemm
