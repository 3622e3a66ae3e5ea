// A one-line progress display for long runs: done/total, failures and the estimated time left.
// On a terminal it redraws one line; otherwise (a log file, CI) it prints a plain line at most
// every kLogPeriodS seconds, so a long run still shows that it is alive and how long it has left.
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
    const double elapsed = seconds();
    if (!tty_ && elapsed - last_log_s_ < kLogPeriodS) return;
    last_log_s_ = elapsed;
    const double eta = done > 0 ? elapsed / done * double(total_ - done) : 0.0;
    std::fprintf(stderr, "%s%s %ld/%ld  failures %ld  elapsed %.0fs  eta %.0fs  %s%s",
                 tty_ ? "\r\033[K" : "", label_.c_str(), done, total_, failures, elapsed, eta,
                 extra.c_str(), tty_ ? "" : "\n");
    std::fflush(stderr);
  }

  void finish() {
    if (tty_) std::fprintf(stderr, "\r\033[K");
  }

  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  static constexpr double kLogPeriodS = 30;
  std::string label_;
  long total_;
  double last_log_s_ = 0;
  std::chrono::steady_clock::time_point start_;
  bool tty_;
};

}  // namespace hgemm::cli
