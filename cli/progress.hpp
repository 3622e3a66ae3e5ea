// A one-line progress display for long runs: done/total, failures and the estimated time left.
// It draws only when stderr is a terminal, so logs and CI output stay clean.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include <unistd.h>

namespace hgemm::cli {

class Progress {
 public:
  Progress(std::string label, long total)
      : label_(std::move(label)), total_(total), start_(std::chrono::steady_clock::now()),
        tty_(isatty(STDERR_FILENO)) {}

  void update(long done, long failures, const std::string& extra = {}) {
    if (!tty_) return;
    const double elapsed = seconds();
    const double eta = done > 0 ? elapsed / done * double(total_ - done) : 0.0;
    std::fprintf(stderr, "\r\033[K%s %ld/%ld  failures %ld  elapsed %.0fs  eta %.0fs  %s",
                 label_.c_str(), done, total_, failures, elapsed, eta, extra.c_str());
    std::fflush(stderr);
  }

  void finish() {
    if (tty_) std::fprintf(stderr, "\r\033[K");
  }

  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::string label_;
  long total_;
  std::chrono::steady_clock::time_point start_;
  bool tty_;
};

}  // namespace hgemm::cli
