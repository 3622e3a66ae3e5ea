#include "tuner/measure/gpu_measurer.hpp"

#include <map>
#include <string>

#include <cuda_runtime_api.h>

#include "baselines/baselines.hpp"
#include "bench/environment.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "verify/verifier.hpp"

namespace hgemm::tuner {
namespace {

// After a failed call the context may be unusable (an illegal address is sticky); every later
// measurement would be wrong, so the run ends here, its records saved for --resume.
void require_healthy_device() {
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    HGEMM_THROW(HGEMM_ERROR_CUDA, std::string("the CUDA context is unusable after a failed "
                                              "candidate (") +
                                      cudaGetErrorName(err) + "); rerun with --resume");
  cudaGetLastError();
}

Disposition from_verifier(verify::Disposition d) {
  return d == verify::Disposition::kIncorrect ? Disposition::kIncorrect
                                              : Disposition::kLaunchFailed;
}

}  // namespace

struct GpuMeasurer::Impl {
  explicit Impl(GpuMeasurerOptions o) : options(o), device(current_device()) {
    HGEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    timer = std::make_unique<bench::Timer>(stream, options.timing);
    verify_options.seed = options.seed;
    if (options.quick_verify)
      verify_options.small_integer = verify_options.precision_probe = verify_options.nonfinite =
          false;
  }
  ~Impl() {
    timer.reset();
    cudaStreamDestroy(stream);
  }

  void prepare(const Problem& p) {
    if (p.m == m && p.n == n && p.k == k && p.dtype == dtype) return;
    // The same inputs as `hgemm bench` uses for this shape.
    const uint32_t fill_seed = uint32_t(p.m * 73856093 ^ p.n * 19349663 ^ p.k * 83492791);
    buffers.prepare(p.m, p.n, p.k, device.l2_bytes, fill_seed, stream, p.dtype);
    m = p.m;
    n = p.n;
    k = p.k;
    dtype = p.dtype;
  }

  // cublaslt-best's choice for this problem (chosen once per problem and process, in graph
  // mode on the rotated buffers) and its description. It is timed together with each
  // candidate, not here.
  const std::string& reference(const Problem& p) {
    const std::string key = p.name();
    if (auto it = references.find(key); it != references.end()) return it->second;
    libs.select(p, *timer, buffers);
    const std::string detail = libs.describe(baselines::Kind::kLtBest, p, buffers.a(0),
                                             buffers.b(0), buffers.c(0));
    return references.emplace(key, detail).first->second;
  }

  GpuMeasurerOptions options;
  const DeviceInfo& device;
  cudaStream_t stream = nullptr;
  baselines::Baselines libs;
  verify::Verifier verifier;
  verify::Options verify_options;
  bench::RotatingBuffers buffers;
  std::unique_ptr<bench::Timer> timer;
  bench::ClockReader clocks;
  int64_t m = 0, n = 0, k = 0;  // the shape and element type the buffers hold
  DType dtype = DType::kF16;
  std::map<std::string, std::string> references;
  verify::Report report;
};

GpuMeasurer::GpuMeasurer(GpuMeasurerOptions options)
    : impl_(std::make_unique<Impl>(options)) {}

GpuMeasurer::~GpuMeasurer() = default;

const verify::Report& GpuMeasurer::last_report() const { return impl_->report; }

Measurement GpuMeasurer::measure(const Problem& problem, const KernelConfig& config) {
  return measure(problem, config,
                 [config](const Problem& p, const void* a, const void* b, void* c,
                          cudaStream_t stream) { run(p, config, a, b, c, stream); });
}

Measurement GpuMeasurer::measure(const Problem& problem, const KernelConfig& config,
                                 const verify::GemmFn& fn) {
  Impl& s = *impl_;
  s.report = {};
  s.prepare(problem);
  const std::string& reference = s.reference(problem);
  Measurement out;

  if (Status st = can_implement(problem, config, s.buffers.a(0), s.buffers.b(0), s.buffers.c(0));
      !st.ok()) {
    out.disposition = Disposition::kNotSupported;
    out.detail = st.message;
    return out;
  }
  s.report = s.verifier.check(problem, fn, s.verify_options);
  const verify::Report& report = s.report;
  if (!report.passed()) {
    out.disposition = from_verifier(report.disposition);
    out.detail = report.summary();
    require_healthy_device();
    return out;
  }
  for (const verify::CheckResult& c : report.checks)
    if (c.check == "random_normal" && c.tol_rel_fro > 0)
      out.error_ratio = c.rel_fro_error / c.tol_rel_fro;

  // Candidate and reference in one interleaved measurement: the speedup compares the two under
  // the same clock state (bench/timing.hpp says why that matters on a power-capped card).
  const std::vector<bench::Timing> t = s.timer->measure(
      s.options.mode, {{fn, problem}, {s.libs.fn(baselines::Kind::kLtBest), problem}},
      s.buffers);
  if (!t[1].ok()) std::rethrow_exception(t[1].failure);  // a reference that cannot run
  out.reference_us = t[1].median_ms * 1e3;
  if (t[0].ok()) {
    out.disposition = Disposition::kPassed;
    out.median_us = t[0].median_ms * 1e3;
    out.p20_us = t[0].p20_ms * 1e3;
    out.p80_us = t[0].p80_ms * 1e3;
    out.sm_clock_mhz = s.clocks.sm_clock_mhz();
    out.detail = "reference " + reference;
  } else {
    out.disposition = Disposition::kLaunchFailed;
    out.detail = "timing: " + t[0].failure_message();
    require_healthy_device();
  }
  return out;
}

}  // namespace hgemm::tuner
