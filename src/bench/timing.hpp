// The timing modes of the benchmark harness, for any GEMM callable (verify::GemmFn):
//   offline  back-to-back calls on one stream, events around loops of calls, median of loops;
//   graph    the same rotated calls captured into CUDA graphs and replayed: device time without
//            the host's enqueue cost;
//   latency  host wall clock around one call plus its stream synchronize, median of calls;
//   server   an exponential idle gap (target QPS) before each call, each call timed alone with
//            events, median of calls.
// Several contenders (hgemm and its baselines) are measured together, interleaved: each round
// times one loop (or call) of every contender, the round's order rotating, so that all of them
// share the card's thermal and clock state. On an H100 at its power cap the SM clock swings by
// 30% within seconds, far more than the differences being measured, so contenders timed one
// after the other in blocks compare clock states rather than kernels.
// Every call reads its own set of rotated input buffers so that, between two uses of a set, more
// than twice the L2 has been touched: no call finds its operands left in L2 by the previous one.
// Inputs are uniform in [-1, 1]. Methodology and budget: docs/benchmarking.md.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "hgemm/hgemm.hpp"
#include "verify/verifier.hpp"

namespace hgemm::bench {

enum class Mode { kOffline, kGraph, kLatency, kServer };
std::string_view to_string(Mode mode);
std::optional<Mode> parse_mode(std::string_view text);

struct TimingOptions {
  double loop_ms = 1.5;     // target GPU time of one timed loop (offline, graph)
  int loops = 5;            // timed loops; the result is their median
  int max_calls_per_loop = 10000;
  int latency_calls = 20;
  int server_calls = 10;
  double server_qps = 100;  // mean idle gap = 1 / qps seconds
  uint64_t seed = 1;        // server gaps
};

struct Timing {
  double median_ms = 0;  // per call
  double p20_ms = 0;
  double p80_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int samples = 0;               // loops (offline, graph) or calls (latency, server)
  int64_t calls_per_sample = 0;  // calls inside one sample
  int sets = 0;                  // rotated buffer sets in use
  std::exception_ptr failure;    // what a call threw; the contender was dropped from the rounds

  bool ok() const { return !failure; }
  // The spread of the samples, (p80_ms - p20_ms) / median_ms; NaN for a failed timing.
  double relative_spread() const;
  // What `failure` says (its what(), or a fixed text for a non-standard exception).
  std::string failure_message() const;
};

// One implementation to time: the callable and the problem it solves (the layout may differ
// between contenders of one measurement; the buffers are shared).
struct Contender {
  verify::GemmFn fn;
  Problem problem;
};

// The number of buffer sets to rotate through: enough that the other sets hold more than twice
// the L2, plus the set in use; at least 2, so that consecutive calls never share a set.
inline int rotation_sets(int64_t bytes_per_set, int64_t l2_bytes, int max_sets = 16384) {
  if (bytes_per_set <= 0) return 2;
  const int64_t needed = (2 * l2_bytes + bytes_per_set - 1) / bytes_per_set + 1;
  return int(needed < 2 ? 2 : needed > max_sets ? max_sets : needed);
}

// Percentile of samples with linear interpolation between order statistics (q in [0, 1]).
double percentile(std::vector<double> samples, double q);

// Run-to-run spread of a list of times relative to their median, (p80 - p20) / median; NaN
// without samples or with a median that is not positive.
double relative_spread(const std::vector<double>& samples);

// The bar of a check that two times agree, taken from the spread the run itself measured
// instead of a constant: on a power-capped H100 the clock, and with it the noise, changes from
// run to run. bar = max(floor, k * spread). `usable` is false when the bar exceeds `ceiling` or
// the spread is NaN: a bar that wide would accept real differences, so a check on it must fail
// rather than pass.
struct SpreadBar {
  double spread = 0;
  double bar = 0;
  bool usable = false;
};
SpreadBar spread_bar(double spread, double k, double floor, double ceiling);

// Rotated A, B and C sets for one problem size, in one device allocation reused across shapes.
// A and B hold uniform [-1, 1] values of the element type the sets are prepared for. NN and TN
// share buffers: B has K*N elements either way.
class RotatingBuffers {
 public:
  RotatingBuffers() = default;
  ~RotatingBuffers();
  RotatingBuffers(const RotatingBuffers&) = delete;
  RotatingBuffers& operator=(const RotatingBuffers&) = delete;

  // Lays out and fills the sets for an M x N x K problem of `dtype` elements (both 2 bytes, so
  // the layout does not depend on it; the values' bits do). With `batch` > 1 each of A, B and C
  // holds that many packed matrices back to back (verify::Batch::packed's strides), and the
  // number of sets follows from those bytes, so that a batched call too finds none of its
  // operands in L2. Throws hgemm::Error when even two sets do not fit in free device memory.
  void prepare(int64_t m, int64_t n, int64_t k, int64_t l2_bytes, uint32_t seed,
               cudaStream_t stream, DType dtype = DType::kF16, int64_t batch = 1);
  int num_sets() const { return sets_; }
  const void* a(int set) const { return base_ + size_t(set) * set_bytes_ + a_offset_; }
  const void* b(int set) const { return base_ + size_t(set) * set_bytes_ + b_offset_; }
  void* c(int set) const { return base_ + size_t(set) * set_bytes_ + c_offset_; }

 private:
  char* base_ = nullptr;
  size_t capacity_ = 0;
  size_t set_bytes_ = 0;
  size_t a_offset_ = 0;
  size_t b_offset_ = 0;
  size_t c_offset_ = 0;
  int sets_ = 0;
};

// Fills n 2-byte elements of `dtype` with uniform [-1, 1] values from a counter-based hash of
// (index, seed); the same index and seed give the same value before rounding in either type.
void fill_uniform(void* elements, int64_t n, uint32_t seed, cudaStream_t stream,
                  DType dtype = DType::kF16);

// Times callables on one stream. Owns its events. A call that throws aborts the measurement
// (the exception propagates; graph capture is ended first, so the stream stays usable).
class Timer {
 public:
  Timer(cudaStream_t stream, TimingOptions options);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Times every contender, interleaved (see the top of this file); one Timing per contender, in
  // order. A contender whose call throws gets `failure` set and is left out of later rounds; the
  // others go on. CUDA errors outside the contenders' calls (events, graphs) throw.
  std::vector<Timing> measure(Mode mode, const std::vector<Contender>& contenders,
                              const RotatingBuffers& buffers);
  // One contender alone; rethrows what its call threw.
  Timing measure(Mode mode, const verify::GemmFn& gemm, const Problem& problem,
                 const RotatingBuffers& buffers);
  Timing offline(const verify::GemmFn& gemm, const Problem& problem,
                 const RotatingBuffers& buffers) {
    return measure(Mode::kOffline, gemm, problem, buffers);
  }
  Timing graph(const verify::GemmFn& gemm, const Problem& problem,
               const RotatingBuffers& buffers) {
    return measure(Mode::kGraph, gemm, problem, buffers);
  }

  const TimingOptions& options() const { return options_; }
  cudaStream_t stream() const { return stream_; }

 private:
  struct Slot;
  void call(const Contender& contender, const RotatingBuffers& buffers);
  int64_t calls_per_loop(const Contender& contender, const RotatingBuffers& buffers);
  void ensure_events(size_t count);
  void timed_loops(bool graphs, std::vector<Slot>& slots, const RotatingBuffers& buffers);
  void timed_calls(bool server, std::vector<Slot>& slots, const RotatingBuffers& buffers);
  double event_ms(size_t from, size_t to) const;

  cudaStream_t stream_;
  TimingOptions options_;
  std::vector<cudaEvent_t> events_;
  uint64_t cursor_ = 0;  // the next buffer set; advances across measurements
  uint64_t server_draws_ = 0;
};

}  // namespace hgemm::bench
