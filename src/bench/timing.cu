#include "bench/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "core/error.hpp"

namespace hgemm::bench {
namespace {

constexpr size_t kAlign = 256;

size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

__device__ __forceinline__ uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

__device__ __forceinline__ void store(__half* p, float x) { *p = __float2half(x); }
__device__ __forceinline__ void store(__nv_bfloat16* p, float x) { *p = __float2bfloat16(x); }

template <class T>
__global__ void fill_uniform_kernel(T* out, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const uint32_t h = mix(uint32_t(i) ^ mix(uint32_t(uint64_t(i) >> 32) ^ seed));
    // 24 random bits mapped onto [-1, 1]
    store(out + i, float(h >> 8) * (2.0f / 16777215.0f) - 1.0f);
  }
}

// Ends a capture that a throwing call left open, so the stream can be used again.
void abandon_capture(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess &&
      status != cudaStreamCaptureStatusNone) {
    cudaGraph_t graph = nullptr;
    cudaStreamEndCapture(stream, &graph);
    if (graph) cudaGraphDestroy(graph);
  }
  cudaGetLastError();
}

struct GraphExecs {
  std::vector<cudaGraphExec_t> execs;
  GraphExecs() = default;
  GraphExecs(const GraphExecs&) = delete;
  GraphExecs& operator=(const GraphExecs&) = delete;
  ~GraphExecs() {
    for (auto e : execs) cudaGraphExecDestroy(e);
  }
};

}  // namespace

std::string_view to_string(Mode mode) {
  switch (mode) {
    case Mode::kOffline: return "offline";
    case Mode::kGraph: return "graph";
    case Mode::kLatency: return "latency";
    case Mode::kServer: return "server";
  }
  return "?";
}

std::optional<Mode> parse_mode(std::string_view text) {
  for (Mode m : {Mode::kOffline, Mode::kGraph, Mode::kLatency, Mode::kServer})
    if (text == to_string(m)) return m;
  return std::nullopt;
}

double percentile(std::vector<double> samples, double q) {
  if (samples.empty()) return std::nan("");
  std::sort(samples.begin(), samples.end());
  const double pos = q * double(samples.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, samples.size() - 1);
  return samples[lo] + (pos - double(lo)) * (samples[hi] - samples[lo]);
}

namespace {

double spread_of(double p20, double median, double p80) {
  if (!(median > 0)) return std::nan("");
  return (p80 - p20) / median;
}

}  // namespace

double relative_spread(const std::vector<double>& samples) {
  if (samples.empty()) return std::nan("");
  return spread_of(percentile(samples, 0.2), percentile(samples, 0.5), percentile(samples, 0.8));
}

double Timing::relative_spread() const {
  if (!ok() || samples == 0) return std::nan("");
  return spread_of(p20_ms, median_ms, p80_ms);
}

SpreadBar spread_bar(double spread, double k, double floor, double ceiling) {
  SpreadBar b;
  b.spread = spread;
  b.bar = std::isnan(spread) ? spread : std::max(floor, k * spread);
  b.usable = b.bar <= ceiling;  // false for NaN
  return b;
}

void fill_uniform(void* elements, int64_t n, uint32_t seed, cudaStream_t stream, DType dtype) {
  if (n <= 0) return;
  const int threads = 256;
  const int blocks = int(std::min<int64_t>((n + threads - 1) / threads, 4096));
  if (dtype == DType::kBF16)
    fill_uniform_kernel<<<blocks, threads, 0, stream>>>(static_cast<__nv_bfloat16*>(elements), n,
                                                        seed);
  else
    fill_uniform_kernel<<<blocks, threads, 0, stream>>>(static_cast<__half*>(elements), n, seed);
  HGEMM_LAUNCH_CHECK();
}

RotatingBuffers::~RotatingBuffers() {
  if (base_) cudaFree(base_);
}

void RotatingBuffers::prepare(int64_t m, int64_t n, int64_t k, int64_t l2_bytes, uint32_t seed,
                              cudaStream_t stream, DType dtype, int64_t batch) {
  HGEMM_REQUIRE(batch >= 1, HGEMM_ERROR_INVALID_BATCH_COUNT,
                "buffer sets need a batch count of at least 1, got " + std::to_string(batch));
  a_offset_ = 0;
  b_offset_ = round_up(size_t(batch * m * k) * 2, kAlign);
  c_offset_ = b_offset_ + round_up(size_t(batch * k * n) * 2, kAlign);
  set_bytes_ = c_offset_ + round_up(size_t(batch * m * n) * 2, kAlign);
  sets_ = rotation_sets(int64_t(set_bytes_), l2_bytes);
  if (size_t(sets_) * set_bytes_ > capacity_) {
    if (base_) HGEMM_CUDA_CHECK(cudaFree(base_));
    base_ = nullptr;
    capacity_ = 0;
    size_t free_bytes = 0, total_bytes = 0;
    HGEMM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Leave room for the verifier and the libraries' workspaces; huge shapes fall back to the
    // two-set minimum, where one set alone is already far larger than the L2.
    const size_t budget = free_bytes / 2;
    if (size_t(sets_) * set_bytes_ > budget) sets_ = std::max<int>(2, int(budget / set_bytes_));
    const size_t bytes = size_t(sets_) * set_bytes_;
    HGEMM_REQUIRE(bytes <= free_bytes, HGEMM_ERROR_CUDA,
                  "two buffer sets of " + std::to_string(set_bytes_) +
                      " bytes do not fit in free device memory (" + std::to_string(free_bytes) +
                      " bytes)");
    HGEMM_CUDA_CHECK(cudaMalloc(&base_, bytes));
    capacity_ = bytes;
  }
  fill_uniform(base_, int64_t(size_t(sets_) * set_bytes_ / 2), seed, stream, dtype);
  HGEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
}

Timer::Timer(cudaStream_t stream, TimingOptions options) : stream_(stream), options_(options) {
  HGEMM_REQUIRE(options_.loops >= 1 && options_.loop_ms > 0 && options_.max_calls_per_loop >= 1 &&
                    options_.latency_calls >= 1 && options_.server_calls >= 1 &&
                    options_.server_qps > 0,
                HGEMM_ERROR_INTERNAL, "invalid timing options");
}

Timer::~Timer() {
  for (auto e : events_) cudaEventDestroy(e);
}

void Timer::ensure_events(size_t count) {
  while (events_.size() < count) {
    cudaEvent_t e = nullptr;
    HGEMM_CUDA_CHECK(cudaEventCreate(&e));
    events_.push_back(e);
  }
}

// Per-contender state of one interleaved measurement.
struct Timer::Slot {
  const Contender* contender = nullptr;
  std::exception_ptr failure;
  int64_t calls = 1;  // calls per sample
  std::vector<double> per_call_ms;
  GraphExecs graphs;  // graph mode: a warm-up graph, then one per round

  // Runs `work`; a throw marks this contender failed instead of ending the measurement.
  template <class Work>
  bool guarded(Work&& work) {
    if (failure) return false;
    try {
      work();
      return true;
    } catch (...) {
      failure = std::current_exception();
      return false;
    }
  }
};

namespace {

// Round r visits the contenders starting with number r % n, so that none is always the first
// after an idle gap or always follows the same neighbour.
size_t visit(size_t round, size_t j, size_t n) { return (round + j) % n; }

Timing summarize(const std::vector<double>& per_call_ms, int64_t calls_per_sample, int sets) {
  Timing t;
  t.samples = int(per_call_ms.size());
  t.calls_per_sample = calls_per_sample;
  t.sets = sets;
  t.median_ms = percentile(per_call_ms, 0.5);
  t.p20_ms = percentile(per_call_ms, 0.2);
  t.p80_ms = percentile(per_call_ms, 0.8);
  t.min_ms = *std::min_element(per_call_ms.begin(), per_call_ms.end());
  t.max_ms = *std::max_element(per_call_ms.begin(), per_call_ms.end());
  return t;
}

}  // namespace

std::string Timing::failure_message() const {
  if (!failure) return {};
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "a non-standard exception";
  }
}

void Timer::call(const Contender& contender, const RotatingBuffers& buffers) {
  const int set = int(cursor_++ % uint64_t(buffers.num_sets()));
  contender.fn(contender.problem, buffers.a(set), buffers.b(set), buffers.c(set), stream_);
}

double Timer::event_ms(size_t from, size_t to) const {
  float ms = 0;
  HGEMM_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[from], events_[to]));
  return double(ms);
}

int64_t Timer::calls_per_loop(const Contender& contender, const RotatingBuffers& buffers) {
  ensure_events(2);
  call(contender, buffers);  // first-call work (plan caches, lazy loading) stays untimed
  HGEMM_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
  call(contender, buffers);
  HGEMM_CUDA_CHECK(cudaEventRecord(events_[1], stream_));
  HGEMM_CUDA_CHECK(cudaEventSynchronize(events_[1]));
  double per_call = std::max(event_ms(0, 1), 1e-4);
  // One short call times mostly the event resolution and the launch; a small burst refines it.
  if (per_call < 0.05) {
    const int burst = int(std::min(64.0, std::ceil(0.2 / per_call)));
    HGEMM_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
    for (int i = 0; i < burst; ++i) call(contender, buffers);
    HGEMM_CUDA_CHECK(cudaEventRecord(events_[1], stream_));
    HGEMM_CUDA_CHECK(cudaEventSynchronize(events_[1]));
    per_call = std::max(event_ms(0, 1) / burst, 1e-4);
  }
  const double calls = std::ceil(options_.loop_ms / per_call);
  return int64_t(std::clamp(calls, 1.0, double(options_.max_calls_per_loop)));
}

// offline and graph: calibration, then (graph) the capture of loops + 1 graphs per contender,
// one warm-up loop each, and `loops` rounds of one timed loop per contender. Loops run back to
// back on the stream; each event closes one loop and opens the next.
void Timer::timed_loops(bool graphs, std::vector<Slot>& slots, const RotatingBuffers& buffers) {
  const int loops = options_.loops;
  for (Slot& s : slots) s.guarded([&] { s.calls = calls_per_loop(*s.contender, buffers); });
  if (graphs) {
    HGEMM_REQUIRE(stream_ != nullptr, HGEMM_ERROR_INTERNAL,
                  "graph mode needs a created stream (the legacy stream cannot be captured)");
    // Each graph captures the next `calls` rotated calls, so the replays walk the buffer sets
    // exactly as offline's loops do: a replay never finds its operands warm in L2.
    for (Slot& s : slots) {
      s.guarded([&] {
        for (int g = 0; g <= loops; ++g) {
          HGEMM_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
          try {
            for (int64_t i = 0; i < s.calls; ++i) call(*s.contender, buffers);
          } catch (...) {
            abandon_capture(stream_);
            throw;
          }
          cudaGraph_t graph = nullptr;
          HGEMM_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
          cudaGraphExec_t exec = nullptr;
          const cudaError_t err = cudaGraphInstantiate(&exec, graph, 0);
          cudaGraphDestroy(graph);
          HGEMM_CUDA_CHECK(err);
          s.graphs.execs.push_back(exec);
          HGEMM_CUDA_CHECK(cudaGraphUpload(exec, stream_));
        }
      });
    }
  }
  auto run_loop = [&](Slot& s, int loop) {
    return s.guarded([&] {
      if (graphs) {
        HGEMM_CUDA_CHECK(cudaGraphLaunch(s.graphs.execs[size_t(loop)], stream_));
      } else {
        for (int64_t i = 0; i < s.calls; ++i) call(*s.contender, buffers);
      }
    });
  };
  for (Slot& s : slots) run_loop(s, 0);  // warm-up

  const size_t n = slots.size();
  ensure_events(size_t(loops) * n + 1);
  std::vector<Slot*> owner;  // owner[i]: whose loop ran between events i and i + 1
  HGEMM_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
  for (int r = 0; r < loops; ++r) {
    for (size_t j = 0; j < n; ++j) {
      Slot& s = slots[visit(size_t(r), j, n)];
      if (s.failure) continue;
      // A loop that threw part-way leaves an interval that belongs to nobody.
      const bool ok = run_loop(s, r + 1);
      owner.push_back(ok ? &s : nullptr);
      HGEMM_CUDA_CHECK(cudaEventRecord(events_[owner.size()], stream_));
    }
  }
  HGEMM_CUDA_CHECK(cudaEventSynchronize(events_[owner.size()]));
  for (size_t i = 0; i < owner.size(); ++i)
    if (owner[i] && !owner[i]->failure)
      owner[i]->per_call_ms.push_back(event_ms(i, i + 1) / double(owner[i]->calls));
}

// latency and server: `latency_calls` or `server_calls` rounds of one call per contender.
// latency: host clock around the call and its synchronize. server: an exponential idle gap
// before each call, which is timed alone with events.
void Timer::timed_calls(bool server, std::vector<Slot>& slots, const RotatingBuffers& buffers) {
  using Clock = std::chrono::steady_clock;
  ensure_events(2);
  // A fresh, reproducible gap sequence per server measurement.
  std::mt19937_64 rng(options_.seed * 0x9e3779b97f4a7c15ull + (server ? server_draws_++ : 0));
  std::exponential_distribution<double> gap_s(options_.server_qps);
  if (!server)
    for (Slot& s : slots)
      s.guarded([&] {
        for (int i = 0; i < 2; ++i) call(*s.contender, buffers);
      });
  HGEMM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  const int rounds = server ? options_.server_calls : options_.latency_calls;
  const size_t n = slots.size();
  for (int r = 0; r < rounds; ++r) {
    for (size_t j = 0; j < n; ++j) {
      Slot& s = slots[visit(size_t(r), j, n)];
      if (s.failure) continue;
      if (server) {
        std::this_thread::sleep_for(std::chrono::duration<double>(gap_s(rng)));
        s.guarded([&] {
          HGEMM_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
          call(*s.contender, buffers);
          HGEMM_CUDA_CHECK(cudaEventRecord(events_[1], stream_));
          HGEMM_CUDA_CHECK(cudaEventSynchronize(events_[1]));
          s.per_call_ms.push_back(event_ms(0, 1));
        });
      } else {
        s.guarded([&] {
          const auto t0 = Clock::now();
          call(*s.contender, buffers);
          HGEMM_CUDA_CHECK(cudaStreamSynchronize(stream_));
          const auto t1 = Clock::now();
          s.per_call_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        });
      }
    }
  }
}

std::vector<Timing> Timer::measure(Mode mode, const std::vector<Contender>& contenders,
                                   const RotatingBuffers& buffers) {
  std::vector<Slot> slots(contenders.size());
  for (size_t i = 0; i < contenders.size(); ++i) slots[i].contender = &contenders[i];
  switch (mode) {
    case Mode::kOffline: timed_loops(false, slots, buffers); break;
    case Mode::kGraph: timed_loops(true, slots, buffers); break;
    case Mode::kLatency: timed_calls(false, slots, buffers); break;
    case Mode::kServer: timed_calls(true, slots, buffers); break;
  }
  std::vector<Timing> out;
  for (Slot& s : slots) {
    Timing t;
    if (!s.failure && !s.per_call_ms.empty()) {
      const bool loops = mode == Mode::kOffline || mode == Mode::kGraph;
      t = summarize(s.per_call_ms, loops ? s.calls : 1, buffers.num_sets());
    } else {
      t.failure = s.failure ? s.failure
                            : std::make_exception_ptr(Error(HGEMM_ERROR_INTERNAL,
                                                            "no timing sample was taken"));
    }
    out.push_back(std::move(t));
  }
  return out;
}

Timing Timer::measure(Mode mode, const verify::GemmFn& gemm, const Problem& problem,
                      const RotatingBuffers& buffers) {
  Timing t = measure(mode, std::vector<Contender>{{gemm, problem}}, buffers).front();
  if (t.failure) std::rethrow_exception(t.failure);
  return t;
}

}  // namespace hgemm::bench
