// The measurer that runs on the current CUDA device. Per candidate:
//   1. can_implement() on the shape's buffers; a refusal is not_supported with its reason;
//   2. the verifier (every check unless `quick_verify`); a failure is incorrect or launch_failed
//      with the verifier's summary, and the device is checked for a sticky error;
//   3. the candidate and the reference, cublaslt-best (baselines::Kind::kLtBest, its algorithm
//      chosen once per problem and process by Baselines::select), timed together by bench::Timer
//      in `mode`,
//      interleaved round by round on the same rotated buffers (>= 2x L2 between reuses, median
//      of >= 5 rounds): the speedup is a paired comparison under one clock state.
// A lost CUDA context (a sticky error after a failure) throws hgemm::Error: nothing after it
// could be trusted. Not thread-safe; one per device and process.
#pragma once

#include <cstdint>
#include <memory>

#include "bench/timing.hpp"
#include "tuner/measure/measurer.hpp"

namespace hgemm::tuner {

struct GpuMeasurerOptions {
  bench::Mode mode = bench::Mode::kGraph;  // device time, without the host's enqueue cost
  bench::TimingOptions timing;
  uint64_t seed = 24301;      // verifier inputs
  bool quick_verify = false;  // random_normal and guard bands only
};

class GpuMeasurer : public Measurer {
 public:
  explicit GpuMeasurer(GpuMeasurerOptions options = {});
  ~GpuMeasurer() override;
  GpuMeasurer(const GpuMeasurer&) = delete;
  GpuMeasurer& operator=(const GpuMeasurer&) = delete;

  Measurement measure(const Problem& problem, const KernelConfig& config) override;
  // The same steps with `fn` as the GEMM under test instead of the catalog's `config` (a kernel
  // compiled from a source rewrite with config's geometry); can_implement still asks about config.
  Measurement measure(const Problem& problem, const KernelConfig& config,
                      const verify::GemmFn& fn);
  // The verifier's report of the last measure(); empty when it stopped before verifying.
  const verify::Report& last_report() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hgemm::tuner
