// GPU tests of the benchmark harness: every cuBLAS/cuBLASLt baseline passes the verifier on the
// smoke suite in both layouts and accumulations; every timing mode gives sane positive times;
// graph mode is not slower than offline on 4096^3; an interleaved measurement drops a contender
// that throws and still times the others, and times two copies of one kernel alike; the
// cublaslt-best choice is stable across two independent selections; selection refuses to run
// inside a graph capture, and the selected kinds refuse to run before it; cublaslt-best is never
// slower than either of its sources (the autotune pick and the heuristic's) by more than the
// run-to-run spread, timed in one interleaved run; and the harness's offline time for the
// selected algorithm matches a standalone timing written from scratch
// (own descriptors, own buffers, plain events around back-to-back cublasLtMatmul calls).
// With each --epilogue of hgemm bench: cuBLASLt's epilogue (heuristic and best) and the unfused
// path (plain GEMM, then bench::apply_bias_activation, both of its access widths) pass the
// verifier, whose reference applies the epilogue, while the plain GEMM fails it; both time in
// graph mode; cublas and the erf GELU are refused.
// With --batch N of hgemm bench (verify::Batch): the batched baselines (cuBLASLt's strided batch,
// heuristic, autotune and best, and cublasGemmStridedBatchedEx), hgemm's batched general call and
// hgemm-loop pass the verifier batch by batch on 64 x 128x128x64, 3 x 100x72x40 and
// 5 x 256x512x128 in both layouts, fp16 (both accumulations) and bf16, also with a bias and GELU
// and with gaps between the batches; a GEMM that computes batch 0 only, swaps two batches,
// broadcasts A or misses C's stride fails it; the rotated sets cover more than twice the L2 on
// the batched bytes; and the batched call, the loop and cublaslt-best time in graph mode (their
// ratios printed, not judged: closing them is the kernels' work).
// The three timing-agreement checks take their bar from the spread their own run measured (see
// agreement_bar), each with a negative control: a kernel run twice per call must read slower by
// more than that bar. The cross-check against a standalone loop compares a pair that disagrees
// once more and judges the second comparison.
// A plain executable: one line per check, non-zero exit on any failure, and a failure (never a
// skip) without a GPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "baselines/baselines.hpp"
#include "bench/epilogue.hpp"
#include "bench/timing.hpp"
#include "core/device.hpp"
#include "core/suite.hpp"
#include "hgemm/hgemm.hpp"
#include "verify/verifier.hpp"
#include "gpu_checks.cuh"

namespace {

using hgemm::Accum;
using hgemm::Layout;
using hgemm::Problem;
using hgemm::baselines::Kind;

using gpu_checks::check;
using gpu_checks::fill_kernel;

#define LT_OK(expr)                                                              \
  do {                                                                           \
    cublasStatus_t s_ = (expr);                                                  \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                           \
      std::printf("FAIL %s: %s\n", #expr, cublasGetStatusString(s_));            \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

std::string fmt(const char* format, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c);
  return buf;
}

using hgemm::baselines::kAllKinds;

// Timing-agreement bars come from the spread of the run being judged, not a constant: an H100 at
// its power cap swings its SM clock between 1.0 and 2.0 GHz, and there two copies of one kernel
// timed together read up to 6% apart (bench/results/2026-11-24-h100-c20855c), where a quiet
// card keeps them within 1%. bar = max(kBarFloor, kSpreadFactor x spread), the spread being the
// p20-p80 range relative to the median (and, where a measurement holds two copies of one kernel,
// at least how far apart they read). For normally distributed rounds p20-p80 spans about 1.7
// standard deviations of one round, and the difference of two medians of 5 to 9 rounds has about
// 0.6 to 0.8 of one, so k = 2 puts the bar 4 to 6 standard deviations of that difference out:
// identical kernels should not cross it by chance. A bar above kBarCeiling would let real
// differences of that size pass, so such a run fails as too noisy to compare instead. The
// ceiling sits well below the negative controls' 100% (a kernel run twice per call), which every
// check still has to flag: a 15% ceiling failed 4 checks on the card whose offline rounds spread
// 8-13% while the medians agreed within 3% (bench/results/2026-11-24-h100-d7694be).
constexpr double kSpreadFactor = 2;
constexpr double kBarFloor = 0.03;
constexpr double kBarCeiling = 0.35;

hgemm::bench::SpreadBar agreement_bar(double spread) {
  return hgemm::bench::spread_bar(spread, kSpreadFactor, kBarFloor, kBarCeiling);
}

// The largest spread; NaN if any is NaN (a failed timing), which makes the bar unusable.
double max_spread(std::initializer_list<double> spreads) {
  double largest = 0;
  for (double s : spreads) {
    if (std::isnan(s)) return s;
    largest = std::max(largest, s);
  }
  return largest;
}

// How far apart two times are, relative to the faster one, so that neither is the reference.
double apart(double a, double b) { return std::max(a, b) / std::min(a, b) - 1; }

// "spread 1.2%, bar 3.0% = max(3%, 2 x spread)", and why it fails when it is over the ceiling.
std::string bar_text(const hgemm::bench::SpreadBar& b) {
  return fmt("spread %.1f%%, bar %.1f%% = max(%.0f%%, ", 100 * b.spread, 100 * b.bar,
             100 * kBarFloor) +
         fmt("%.0f x spread)", kSpreadFactor) +
         (b.usable ? ""
                   : fmt(", over the %.0f%% ceiling: too noisy to compare", 100 * kBarCeiling));
}

// The negative controls' contender: twice the work of `fn` in one call, which every agreement
// bar must tell apart from `fn` itself.
hgemm::verify::GemmFn twice(hgemm::verify::GemmFn fn) {
  return [fn](const Problem& p, const void* a, const void* b, void* c, cudaStream_t s) {
    fn(p, a, b, c, s);
    fn(p, a, b, c, s);
  };
}

bool selected(Kind kind) { return kind == Kind::kLtAutotune || kind == Kind::kLtBest; }

void test_baselines_pass_verifier(cudaStream_t stream) {
  const auto shapes = hgemm::load_suite("smoke");
  const auto& device = hgemm::current_device();
  hgemm::baselines::Baselines libs;
  hgemm::verify::Verifier verifier;
  hgemm::bench::RotatingBuffers buffers;
  hgemm::bench::Timer timer(stream, {});
  // What hgemm bench runs on baselines: random-normal data against the fp32 reference, with
  // guard bands around C.
  hgemm::verify::Options options;
  options.small_integer = options.precision_probe = options.nonfinite = false;
  for (Kind kind : kAllKinds) {
    for (Layout layout : {Layout::kNN, Layout::kTN}) {
      for (Accum accum : {Accum::kF32, Accum::kF16}) {
        int passed = 0;
        std::string first_failure;
        for (const auto& s : shapes) {
          const Problem p{s.m, s.n, s.k, layout, accum};
          if (selected(kind)) {
            buffers.prepare(p.m, p.n, p.k, device.l2_bytes, 9, stream);
            libs.select(p, timer, buffers);
          }
          const auto report = verifier.check(p, libs.fn(kind), options);
          if (report.passed())
            ++passed;
          else if (first_failure.empty())
            first_failure = p.name() + ": " + report.summary();
        }
        check(passed == int(shapes.size()),
              std::string(hgemm::baselines::to_string(kind)) + " " +
                  std::string(hgemm::to_string(layout)) + " " +
                  std::string(hgemm::to_string(accum)) + " passes the verifier on " +
                  std::to_string(passed) + "/" + std::to_string(shapes.size()) + " smoke shapes" +
                  (first_failure.empty() ? "" : " (first failure " + first_failure + ")"));
      }
    }
  }
}

bool sane(const hgemm::bench::Timing& t) {
  return std::isfinite(t.median_ms) && t.median_ms > 0 && t.min_ms > 0 &&
         t.min_ms <= t.p20_ms && t.p20_ms <= t.median_ms && t.median_ms <= t.p80_ms &&
         t.p80_ms <= t.max_ms && t.samples > 0 && t.calls_per_sample >= 1 && t.sets >= 2;
}

void test_timing_modes(cudaStream_t stream) {
  const auto& device = hgemm::current_device();
  hgemm::baselines::Baselines libs;
  hgemm::bench::RotatingBuffers buffers;
  hgemm::bench::TimingOptions options;
  options.server_calls = 5;
  hgemm::bench::Timer timer(stream, options);
  for (const auto& shape : {hgemm::Shape{1024, 1024, 1024}, hgemm::Shape{64, 64, 64}}) {
    buffers.prepare(shape.m, shape.n, shape.k, device.l2_bytes, 7, stream);
    std::vector<std::pair<std::string, hgemm::verify::GemmFn>> impls;
    const Problem p{shape.m, shape.n, shape.k, Layout::kTN, Accum::kF32};
    libs.select(p, timer, buffers);
    for (Kind kind : kAllKinds)
      impls.emplace_back(hgemm::baselines::to_string(kind), libs.fn(kind));
    impls.emplace_back("hgemm", [](const Problem& p, const void* a, const void* b, void* c,
                                   cudaStream_t s) { hgemm::run(p, a, b, c, s); });
    for (const auto& [name, fn] : impls) {
      for (auto mode : {hgemm::bench::Mode::kOffline, hgemm::bench::Mode::kGraph,
                        hgemm::bench::Mode::kLatency, hgemm::bench::Mode::kServer}) {
        std::string what = name + " " + p.name() + " " +
                           std::string(hgemm::bench::to_string(mode)) + " time is sane: ";
        try {
          const auto t = timer.measure(mode, fn, p, buffers);
          check(sane(t), what + fmt("median %.5f ms, p20 %.5f, p80 %.5f", t.median_ms, t.p20_ms,
                                    t.p80_ms) +
                             " samples " + std::to_string(t.samples) + " x " +
                             std::to_string(t.calls_per_sample) + " calls, " +
                             std::to_string(t.sets) + " sets");
        } catch (const std::exception& e) {
          check(false, what + "threw " + e.what());
        }
      }
    }
  }
}

void test_graph_not_slower(cudaStream_t stream) {
  const auto& device = hgemm::current_device();
  hgemm::baselines::Baselines libs;
  hgemm::bench::RotatingBuffers buffers;
  hgemm::bench::Timer timer(stream, {});
  const Problem p{4096, 4096, 4096, Layout::kTN, Accum::kF32};
  buffers.prepare(p.m, p.n, p.k, device.l2_bytes, 11, stream);
  const auto fn = libs.fn(Kind::kLtHeuristic);
  const auto offline = timer.offline(fn, p, buffers);
  const auto graph = timer.graph(fn, p, buffers);
  check(graph.median_ms <= offline.median_ms * 1.05,
        "graph is not slower than offline on " + p.name() +
            fmt(": graph %.4f ms, offline %.4f ms", graph.median_ms, offline.median_ms));
}

// Interleaved timing: a contender whose calls start throwing part-way (in graph mode, during
// the capture) is reported failed with its error while the others are still timed with every
// sample; and two copies of the same kernel, measured together, get the same time although the
// card's clock drifts during the measurement: within a bar from the spread of their own rounds,
// which a third contender doing twice the work must exceed.
void test_interleaved(cudaStream_t stream) {
  const auto& device = hgemm::current_device();
  hgemm::baselines::Baselines libs;
  hgemm::bench::RotatingBuffers buffers;
  hgemm::bench::TimingOptions options;
  options.server_calls = 5;
  options.latency_calls = 5;
  // More rounds than the default five: both the medians and the spread that bounds their
  // difference rest on them.
  options.loops = 9;
  hgemm::bench::Timer timer(stream, options);
  const Problem p{4096, 4096, 4096, Layout::kTN, Accum::kF32};
  buffers.prepare(p.m, p.n, p.k, device.l2_bytes, 5, stream);
  const auto lt = libs.fn(Kind::kLtHeuristic);
  for (auto mode : {hgemm::bench::Mode::kOffline, hgemm::bench::Mode::kGraph,
                    hgemm::bench::Mode::kLatency, hgemm::bench::Mode::kServer}) {
    int calls = 0;
    const hgemm::verify::GemmFn flaky = [&](const Problem& q, const void* a, const void* b,
                                            void* c, cudaStream_t st) {
      if (++calls > 3) throw hgemm::Error(HGEMM_ERROR_INTERNAL, "planted failure");
      lt(q, a, b, c, st);
    };
    const std::string name(hgemm::bench::to_string(mode));
    const auto t = timer.measure(mode, {{lt, p}, {flaky, p}, {lt, p}, {twice(lt), p}}, buffers);
    const int expected = mode == hgemm::bench::Mode::kLatency ? options.latency_calls
                         : mode == hgemm::bench::Mode::kServer ? options.server_calls
                                                               : options.loops;
    const std::string why = t[1].failure_message();
    check(why.find("planted failure") != std::string::npos,
          name + ": the throwing contender is reported failed with its error (" + why + ")");
    check(t[0].ok() && t[2].ok() && sane(t[0]) && sane(t[2]) && t[0].samples == expected &&
              t[2].samples == expected,
          name + ": the other contenders keep all " + std::to_string(expected) +
              " samples (" + std::to_string(t[0].samples) + ", " +
              std::to_string(t[2].samples) + ")");
    if (mode == hgemm::bench::Mode::kOffline || mode == hgemm::bench::Mode::kGraph) {
      // Not the copies' own disagreement: that is what is being judged.
      const auto bar = agreement_bar(max_spread({t[0].relative_spread(), t[2].relative_spread()}));
      const double copies = apart(t[0].median_ms, t[2].median_ms);
      check(bar.usable && copies <= bar.bar,
            name + ": two copies of one kernel timed together agree" +
                fmt(" (%.4f vs %.4f ms, %.1f%% apart; ", t[0].median_ms, t[2].median_ms,
                    100 * copies) +
                bar_text(bar) + " of their rounds)");
      const double one = (t[0].median_ms + t[2].median_ms) / 2;
      check(t[3].ok() && t[3].median_ms > (1 + bar.bar) * one,
            name + ": negative control: the kernel run twice per call reads slower than one " +
                "copy by more than that bar" +
                fmt(" (%.4f ms, %.2fx)", t[3].median_ms, t[3].median_ms / one));
    }
  }
}

// Two independent selections pick the same cublaslt-best algorithm, or two whose final times
// (each selection's own) are within noise of each other. At 2048^3 (26 us) two tile shapes were
// seen 3.1% apart in one tuning and swapped in the next (2026-11-23), so "within noise" is 5%.
void test_selection_stable(cudaStream_t stream) {
  const Problem p{2048, 2048, 2048, Layout::kTN, Accum::kF32};
  hgemm::bench::RotatingBuffers buffers;
  buffers.prepare(p.m, p.n, p.k, hgemm::current_device().l2_bytes, 3, stream);
  hgemm::bench::Timer timer(stream, {});
  hgemm::baselines::Baselines first_libs, second_libs;
  const auto first = first_libs.select(p, timer, buffers);
  const auto second = second_libs.select(p, timer, buffers);
  check(first.candidates == second.candidates && !first.candidates.empty(),
        "selection sees the same candidate list twice (" +
            std::to_string(first.candidates.size()) + " candidates)");
  const bool same = first.picks.best == second.picks.best;
  // A swap counts as a tie when each selection timed the other's pick within 5% of its own.
  auto final_ms = [](const hgemm::baselines::Selection& s, int candidate) {
    for (size_t i = 0; i < s.finalists.size(); ++i)
      if (s.finalists[i] == candidate) return s.final_ms[i];
    return std::numeric_limits<double>::infinity();
  };
  const bool tie =
      !same &&
      final_ms(first, second.picks.best) <= 1.05 * final_ms(first, first.picks.best) &&
      final_ms(second, first.picks.best) <= 1.05 * final_ms(second, second.picks.best);
  check(same || tie, "cublaslt-best choice is stable for " + p.name() + ": first " +
                         first.describe(Kind::kLtBest) + "; second " +
                         second.describe(Kind::kLtBest) +
                         (same ? " (same algorithm)" : tie ? " (a tie within 5%)" : ""));
}

void test_selection_refused_in_capture(cudaStream_t stream) {
  const Problem p{512, 512, 512, Layout::kNN, Accum::kF32};
  hgemm::bench::RotatingBuffers buffers;
  buffers.prepare(p.m, p.n, p.k, hgemm::current_device().l2_bytes, 5, stream);
  hgemm::bench::Timer timer(stream, {});
  hgemm::baselines::Baselines libs;
  std::string unselected;
  try {
    libs.run(Kind::kLtBest, p, buffers.a(0), buffers.b(0), buffers.c(0), stream);
  } catch (const hgemm::Error& e) {
    unselected = e.what();
  }
  check(unselected.find("select()") != std::string::npos,
        "cublaslt-best refuses to run before its selection, with a reason: " + unselected);
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  std::string message;
  try {
    libs.select(p, timer, buffers);
  } catch (const hgemm::Error& e) {
    message = e.what();
  }
  cudaGraph_t graph = nullptr;
  CUDA_OK(cudaStreamEndCapture(stream, &graph));
  if (graph) cudaGraphDestroy(graph);
  check(message.find("during graph capture") != std::string::npos,
        "selection inside a capture is refused with a reason: " + message);
}

// Issue 17's GPU check: on five shapes, cublaslt-best timed interleaved with its two sources in
// graph mode is never slower than either by more than the run-to-run spread. The measurement
// also holds a second copy of cublaslt-best, whose disagreement with the first shows how far
// apart identical kernels read in this very run, and cublaslt-best run twice per call, which the
// bar must not accept as a tie.
void test_best_not_slower(cudaStream_t stream) {
  constexpr double kLaunchJitterMs = 1e-4;
  const auto& device = hgemm::current_device();
  const hgemm::Shape shapes[] = {{64, 64, 64}, {128, 4096, 4096}, {1024, 1024, 1024},
                                 {333, 8192, 7168}, {4096, 4096, 4096}};
  hgemm::baselines::Baselines libs;
  hgemm::bench::RotatingBuffers buffers;
  hgemm::bench::TimingOptions options;
  options.loops = 9;
  hgemm::bench::Timer timer(stream, options);
  for (const auto& s : shapes) {
    for (Accum accum : {Accum::kF32, Accum::kF16}) {
      const Problem p{s.m, s.n, s.k, Layout::kTN, accum};
      buffers.prepare(p.m, p.n, p.k, device.l2_bytes, 17, stream);
      const auto& sel = libs.select(p, timer, buffers);
      const auto best_fn = libs.fn(Kind::kLtBest);
      const auto t = timer.measure(hgemm::bench::Mode::kGraph,
                                   {{best_fn, p},
                                    {libs.fn(Kind::kLtAutotune), p},
                                    {libs.fn(Kind::kLtHeuristic), p},
                                    {best_fn, p},
                                    {twice(best_fn), p}},
                                   buffers);
      const bool ok = t[0].ok() && t[1].ok() && t[2].ok() && t[3].ok();
      const double copies = ok ? apart(t[0].median_ms, t[3].median_ms) : std::nan("");
      const auto bar = agreement_bar(max_spread({copies, t[0].relative_spread(),
                                                 t[1].relative_spread(), t[2].relative_spread(),
                                                 t[3].relative_spread()}));
      const double best = ok ? (t[0].median_ms + t[3].median_ms) / 2 : 0;
      const double autotune = ok ? t[1].median_ms : 0, heuristic = ok ? t[2].median_ms : 0;
      // NOTE: a launch-bound shape also gets 0.1 us: at 64^3 (2.7 us) the selection read the
      // autotune pick 5% faster than the heuristic's and the next run read it 3% slower, a flip
      // between runs that no spread inside one run shows.
      auto within = [&](double source) {
        return best <= std::max((1 + bar.bar) * source, source + kLaunchJitterMs);
      };
      check(ok && bar.usable && within(autotune) && within(heuristic),
            "cublaslt-best is not slower than its sources on " + p.name() +
                fmt(": best %.5f ms (mean of two copies %.1f%% apart), autotune %.5f ms, ", best,
                    100 * copies, autotune) +
                fmt("heuristic %.5f ms; ", heuristic) + bar_text(bar) + " or 0.1 us" +
                " over the copies and every contender's rounds (" +
                sel.describe(Kind::kLtBest) + ")");
      check(ok && t[4].ok() && t[4].median_ms > (1 + bar.bar) * best,
            "negative control on " + p.name() +
                ": cublaslt-best run twice per call reads slower than once by more than that " +
                "bar" + fmt(" (%.5f ms, %.2fx)", t[4].median_ms, ok ? t[4].median_ms / best : 0));
    }
  }
}

// Events around back-to-back cublasLtMatmul calls of `algo`, with descriptors built here from the
// row-major mapping (C' = B' * A' in column-major terms), on one set of buffers that is larger
// than twice the L2 for the shapes used. Set up once, so that time_ms() can be repeated between
// the harness's measurements.
class StandaloneLt {
 public:
  StandaloneLt(const Problem& p, const cublasLtMatmulAlgo_t& algo, cudaStream_t stream)
      : algo_(algo), stream_(stream) {
    LT_OK(cublasLtCreate(&lt_));
    CUDA_OK(cudaMalloc(&a_, size_t(p.m * p.k) * 2));
    CUDA_OK(cudaMalloc(&b_, size_t(p.k * p.n) * 2));
    CUDA_OK(cudaMalloc(&c_, size_t(p.m * p.n) * 2));
    CUDA_OK(cudaMalloc(&workspace_, hgemm::baselines::kWorkspaceBytes));
    fill_kernel<<<1024, 256, 0, stream>>>(a_, p.m * p.k, 1);
    fill_kernel<<<1024, 256, 0, stream>>>(b_, p.k * p.n, 2);
    CUDA_OK(cudaGetLastError());
    LT_OK(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t trans_b = p.layout == Layout::kTN ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t trans_a = CUBLAS_OP_N;
    LT_OK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &trans_b,
                                         sizeof trans_b));
    LT_OK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &trans_a,
                                         sizeof trans_a));
    if (p.layout == Layout::kTN)
      LT_OK(cublasLtMatrixLayoutCreate(&lb_, CUDA_R_16F, p.k, p.n, p.k));
    else
      LT_OK(cublasLtMatrixLayoutCreate(&lb_, CUDA_R_16F, p.n, p.k, p.n));
    LT_OK(cublasLtMatrixLayoutCreate(&la_, CUDA_R_16F, p.k, p.m, p.k));
    LT_OK(cublasLtMatrixLayoutCreate(&lc_, CUDA_R_16F, p.n, p.m, p.n));
    CUDA_OK(cudaEventCreate(&start_));
    CUDA_OK(cudaEventCreate(&stop_));
    for (int i = 0; i < 3; ++i) call();
    // About as long as the harness's 5 loops of ~1.5 ms, so both see the same clock behaviour.
    calls_ = std::max(5, int(8.0 / std::max(time_ms(), 0.001)));
  }
  ~StandaloneLt() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cublasLtMatrixLayoutDestroy(lc_);
    cublasLtMatrixLayoutDestroy(la_);
    cublasLtMatrixLayoutDestroy(lb_);
    cublasLtMatmulDescDestroy(op_);
    cudaFree(workspace_);
    cudaFree(c_);
    cudaFree(b_);
    cudaFree(a_);
    cublasLtDestroy(lt_);
  }
  StandaloneLt(const StandaloneLt&) = delete;
  StandaloneLt& operator=(const StandaloneLt&) = delete;

  // Per call, over one block of back-to-back calls.
  double time_ms() {
    call();  // like the harness's warm-up loop: the block starts on a busy GPU, not an idle one
    CUDA_OK(cudaEventRecord(start_, stream_));
    for (int i = 0; i < calls_; ++i) call();
    CUDA_OK(cudaEventRecord(stop_, stream_));
    CUDA_OK(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, start_, stop_));
    return double(ms) / calls_;
  }

 private:
  void call() {
    const float one = 1.0f, zero = 0.0f;
    LT_OK(cublasLtMatmul(lt_, op_, &one, b_, lb_, a_, la_, &zero, c_, lc_, c_, lc_, &algo_,
                         workspace_, hgemm::baselines::kWorkspaceBytes, stream_));
  }

  cublasLtMatmulAlgo_t algo_;
  cudaStream_t stream_;
  cublasLtHandle_t lt_ = nullptr;
  __half *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  void* workspace_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t lb_ = nullptr, la_ = nullptr, lc_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  int calls_ = 1;
};

// The harness's offline time of cublaslt-best against StandaloneLt's, each repeated kRepeats
// times alternating which goes first, the fastest run of each compared. An even count gives both
// sides the first place equally often: in the runs that failed the former fixed 10% bar the
// harness, then always first, took 14-18% less time. Fastest runs, not medians: eager timing on
// the power-capped card swings with the clock, and one side's repetitions spread up to 24%
// (p20-p80, device call at d6dd4f9) while their fastest runs, both at the top clock, agreed. The
// spread is the larger of each side's gap between its two fastest runs and the harness's rounds'
// p20-p80 within one measurement. The negative control is cublaslt-best run twice per call, timed
// by the harness in the same measurements.
void test_epilogues(cudaStream_t stream) {
  using hgemm::bench::EpilogueOp;
  const auto shapes = hgemm::load_suite("smoke");
  const auto& device = hgemm::current_device();
  hgemm::baselines::Baselines libs;
  hgemm::verify::Verifier verifier;
  hgemm::bench::RotatingBuffers buffers;
  hgemm::bench::Timer timer(stream, {});
  hgemm::bench::DeviceBias bias;
  auto epilogue_of = [&bias](EpilogueOp op) {
    hgemm::verify::Epilogue e;
    e.bias = hgemm::bench::has_bias(op) ? bias.data() : nullptr;
    e.activation = hgemm::bench::activation_of(op);
    return e;
  };
  auto unfused = [](const hgemm::verify::Epilogue& e) -> hgemm::verify::GemmFn {
    return [e](const Problem& p, const void* a, const void* b, void* c, cudaStream_t s) {
      hgemm::run(p, a, b, c, s);
      hgemm::bench::apply_bias_activation(c, p.dtype, p.m, p.n, e.bias, e.activation, s);
    };
  };
  // What hgemm bench runs: the baselines get random normal and guard bands, hgemm everything.
  hgemm::verify::Options quick;
  quick.small_integer = quick.precision_probe = quick.nonfinite = false;
  const hgemm::verify::Options full;
  int64_t widest_n = 0;
  for (const auto& s : shapes) widest_n = std::max(widest_n, s.n);
  bias.prepare(widest_n, 5, hgemm::DType::kF16, stream);

  for (EpilogueOp op : hgemm::bench::kAllEpilogueOps) {
    if (op == EpilogueOp::kNone) continue;
    const std::string name(hgemm::bench::to_string(op));
    const hgemm::verify::Epilogue epi = epilogue_of(op);
    hgemm::verify::Options quick_epi = quick, full_epi = full;
    quick_epi.epilogue = full_epi.epilogue = epi;
    for (hgemm::DType dtype : {hgemm::DType::kF16, hgemm::DType::kBF16}) {
      for (Layout layout : {Layout::kNN, Layout::kTN}) {
        int lt_passed = 0, unfused_passed = 0, unfused_cases = 0;
        std::string first_failure;
        for (const auto& s : shapes) {
          const Problem p{s.m, s.n, s.k, layout, Accum::kF32, dtype};
          const auto lt = verifier.check(p, libs.fn(Kind::kLtHeuristic, epi), quick_epi);
          lt_passed += lt.passed();
          if (!lt.passed() && first_failure.empty())
            first_failure = "cublaslt-heuristic " + p.name() + ": " + lt.summary();
          // hgemm's plain bf16 call needs the sm90 kernels' alignment; fp16 runs every shape.
          if (dtype == hgemm::DType::kBF16 && (s.n % 8 != 0 || s.k % 8 != 0)) continue;
          ++unfused_cases;
          const auto un = verifier.check(p, unfused(epi), full_epi);
          unfused_passed += un.passed();
          if (!un.passed() && first_failure.empty())
            first_failure = "hgemm-unfused " + p.name() + ": " + un.summary();
        }
        const std::string what = name + " " + std::string(hgemm::to_string(dtype)) + " " +
                                 std::string(hgemm::to_string(layout));
        check(lt_passed == int(shapes.size()) && unfused_passed == unfused_cases,
              what + ": cublaslt-heuristic passes the verifier on " + std::to_string(lt_passed) +
                  "/" + std::to_string(shapes.size()) + " smoke shapes, hgemm-unfused on " +
                  std::to_string(unfused_passed) + "/" + std::to_string(unfused_cases) +
                  (first_failure.empty() ? "" : " (first failure " + first_failure + ")"));
      }
    }
    // The negative control: the same GEMM without the epilogue must fail, so the reference does
    // apply it. 256^3 is wide enough that a missing bias or activation shows everywhere.
    const Problem p{256, 256, 256, Layout::kTN, Accum::kF32};
    const auto plain = verifier.check(p, libs.fn(Kind::kLtHeuristic), quick_epi);
    check(plain.disposition == hgemm::verify::Disposition::kIncorrect,
          name + ": the plain GEMM fails the verifier that expects the epilogue: " +
              plain.summary());
    // The element path of the unfused kernel: C misaligned by an odd number of elements.
    hgemm::verify::Options misaligned = full_epi;
    misaligned.misalign_elements = 3;
    const auto odd = verifier.check(Problem{255, 257, 65, Layout::kNN, Accum::kF32},
                                    unfused(epi), misaligned);
    check(odd.passed(), name + ": hgemm-unfused passes with C misaligned by 3 elements: " +
                            odd.summary());
  }

  // cublaslt-best chooses among candidates that run the epilogue, and both fused and unfused
  // paths time in graph mode (the bias pointer set outside the capture, the kernel captured).
  const Problem p{1024, 1024, 1024, Layout::kTN, Accum::kF32};
  const hgemm::verify::Epilogue gelu = epilogue_of(EpilogueOp::kBiasGelu);
  hgemm::verify::Options quick_gelu = quick;
  quick_gelu.epilogue = gelu;
  buffers.prepare(p.m, p.n, p.k, device.l2_bytes, 11, stream);
  libs.select(p, timer, buffers, gelu);
  const std::string described =
      libs.describe(Kind::kLtBest, p, buffers.a(0), buffers.b(0), buffers.c(0), gelu);
  check(described.find("EPILOGUE_GELU_BIAS") != std::string::npos,
        "cublaslt-best's detail names its epilogue: " + described);
  const auto best = verifier.check(p, libs.fn(Kind::kLtBest, gelu), quick_gelu);
  check(best.passed(), "cublaslt-best bias_gelu passes the verifier: " + best.summary());
  using Named = std::pair<std::string, hgemm::verify::GemmFn>;
  for (const auto& [label, fn] : {Named{"cublaslt-best", libs.fn(Kind::kLtBest, gelu)},
                                  Named{"hgemm-unfused", unfused(gelu)}}) {
    try {
      const auto t = timer.measure(hgemm::bench::Mode::kGraph, fn, p, buffers);
      check(sane(t), label + " bias_gelu graph time is sane: " + fmt("%.5f ms", t.median_ms));
    } catch (const std::exception& e) {
      check(false, label + " bias_gelu graph time threw " + e.what());
    }
  }

  // What has no cuBLAS(Lt) counterpart is refused, not run as something else.
  auto refused = [&](Kind kind, const hgemm::verify::Epilogue& e, const std::string& what) {
    try {
      libs.run(kind, p, buffers.a(0), buffers.b(0), buffers.c(0), stream, e);
      check(false, what + " is refused (it ran)");
    } catch (const hgemm::Error& error) {
      check(error.status() == HGEMM_ERROR_NOT_SUPPORTED, what + " is refused: " + error.what());
    }
  };
  refused(Kind::kCublas, gelu, "cublas with bias_gelu");
  hgemm::verify::Epilogue erf = gelu;
  erf.activation = hgemm::Activation::kGelu;
  refused(Kind::kLtHeuristic, erf, "cublaslt-heuristic with the erf GELU");
  CUDA_OK(cudaStreamSynchronize(stream));
}

void test_batched(cudaStream_t stream) {
  using hgemm::DType;
  using hgemm::verify::Batch;
  using hgemm::verify::GemmFn;
  const auto& device = hgemm::current_device();
  hgemm::baselines::Baselines libs;
  hgemm::verify::Verifier verifier;
  hgemm::bench::RotatingBuffers buffers;
  hgemm::bench::Timer timer(stream, {});
  // What hgemm bench runs: the baselines get random normal and guard bands, hgemm everything.
  auto options = [](const Batch& batch, bool every_check,
                    const hgemm::verify::Epilogue& epilogue = {}) {
    hgemm::verify::Options o;
    if (!every_check) o.small_integer = o.precision_probe = o.nonfinite = false;
    o.batch = batch;
    o.epilogue = epilogue;
    return o;
  };
  auto hgemm_batched = [](const Batch& batch, const hgemm::verify::Epilogue& epilogue = {}) {
    return GemmFn([batch, epilogue](const Problem& p, const void* a, const void* b, void* c,
                                    cudaStream_t s) {
      hgemm::gemm(hgemm::bench::general_call(p, epilogue, batch), a, b, c, s);
    });
  };
  // hgemm bench's hgemm-loop: one plain call per batch.
  auto hgemm_loop = [](const Batch& batch) {
    return GemmFn([batch](const Problem& p, const void* a, const void* b, void* c,
                          cudaStream_t s) {
      for (int64_t i = 0; i < batch.count; ++i)
        hgemm::run(p, static_cast<const __half*>(a) + i * batch.stride_a,
                   static_cast<const __half*>(b) + i * batch.stride_b,
                   static_cast<__half*>(c) + i * batch.stride_c, s);
    });
  };
  struct Case {
    int64_t count, m, n, k;
  };
  const Case cases[] = {{64, 128, 128, 64}, {3, 100, 72, 40}, {5, 256, 512, 128}};
  struct Combo {
    DType dtype;
    Accum accum;
  };
  const Combo combos[] = {{DType::kF16, Accum::kF32}, {DType::kF16, Accum::kF16},
                          {DType::kBF16, Accum::kF32}};
  const char* const impls[] = {"cublas",        "cublaslt-heuristic", "cublaslt-autotune",
                               "cublaslt-best", "hgemm",              "hgemm-loop"};
  for (const Combo& combo : combos) {
    for (Layout layout : {Layout::kNN, Layout::kTN}) {
      int passed[std::size(impls)] = {};
      std::string first_failure[std::size(impls)];
      for (const Case& c : cases) {
        const Problem p{c.m, c.n, c.k, layout, combo.accum, combo.dtype};
        const Batch batch = Batch::packed(p, c.count);
        const std::string what = std::to_string(c.count) + " x " + p.name();
        std::vector<hgemm::verify::Report> reports;
        try {
          buffers.prepare(p.m, p.n, p.k, device.l2_bytes, 17, stream, p.dtype, c.count);
          libs.select(p, timer, buffers, {}, batch);
          for (Kind kind : kAllKinds)
            reports.push_back(verifier.check(p, libs.fn(kind, {}, batch), options(batch, false)));
        } catch (const std::exception& e) {
          check(false, what + ": the batched cuBLASLt selection threw " + e.what());
          continue;
        }
        reports.push_back(verifier.check(p, hgemm_batched(batch), options(batch, true)));
        reports.push_back(verifier.check(p, hgemm_loop(batch), options(batch, true)));
        for (size_t i = 0; i < reports.size(); ++i) {
          if (reports[i].passed())
            ++passed[i];
          else if (first_failure[i].empty())
            first_failure[i] = what + ": " + reports[i].summary();
        }
      }
      for (size_t i = 0; i < std::size(impls); ++i)
        check(passed[i] == int(std::size(cases)),
              std::string("batched ") + impls[i] + " " +
                  std::string(hgemm::to_string(combo.dtype)) + " " +
                  std::string(hgemm::to_string(layout)) + " " +
                  std::string(hgemm::to_string(combo.accum)) + " passes the verifier batch by " +
                  "batch on " + std::to_string(passed[i]) + "/" + std::to_string(std::size(cases)) +
                  " cases" +
                  (first_failure[i].empty() ? "" : " (first failure " + first_failure[i] + ")"));
    }
  }

  // A bias (one for every batch) and GELU, and gaps between the batches (guard bands there).
  {
    const Problem p{256, 512, 128, Layout::kTN, Accum::kF32};
    hgemm::bench::DeviceBias bias;
    bias.prepare(p.n, 5, p.dtype, stream);
    hgemm::verify::Epilogue gelu;
    gelu.bias = bias.data();
    gelu.activation = hgemm::Activation::kGeluTanh;
    const Batch packed = Batch::packed(p, 5);
    buffers.prepare(p.m, p.n, p.k, device.l2_bytes, 19, stream, p.dtype, packed.count);
    libs.select(p, timer, buffers, gelu, packed);
    for (Kind kind : {Kind::kLtHeuristic, Kind::kLtBest}) {
      const auto r = verifier.check(p, libs.fn(kind, gelu, packed), options(packed, false, gelu));
      check(r.passed(), std::string(hgemm::baselines::to_string(kind)) +
                            " bias_gelu x5 passes the verifier: " + r.summary());
    }
    const std::string described = libs.describe(Kind::kLtBest, p, buffers.a(0), buffers.b(0),
                                                buffers.c(0), gelu, packed);
    check(described.find("batch 5") != std::string::npos &&
              described.find("EPILOGUE_GELU_BIAS") != std::string::npos,
          "cublaslt-best's detail names its batches and epilogue: " + described);
    const auto fused = verifier.check(p, hgemm_batched(packed, gelu), options(packed, true, gelu));
    check(fused.passed(), "hgemm bias_gelu x5 passes the verifier: " + fused.summary());
    Batch gapped = packed;
    gapped.stride_a += 64;
    gapped.stride_b += 64;
    gapped.stride_c += 128;
    const auto lt = verifier.check(p, libs.fn(Kind::kLtHeuristic, {}, gapped),
                                   options(gapped, false));
    check(lt.passed(), "cublaslt-heuristic x5 with gaps between the batches passes: " +
                           lt.summary());
    const auto ours = verifier.check(p, hgemm_batched(gapped), options(gapped, true));
    check(ours.passed(), "hgemm x5 with gaps between the batches passes: " + ours.summary());
  }

  // Wrong batched GEMMs fail: a check that cannot fail is no check.
  {
    const Problem p{256, 512, 128, Layout::kTN, Accum::kF32};
    const Batch batch = Batch::packed(p, 5);
    auto must_fail = [&](const std::string& what, const GemmFn& fn, const std::string& needle) {
      const auto r = verifier.check(p, fn, options(batch, true));
      const std::string summary = r.summary();
      check(r.disposition == hgemm::verify::Disposition::kIncorrect &&
                summary.find(needle) != std::string::npos,
            what + " fails the verifier (\"" + needle + "\"): " + summary);
    };
    must_fail("cublaslt-heuristic computing batch 0 only", libs.fn(Kind::kLtHeuristic),
              "first at batch 1 (0,0)");
    const GemmFn swapped = [&](const Problem& q, const void* a, const void* b, void* c,
                               cudaStream_t s) {
      const auto* a16 = static_cast<const __half*>(a);
      const auto* b16 = static_cast<const __half*>(b);
      auto* c16 = static_cast<__half*>(c);
      libs.run(Kind::kLtHeuristic, q, a16, b16, c16 + batch.stride_c, s);
      libs.run(Kind::kLtHeuristic, q, a16 + batch.stride_a, b16 + batch.stride_b, c16, s);
      Batch rest = batch;
      rest.count -= 2;
      libs.run(Kind::kLtHeuristic, q, a16 + 2 * batch.stride_a, b16 + 2 * batch.stride_b,
               c16 + 2 * batch.stride_c, s, {}, rest);
    };
    must_fail("cublaslt-heuristic with batches 0 and 1 swapped", swapped,
              "(2 of 5 batches wrong)");
    Batch broadcast = batch;
    broadcast.stride_a = 0;
    must_fail("cublaslt-heuristic reading batch 0's A for every batch",
              libs.fn(Kind::kLtHeuristic, {}, broadcast), "(4 of 5 batches wrong)");
    Batch off = batch;
    off.stride_c += 8;
    must_fail("hgemm with C's batch stride 8 elements too long", hgemm_batched(off),
              "guard_bands");
  }

  // The rotation covers the batched bytes, and the three contenders time in graph mode.
  {
    const Problem p{128, 128, 64, Layout::kTN, Accum::kF32};
    const Batch batch = Batch::packed(p, 64);
    buffers.prepare(p.m, p.n, p.k, device.l2_bytes, 23, stream, p.dtype, batch.count);
    const int64_t call_bytes = batch.count * (p.m * p.k + p.k * p.n + p.m * p.n) * 2;
    const int sets = buffers.num_sets();
    // Sized from one matrix's bytes instead, the rotation would hold 64 times as many sets.
    check(int64_t(sets - 1) * call_bytes >= 2 * device.l2_bytes &&
              sets <= hgemm::bench::rotation_sets(call_bytes, device.l2_bytes),
          "64 x 128x128x64 rotates " + std::to_string(sets) + " sets of " +
              std::to_string(call_bytes) + " bytes: at least twice the L2 (" +
              std::to_string(device.l2_bytes) + " bytes) between two uses of a set");
    libs.select(p, timer, buffers, {}, batch);
    const std::vector<hgemm::bench::Contender> contenders = {
        {hgemm_batched(batch), p}, {hgemm_loop(batch), p}, {libs.fn(Kind::kLtBest, {}, batch), p}};
    const char* const names[] = {"hgemm (one batched call)", "hgemm-loop (64 calls)",
                                 "cublaslt-best (strided batch)"};
    try {
      const auto t = timer.measure(hgemm::bench::Mode::kGraph, contenders, buffers);
      for (size_t i = 0; i < t.size(); ++i)
        check(t[i].ok() && sane(t[i]),
              std::string(names[i]) + " graph time of 64 x 128x128x64 is sane: " +
                  (t[i].ok() ? fmt("%.5f ms", t[i].median_ms) : t[i].failure_message()));
      if (t[0].ok() && t[1].ok() && t[2].ok())
        std::printf("     info: 64 x 128x128x64 tn f32, graph: hgemm %.5f ms, hgemm-loop %.5f ms "
                    "(%.2fx of hgemm), cublaslt-best %.5f ms (%.2fx of hgemm)\n",
                    t[0].median_ms, t[1].median_ms, t[1].median_ms / t[0].median_ms,
                    t[2].median_ms, t[2].median_ms / t[0].median_ms);
    } catch (const std::exception& e) {
      check(false, std::string("batched graph timing threw ") + e.what());
    }
  }
  CUDA_OK(cudaStreamSynchronize(stream));
}

void test_cross_check(cudaStream_t stream) {
  constexpr int kRepeats = 6;
  const auto& device = hgemm::current_device();
  // Compute-bound shapes whose operands exceed the L2, so the harness's rotation and the
  // standalone loop's single buffer set see the same memory behaviour.
  const hgemm::Shape shapes[] = {{4096, 4096, 4096}, {8192, 8192, 1024}, {4096, 8192, 4096},
                                 {2048, 8192, 8192}, {8192, 4096, 2048}};
  hgemm::baselines::Baselines libs;
  hgemm::bench::RotatingBuffers buffers;
  hgemm::bench::Timer timer(stream, {});
  for (const auto& s : shapes) {
    for (Layout layout : {Layout::kTN, Layout::kNN}) {
      const Problem p{s.m, s.n, s.k, layout, Accum::kF32};
      buffers.prepare(p.m, p.n, p.k, device.l2_bytes, 13, stream);
      libs.select(p, timer, buffers);
      const auto algo =
          libs.algorithm(Kind::kLtBest, p, buffers.a(0), buffers.b(0), buffers.c(0));
      const auto best_fn = libs.fn(Kind::kLtBest);
      StandaloneLt own(p, algo, stream);
      // One comparison: kRepeats harness runs alternating with kRepeats standalone ones.
      struct Comparison {
        double h, o, d, h_spread, r_spread, o_spread;
        hgemm::bench::SpreadBar bar;
        double gap() const { return apart(h, o); }
        std::string text() const {
          return fmt("harness %.4f ms, standalone %.4f ms (fastest of %.0f alternating runs), ",
                     h, o, kRepeats) +
                 fmt("%.1f%% apart; ", 100 * gap()) + bar_text(bar) +
                 fmt(" (harness's two fastest runs %.1f%% apart, its rounds %.1f%%, standalone's "
                     "%.1f%%)",
                     100 * h_spread, 100 * r_spread, 100 * o_spread);
        }
      };
      auto compare = [&] {
        std::vector<double> harness, rounds_spread, doubled, standalone;
        for (int r = 0; r < kRepeats; ++r) {
          if (r % 2 == 1) standalone.push_back(own.time_ms());
          const auto t =
              timer.measure(hgemm::bench::Mode::kOffline, {{best_fn, p}, {twice(best_fn), p}},
                            buffers);
          for (const auto& timing : t)
            if (!timing.ok()) std::rethrow_exception(timing.failure);
          harness.push_back(t[0].median_ms);
          rounds_spread.push_back(t[0].relative_spread());
          doubled.push_back(t[1].median_ms);
          if (r % 2 == 0) standalone.push_back(own.time_ms());
        }
        // The relative gap between the two fastest of `runs`.
        auto fast_gap = [](std::vector<double> runs) {
          if (runs.size() < 2) return std::numeric_limits<double>::quiet_NaN();
          std::partial_sort(runs.begin(), runs.begin() + 2, runs.end());
          return apart(runs[0], runs[1]);
        };
        Comparison c{*std::min_element(harness.begin(), harness.end()),
                     *std::min_element(standalone.begin(), standalone.end()),
                     *std::min_element(doubled.begin(), doubled.end()),
                     fast_gap(harness),
                     hgemm::bench::percentile(rounds_spread, 0.5),
                     fast_gap(standalone),
                     {}};
        c.bar = agreement_bar(max_spread({c.h_spread, c.r_spread, c.o_spread}));
        return c;
      };
      // NOTE: with ten shape and layout pairs under a power cap, now and then one pair reads
      // 3-9% apart in one comparison (several runs of the GPU suite in 2026-11, in either
      // direction) and agrees in the next. A bias of the harness is there every time, so a pair
      // that disagrees is compared once more, and the second comparison is the one judged.
      Comparison c = compare();
      std::string earlier;
      if (!(c.bar.usable && c.gap() <= c.bar.bar)) {
        earlier = "; a first comparison read " + c.text();
        c = compare();
      }
      check(c.bar.usable && c.gap() <= c.bar.bar,
            "harness cublaslt-best offline matches a standalone timing on " + p.name() + ": " +
                c.text() + earlier);
      check(apart(c.d, c.o) > c.bar.bar,
            "negative control on " + p.name() +
                ": the harness's time of two calls per call differs from the standalone time " +
                "by more than that bar" + fmt(" (%.4f ms, %.2fx)", c.d, c.d / c.o));
    }
  }
}

}  // namespace

int main() {
  if (!gpu_checks::device_present("the harness tests need a GPU")) return 1;
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  try {
    test_baselines_pass_verifier(stream);
    test_timing_modes(stream);
    test_graph_not_slower(stream);
    test_interleaved(stream);
    test_selection_stable(stream);
    test_selection_refused_in_capture(stream);
    test_best_not_slower(stream);
    test_cross_check(stream);
    test_epilogues(stream);
    test_batched(stream);
  } catch (const std::exception& e) {
    check(false, std::string("unexpected exception: ") + e.what());
  }
  CUDA_OK(cudaStreamDestroy(stream));
  const int failures = gpu_checks::g_failures;
  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
