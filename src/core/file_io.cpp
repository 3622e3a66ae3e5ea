#include "core/file_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <thread>

#include "core/error.hpp"

namespace hgemm {

void throw_io_error(const std::string& what, const std::string& path) {
  HGEMM_THROW(HGEMM_ERROR_INTERNAL, what + " " + path + ": " + std::strerror(errno));
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  // One read of the known size: a character at a time cost a dispatch table's load most of its
  // time. A stream without a size (a pipe) is read to its end instead.
  if (const std::streamoff size = in.tellg(); size >= 0) {
    std::string text(size_t(size), '\0');
    in.seekg(0);
    if (in.read(text.data(), size) && in.peek() == std::char_traits<char>::eof()) return text;
    in.clear();
  }
  in.seekg(0);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string unique_suffix() {
  return std::to_string(::getpid()) + "-" +
         std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
}

void write_all(int fd, std::string_view data, const std::string& path) {
  for (size_t done = 0; done < data.size();) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw_io_error("cannot write", path);
    done += size_t(n);
  }
}

void write_file_atomically(const std::string& path, std::string_view text) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (!target.parent_path().empty()) fs::create_directories(target.parent_path(), ec);
  const std::string temp = path + ".tmp." + unique_suffix();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_io_error("cannot create", temp);
  try {
    write_all(fd, text, temp);
    if (::fsync(fd) != 0) throw_io_error("cannot fsync", temp);
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    errno = saved;
    throw_io_error("cannot rename a temp file onto", path);
  }
  const std::string dir = target.parent_path().empty() ? "." : target.parent_path().string();
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace hgemm
