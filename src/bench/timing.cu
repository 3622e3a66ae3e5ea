#include "bench/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <thread>

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

__global__ void fill_uniform_kernel(__half* out, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const uint32_t h = mix(uint32_t(i) ^ mix(uint32_t(uint64_t(i) >> 32) ^ seed));
    // 24 random bits mapped onto [-1, 1]
    out[i] = __float2half(float(h >> 8) * (2.0f / 16777215.0f) - 1.0f);
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

void fill_uniform(void* halves, int64_t n, uint32_t seed, cudaStream_t stream) {
  if (n <= 0) return;
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 4096);
  fill_uniform_kernel<<<int(blocks), threads, 0, stream>>>(static_cast<__half*>(halves), n, seed);
  HGEMM_LAUNCH_CHECK();
}

RotatingBuffers::~RotatingBuffers() {
  if (base_) cudaFree(base_);
}

void RotatingBuffers::prepare(int64_t m, int64_t n, int64_t k, int64_t l2_bytes, uint32_t seed,
                              cudaStream_t stream) {
  a_offset_ = 0;
  b_offset_ = round_up(size_t(m * k) * 2, kAlign);
  c_offset_ = b_offset_ + round_up(size_t(k * n) * 2, kAlign);
  set_bytes_ = c_offset_ + round_up(size_t(m * n) * 2, kAlign);
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
  fill_uniform(base_, int64_t(size_t(sets_) * set_bytes_ / 2), seed, stream);
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

void Timer::call(const verify::GemmFn& gemm, const Problem& problem,
                 const RotatingBuffers& buffers) {
  const int set = int(cursor_++ % uint64_t(buffers.num_sets()));
  gemm(problem, buffers.a(set), buffers.b(set), buffers.c(set), stream_);
}

int64_t Timer::calls_per_loop(const verify::GemmFn& gemm, const Problem& problem,
                              const RotatingBuffers& buffers) {
  ensure_events(2);
  call(gemm, problem, buffers);  // first-call work (plan caches, lazy loading) stays untimed
  HGEMM_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
  call(gemm, problem, buffers);
  HGEMM_CUDA_CHECK(cudaEventRecord(events_[1], stream_));
  HGEMM_CUDA_CHECK(cudaEventSynchronize(events_[1]));
  float ms = 0;
  HGEMM_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[0], events_[1]));
  double per_call = std::max(double(ms), 1e-4);
  // One short call times mostly the event resolution and the launch; a small burst refines it.
  if (per_call < 0.05) {
    const int burst = int(std::min(64.0, std::ceil(0.2 / per_call)));
    HGEMM_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
    for (int i = 0; i < burst; ++i) call(gemm, problem, buffers);
    HGEMM_CUDA_CHECK(cudaEventRecord(events_[1], stream_));
    HGEMM_CUDA_CHECK(cudaEventSynchronize(events_[1]));
    HGEMM_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[0], events_[1]));
    per_call = std::max(double(ms) / burst, 1e-4);
  }
  const double calls = std::ceil(options_.loop_ms / per_call);
  return int64_t(std::clamp(calls, 1.0, double(options_.max_calls_per_loop)));
}

Timing Timer::summarize(std::vector<double> per_call_ms, int64_t calls_per_sample,
                        int sets) const {
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

Timing Timer::measure(Mode mode, const verify::GemmFn& gemm, const Problem& problem,
                      const RotatingBuffers& buffers) {
  switch (mode) {
    case Mode::kOffline: return offline(gemm, problem, buffers);
    case Mode::kGraph: return graph(gemm, problem, buffers);
    case Mode::kLatency: return latency(gemm, problem, buffers);
    case Mode::kServer: return server(gemm, problem, buffers);
  }
  HGEMM_THROW(HGEMM_ERROR_INTERNAL, "unknown timing mode");
}

Timing Timer::offline(const verify::GemmFn& gemm, const Problem& problem,
                      const RotatingBuffers& buffers) {
  const int64_t calls = calls_per_loop(gemm, problem, buffers);
  const int loops = options_.loops;
  ensure_events(size_t(loops) + 1);
  for (int64_t i = 0; i < calls; ++i) call(gemm, problem, buffers);  // warm-up loop
  // Loops run back to back; each event closes one loop and opens the next.
  HGEMM_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
  for (int l = 0; l < loops; ++l) {
    for (int64_t i = 0; i < calls; ++i) call(gemm, problem, buffers);
    HGEMM_CUDA_CHECK(cudaEventRecord(events_[l + 1], stream_));
  }
  HGEMM_CUDA_CHECK(cudaEventSynchronize(events_[loops]));
  std::vector<double> per_call;
  for (int l = 0; l < loops; ++l) {
    float ms = 0;
    HGEMM_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[l], events_[l + 1]));
    per_call.push_back(double(ms) / double(calls));
  }
  return summarize(per_call, calls, buffers.num_sets());
}

Timing Timer::graph(const verify::GemmFn& gemm, const Problem& problem,
                    const RotatingBuffers& buffers) {
  HGEMM_REQUIRE(stream_ != nullptr, HGEMM_ERROR_INTERNAL,
                "graph mode needs a created stream (the legacy stream cannot be captured)");
  const int64_t calls = calls_per_loop(gemm, problem, buffers);
  const int loops = options_.loops;
  ensure_events(size_t(loops) + 1);
  // One graph per loop (plus a warm-up graph), each over the next `calls` buffer sets, so the
  // replays walk the sets exactly as offline's loops do: a replay never finds its operands warm
  // in L2 from the replay before it.
  GraphExecs graphs;
  for (int g = 0; g <= loops; ++g) {
    HGEMM_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
      for (int64_t i = 0; i < calls; ++i) call(gemm, problem, buffers);
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
    graphs.execs.push_back(exec);
    HGEMM_CUDA_CHECK(cudaGraphUpload(exec, stream_));
  }
  HGEMM_CUDA_CHECK(cudaGraphLaunch(graphs.execs[0], stream_));
  HGEMM_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
  for (int l = 0; l < loops; ++l) {
    HGEMM_CUDA_CHECK(cudaGraphLaunch(graphs.execs[l + 1], stream_));
    HGEMM_CUDA_CHECK(cudaEventRecord(events_[l + 1], stream_));
  }
  HGEMM_CUDA_CHECK(cudaEventSynchronize(events_[loops]));
  std::vector<double> per_call;
  for (int l = 0; l < loops; ++l) {
    float ms = 0;
    HGEMM_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[l], events_[l + 1]));
    per_call.push_back(double(ms) / double(calls));
  }
  return summarize(per_call, calls, buffers.num_sets());
}

Timing Timer::latency(const verify::GemmFn& gemm, const Problem& problem,
                      const RotatingBuffers& buffers) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < 2; ++i) call(gemm, problem, buffers);
  HGEMM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<double> per_call;
  for (int i = 0; i < options_.latency_calls; ++i) {
    const auto t0 = Clock::now();
    call(gemm, problem, buffers);
    HGEMM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const auto t1 = Clock::now();
    per_call.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return summarize(per_call, 1, buffers.num_sets());
}

Timing Timer::server(const verify::GemmFn& gemm, const Problem& problem,
                     const RotatingBuffers& buffers) {
  ensure_events(2);
  // A fresh, reproducible gap sequence per measurement.
  std::mt19937_64 rng(options_.seed * 0x9e3779b97f4a7c15ull + server_draws_++);
  std::exponential_distribution<double> gap_s(options_.server_qps);
  HGEMM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<double> per_call;
  for (int i = 0; i < options_.server_calls; ++i) {
    std::this_thread::sleep_for(std::chrono::duration<double>(gap_s(rng)));
    HGEMM_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
    call(gemm, problem, buffers);
    HGEMM_CUDA_CHECK(cudaEventRecord(events_[1], stream_));
    HGEMM_CUDA_CHECK(cudaEventSynchronize(events_[1]));
    float ms = 0;
    HGEMM_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[0], events_[1]));
    per_call.push_back(double(ms));
  }
  return summarize(per_call, 1, buffers.num_sets());
}

}  // namespace hgemm::bench
