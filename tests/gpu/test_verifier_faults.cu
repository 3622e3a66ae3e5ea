// The verifier against planted faults. A naive GEMM (one thread per element of C, 16x16 threads
// per block, so each block is one 16x16 tile of C) runs correctly or with one fault, and the
// verifier must return the expected disposition with the expected check named in the report:
//   correct, fp32 accumulation          -> passed (1x1x1 up to K = 16384, both layouts, misaligned)
//   correct, fp16 accumulation as F16   -> passed
//   skip_tile (one tile never written)  -> incorrect by guard_bands ("unwritten")
//   fp16 accumulation claiming F32      -> incorrect by precision_probe
//   out_of_bounds (one write past C)    -> incorrect by guard_bands ("wrote outside C")
//   drops NaN (saturating epilogue)     -> incorrect by nonfinite, every other check passes
//   throws hgemm::Error                 -> launch_failed
// and cuBLAS itself: COMPUTE_32F and COMPUTE_16F pass as what they are, COMPUTE_16F claimed as
// F32 fails the precision probe.
// The same with bf16 elements (the naive GEMM reads and writes __nv_bfloat16): correct passes,
// skip_tile, out_of_bounds and drops NaN are caught by the same checks, a bf16 or an fp16
// accumulator claiming F32 fails the precision probe, the fp16 kernel run on bf16 data (or the
// reverse) fails random_normal, cuBLAS with CUDA_R_16BF and COMPUTE_32F passes, and a bf16
// problem with fp16 accumulation is refused at setup.
// With an epilogue (Options::epilogue; the naive GEMM followed by the benchmark's unfused bias and
// activation kernel): correct passes in either type up to K = 16384, with small_integer and the
// probe n/a where a bias or GELU makes them inexact and nonfinite n/a under an activation; a bias
// read one column off, an activation applied before the bias, or the epilogue left out fail
// random_normal, in bf16 at K = 16384 too (what the verifier's bias scale is for); an alpha of 0
// and a misaligned bias are refused at setup.
// With strided batches (Options::batch; the naive GEMM launched once per batch): correct passes,
// packed or with gaps between the batches, misaligned, in either type, with an epilogue; a GEMM
// that computes batch 0 only, skips the last batch, swaps two batches, reads batch 0's A for every
// batch, accumulates one batch in fp16, drops NaN in one batch or writes into the gap after a
// batch fails, and the check that catches it names the batch; overlapping strides and a batch
// count of 0 are refused at setup.
// A plain executable: one line per case, non-zero exit on any failure, and a failure (not a skip)
// without a GPU.
#include <chrono>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "baselines/cublas_error.hpp"
#include "bench/epilogue.hpp"
#include "core/error.hpp"
#include "hgemm/hgemm.hpp"
#include "verify/verifier.hpp"

namespace {

using hgemm::Accum;
using hgemm::DType;
using hgemm::Layout;
using hgemm::Problem;
using hgemm::verify::CheckResult;
using hgemm::verify::Disposition;
using hgemm::verify::GemmFn;
using hgemm::verify::Options;
using hgemm::verify::Report;

int g_failures = 0;

// kWrongType: the kernel of the other element type runs, reading and writing the wrong bits.
enum class Fault { kNone, kSkipTile, kOutOfBounds, kDropNan, kWrongType };
// The accumulator: fp32, or fp16 / bf16 the way tensor cores would keep a 16-bit one: 16
// products summed in fp32, then one round-to-nearest into the accumulator per k16 step.
enum class Acc { kF32, kF16, kBF16 };

constexpr int kTile = 16;

__device__ inline float to_float(__half x) { return __half2float(x); }
__device__ inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T>
__device__ inline T from_float(float x);
template <>
__device__ inline __half from_float<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
// The largest finite value of T, where a saturating epilogue clamps.
template <class T>
__device__ inline float max_finite() {
  return std::is_same_v<T, __half> ? 65504.0f : 0x1.fep127f;
}

template <class T>
__global__ void naive_gemm(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, bool tn,
                           Acc accum, Fault fault) {
  if (fault == Fault::kSkipTile && blockIdx.x == gridDim.x / 2 && blockIdx.y == gridDim.y / 2)
    return;
  const int64_t row = int64_t(blockIdx.y) * kTile + threadIdx.y;
  const int64_t col = int64_t(blockIdx.x) * kTile + threadIdx.x;
  if (row >= m || col >= n) return;
  auto a_at = [&](int64_t kk) { return to_float(a[row * k + kk]); };
  auto b_at = [&](int64_t kk) { return to_float(tn ? b[col * k + kk] : b[kk * n + col]); };
  float result;
  if (accum == Acc::kF32) {
    float acc = 0.0f;
    for (int64_t kk = 0; kk < k; ++kk) acc = fmaf(a_at(kk), b_at(kk), acc);
    result = acc;
  } else {
    float acc = 0.0f;  // always holds a value of the 16-bit accumulator type
    for (int64_t k0 = 0; k0 < k; k0 += 16) {
      float chunk = 0.0f;
      for (int64_t kk = k0; kk < k && kk < k0 + 16; ++kk) chunk = fmaf(a_at(kk), b_at(kk), chunk);
      acc = accum == Acc::kF16 ? __half2float(__float2half_rn(acc + chunk))
                               : __bfloat162float(__float2bfloat16_rn(acc + chunk));
    }
    result = acc;
  }
  // A saturating epilogue: fmaxf/fminf return the non-NaN operand, so NaN becomes -max.
  if (fault == Fault::kDropNan)
    result = fminf(fmaxf(result, -max_finite<T>()), max_finite<T>());
  c[row * n + col] = from_float<T>(result);
  if (fault == Fault::kOutOfBounds && row == m - 1 && col == n - 1) c[m * n] = from_float<T>(1.0f);
}

template <class T>
void launch_naive(const Problem& p, const void* a, const void* b, void* c, cudaStream_t stream,
                  Acc accum, Fault fault) {
  const dim3 block(kTile, kTile);
  const dim3 grid(unsigned((p.n + kTile - 1) / kTile), unsigned((p.m + kTile - 1) / kTile));
  naive_gemm<T><<<grid, block, 0, stream>>>(static_cast<const T*>(a), static_cast<const T*>(b),
                                            static_cast<T*>(c), p.m, p.n, p.k,
                                            p.layout == Layout::kTN, accum, fault);
  HGEMM_LAUNCH_CHECK();
}

GemmFn naive(Acc accum, Fault fault = Fault::kNone) {
  return [=](const Problem& p, const void* a, const void* b, void* c, cudaStream_t stream) {
    const bool bf16 = (p.dtype == DType::kBF16) != (fault == Fault::kWrongType);
    if (bf16)
      launch_naive<__nv_bfloat16>(p, a, b, c, stream, accum, fault);
    else
      launch_naive<__half>(p, a, b, c, stream, accum, fault);
  };
}

enum class EpilogueFault { kNone, kShiftedBias, kActivationFirst, kLeftOut };

// The naive fp32-accumulating GEMM, then the epilogue the verifier expects, or a faulty one.
GemmFn naive_with_epilogue(const hgemm::verify::Epilogue& e, EpilogueFault fault) {
  return [=](const Problem& p, const void* a, const void* b, void* c, cudaStream_t stream) {
    naive(Acc::kF32)(p, a, b, c, stream);
    const auto* bias = static_cast<const uint16_t*>(e.bias);
    switch (fault) {
      case EpilogueFault::kNone:
        hgemm::bench::apply_bias_activation(c, p.dtype, p.m, p.n, bias, e.activation, stream);
        break;
      case EpilogueFault::kShiftedBias:
        hgemm::bench::apply_bias_activation(c, p.dtype, p.m, p.n, bias + 1, e.activation, stream);
        break;
      case EpilogueFault::kActivationFirst:
        hgemm::bench::apply_bias_activation(c, p.dtype, p.m, p.n, nullptr, e.activation, stream);
        hgemm::bench::apply_bias_activation(c, p.dtype, p.m, p.n, bias, hgemm::Activation::kNone,
                                            stream);
        break;
      case EpilogueFault::kLeftOut: break;
    }
  };
}

// How a batched GEMM goes wrong: kNone runs every batch right.
enum class BatchFault {
  kNone,
  kOnlyFirst,     // computes batch 0 only
  kSkipLast,      // leaves the last batch unwritten
  kSwapFirstTwo,  // writes batch 0's product into batch 1's C and the reverse
  kSharedA,       // reads batch 0's A for every batch
  kF16InOne,      // accumulates batch `count / 2` in fp16 while claiming fp32
  kDropNanInOne,  // saturates NaN in batch `count - 1`
  kIntoGap,       // writes one element just past batch 0's C (into the gap before batch 1)
};

// The naive GEMM once per batch at `batch`'s strides (which the verifier must be given too).
GemmFn naive_batched(const hgemm::verify::Batch& batch, BatchFault fault = BatchFault::kNone) {
  return [=](const Problem& p, const void* a, const void* b, void* c, cudaStream_t stream) {
    const auto* a16 = static_cast<const uint16_t*>(a);
    const auto* b16 = static_cast<const uint16_t*>(b);
    auto* c16 = static_cast<uint16_t*>(c);
    const int64_t count = batch.count;
    for (int64_t i = 0; i < count; ++i) {
      if (fault == BatchFault::kOnlyFirst && i > 0) break;
      if (fault == BatchFault::kSkipLast && i == count - 1) break;
      int64_t out = i;
      if (fault == BatchFault::kSwapFirstTwo && i < 2) out = 1 - i;
      const int64_t in_a = fault == BatchFault::kSharedA ? 0 : i;
      Acc acc = fault == BatchFault::kF16InOne && i == count / 2 ? Acc::kF16 : Acc::kF32;
      Fault element = fault == BatchFault::kDropNanInOne && i == count - 1 ? Fault::kDropNan
                                                                           : Fault::kNone;
      naive(acc, element)(p, a16 + in_a * batch.stride_a, b16 + i * batch.stride_b,
                          c16 + out * batch.stride_c, stream);
    }
    if (fault == BatchFault::kIntoGap) {
      const uint16_t one = p.dtype == DType::kBF16 ? 0x3f80 : 0x3c00;
      HGEMM_CUDA_CHECK(cudaMemcpyAsync(c16 + p.m * p.n, &one, sizeof one, cudaMemcpyHostToDevice,
                                       stream));
      HGEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  };
}

GemmFn throwing() {
  return [](const Problem&, const void*, const void*, void*, cudaStream_t) {
    throw hgemm::Error(HGEMM_ERROR_NOT_SUPPORTED, "planted refusal from the test GEMM");
  };
}

// cuBLAS with A, B and C of the problem's element type; the row-major mapping is the verifier's
// (C' = B' * A').
GemmFn cublas(cublasHandle_t handle, bool compute16) {
  return [=](const Problem& p, const void* a, const void* b, void* c, cudaStream_t stream) {
    HGEMM_CUBLAS_CHECK(cublasSetStream(handle, stream));
    const bool tn = p.layout == Layout::kTN;
    const cudaDataType type = p.dtype == DType::kBF16 ? CUDA_R_16BF : CUDA_R_16F;
    const float one = 1.0f, zero = 0.0f;
    const __half one_h = __float2half(1.0f), zero_h = __float2half(0.0f);
    HGEMM_CUBLAS_CHECK(
        cublasGemmEx(handle, tn ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, int(p.n), int(p.m),
                     int(p.k), compute16 ? static_cast<const void*>(&one_h) : &one, b, type,
                     tn ? int(p.k) : int(p.n), a, type, int(p.k),
                     compute16 ? static_cast<const void*>(&zero_h) : &zero, c, type, int(p.n),
                     compute16 ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
}

const CheckResult* find(const Report& r, const std::string& name) {
  for (const CheckResult& c : r.checks)
    if (c.check == name) return &c;
  return nullptr;
}

struct Expect {
  Disposition disposition = Disposition::kPassed;
  std::vector<std::string> must_fail;    // checks present with a non-passed disposition
  std::vector<std::string> must_pass;    // checks present and passed
  std::vector<std::string> summary_has;  // substrings of Report::summary()
  bool probe_must_run = false;           // precision_probe passed and was applicable
};

void run_case(hgemm::verify::Verifier& verifier, const std::string& label, const Problem& p,
              const GemmFn& gemm, const Expect& want, const Options& options = {}) {
  const auto start = std::chrono::steady_clock::now();
  const Report report = verifier.check(p, gemm, options);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const std::string summary = report.summary();
  std::string problems;
  if (report.disposition != want.disposition)
    problems += std::string(" [disposition ") + hgemm::verify::to_string(report.disposition) +
                ", expected " + hgemm::verify::to_string(want.disposition) + "]";
  for (const std::string& name : want.must_fail) {
    const CheckResult* c = find(report, name);
    if (!c || c->disposition == Disposition::kPassed)
      problems += " [" + name + " did not fail]";
    else if (c->reason.empty())
      problems += " [" + name + " failed without a reason]";
  }
  for (const std::string& name : want.must_pass) {
    const CheckResult* c = find(report, name);
    if (!c || c->disposition != Disposition::kPassed) problems += " [" + name + " did not pass]";
  }
  for (const std::string& text : want.summary_has)
    if (summary.find(text) == std::string::npos) problems += " [summary lacks \"" + text + "\"]";
  if (want.probe_must_run) {
    const CheckResult* c = find(report, "precision_probe");
    if (!c || c->disposition != Disposition::kPassed || !c->reason.empty())
      problems += " [precision_probe did not run and pass]";
  }
  const bool ok = problems.empty();
  if (!ok) ++g_failures;
  std::printf("%s %-44s %-22s %7.1f ms  %s%s\n", ok ? "ok  " : "FAIL", label.c_str(),
              p.name().c_str(), ms, summary.c_str(), problems.c_str());
  std::fflush(stdout);
}

const std::vector<std::string> kAllChecks = {"random_normal", "small_integer", "precision_probe",
                                             "nonfinite", "guard_bands"};

Expect passes(bool probe_must_run = false) {
  Expect e;
  e.must_pass = kAllChecks;
  e.summary_has = {"PASSED"};
  e.probe_must_run = probe_must_run;
  return e;
}

Expect fails(std::vector<std::string> must_fail, std::vector<std::string> summary_has,
             std::vector<std::string> must_pass = {}) {
  Expect e;
  e.disposition = Disposition::kIncorrect;
  e.must_fail = std::move(must_fail);
  e.must_pass = std::move(must_pass);
  e.summary_has = std::move(summary_has);
  e.summary_has.insert(e.summary_has.begin(), "INCORRECT");
  return e;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("FAIL no CUDA device: the verifier fault tests need a GPU\n");
    return 1;
  }
  hgemm::verify::Verifier verifier;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::printf("FAIL cublasCreate\n");
    return 1;
  }
  const Layout layouts[] = {Layout::kNN, Layout::kTN};
  auto name = [](const char* what, Layout l) {
    return std::string(what) + " " + std::string(hgemm::to_string(l));
  };

  // A correct fp32-accumulating kernel passes everywhere, from one element to K = 16384.
  for (Layout l : layouts) {
    run_case(verifier, name("correct f32", l), Problem{1, 1, 1, l, Accum::kF32}, naive(Acc::kF32),
             passes());
    run_case(verifier, name("correct f32", l), Problem{17, 33, 65, l, Accum::kF32},
             naive(Acc::kF32), passes());
    run_case(verifier, name("correct f32", l), Problem{256, 256, 4096, l, Accum::kF32},
             naive(Acc::kF32), passes(true));
    run_case(verifier, name("correct f32 large K", l), Problem{128, 128, 16384, l, Accum::kF32},
             naive(Acc::kF32), passes(true));
    run_case(verifier, name("correct f32 K=1", l), Problem{300, 200, 1, l, Accum::kF32},
             naive(Acc::kF32), passes());
  }
  Options misaligned;
  misaligned.misalign_elements = 1;
  Options misaligned3;
  misaligned3.misalign_elements = 3;
  run_case(verifier, "correct f32 misalign 1", Problem{17, 33, 65, Layout::kNN, Accum::kF32},
           naive(Acc::kF32), passes(), misaligned);
  run_case(verifier, "correct f32 misalign 3", Problem{256, 256, 4096, Layout::kTN, Accum::kF32},
           naive(Acc::kF32), passes(true), misaligned3);

  // A correct fp16-accumulating kernel passes as an F16 problem (the probe does not apply).
  for (Layout l : layouts) {
    run_case(verifier, name("correct f16", l), Problem{17, 33, 65, l, Accum::kF16},
             naive(Acc::kF16), passes());
    run_case(verifier, name("correct f16", l), Problem{256, 256, 4096, l, Accum::kF16},
             naive(Acc::kF16), passes());
  }
  run_case(verifier, "correct f16 misalign 1", Problem{256, 256, 4096, Layout::kNN, Accum::kF16},
           naive(Acc::kF16), passes(), misaligned);

  // skip_tile: block (8, 8) of a 16x16 grid returns early, leaving C[128..143][128..143].
  for (Layout l : layouts)
    run_case(verifier, name("skip_tile", l), Problem{256, 256, 4096, l, Accum::kF32},
             naive(Acc::kF32, Fault::kSkipTile),
             fails({"guard_bands", "random_normal"},
                   {"guard_bands", "unwritten", "256 of 65536", "(128,128)"}));
  run_case(verifier, "skip_tile misalign 3", Problem{256, 256, 4096, Layout::kNN, Accum::kF32},
           naive(Acc::kF32, Fault::kSkipTile), fails({"guard_bands"}, {"guard_bands", "unwritten"}),
           misaligned3);

  // fp16 accumulation while claiming F32.
  for (Layout l : layouts)
    run_case(verifier, name("f16 accumulation claimed as f32", l),
             Problem{256, 256, 4096, l, Accum::kF32}, naive(Acc::kF16),
             fails({"precision_probe"}, {"precision_probe"}));

  // One element written just past the end of C; every value is right.
  const std::vector<std::string> values_ok = {"random_normal", "small_integer", "precision_probe",
                                              "nonfinite"};
  for (Layout l : layouts)
    run_case(verifier, name("out_of_bounds", l), Problem{256, 256, 4096, l, Accum::kF32},
             naive(Acc::kF32, Fault::kOutOfBounds),
             fails({"guard_bands"}, {"guard_bands", "wrote outside C", "element offset 65536"},
                   values_ok));
  run_case(verifier, "out_of_bounds misalign 1", Problem{17, 33, 65, Layout::kTN, Accum::kF32},
           naive(Acc::kF32, Fault::kOutOfBounds),
           fails({"guard_bands"}, {"wrote outside C", "element offset 561"}, values_ok),
           misaligned);
  Options guard_only;
  guard_only.random_normal = guard_only.small_integer = guard_only.precision_probe =
      guard_only.nonfinite = false;
  run_case(verifier, "out_of_bounds, guard bands only",
           Problem{64, 64, 64, Layout::kNN, Accum::kF32}, naive(Acc::kF32, Fault::kOutOfBounds),
           fails({"guard_bands"}, {"wrote outside C"}), guard_only);

  // A saturating epilogue turns NaN into a finite value (and Inf into 65504).
  for (Layout l : layouts)
    run_case(verifier, name("drops NaN", l), Problem{256, 256, 1024, l, Accum::kF32},
             naive(Acc::kF32, Fault::kDropNan),
             fails({"nonfinite"}, {"nonfinite"},
                   {"random_normal", "small_integer", "precision_probe", "guard_bands"}));

  // A GEMM that throws is a launch failure, and the verifier keeps working afterwards.
  {
    Expect e;
    e.disposition = Disposition::kLaunchFailed;
    e.summary_has = {"LAUNCH_FAILED", "random_normal", "planted refusal from the test GEMM"};
    e.must_fail = {"random_normal"};
    run_case(verifier, "throws hgemm::Error", Problem{64, 64, 64, Layout::kTN, Accum::kF32},
             throwing(), e);
  }
  run_case(verifier, "correct f32 after a launch failure",
           Problem{64, 64, 64, Layout::kTN, Accum::kF32}, naive(Acc::kF32), passes());

  // cuBLAS itself: both accumulation modes pass as what they are; COMPUTE_16F is caught when it
  // claims fp32 accumulation.
  for (Layout l : layouts) {
    run_case(verifier, name("cuBLAS COMPUTE_32F", l), Problem{1024, 1024, 4096, l, Accum::kF32},
             cublas(handle, false), passes(true));
    run_case(verifier, name("cuBLAS COMPUTE_16F", l), Problem{1024, 1024, 4096, l, Accum::kF16},
             cublas(handle, true), passes());
    run_case(verifier, name("cuBLAS COMPUTE_16F claimed as f32", l),
             Problem{1024, 1024, 4096, l, Accum::kF32}, cublas(handle, true),
             fails({"precision_probe"}, {"precision_probe"}));
  }
  run_case(verifier, "cuBLAS COMPUTE_32F large K",
           Problem{2048, 2048, 16384, Layout::kTN, Accum::kF32}, cublas(handle, false),
           passes(true));
  run_case(verifier, "cuBLAS COMPUTE_16F large K",
           Problem{2048, 2048, 16384, Layout::kTN, Accum::kF16}, cublas(handle, true), passes());

  // ---- bf16 elements ----
  auto bf16 = [](int64_t m, int64_t n, int64_t k, Layout l) {
    return Problem{m, n, k, l, Accum::kF32, DType::kBF16};
  };
  for (Layout l : layouts) {
    run_case(verifier, name("bf16 correct", l), bf16(1, 1, 1, l), naive(Acc::kF32), passes());
    run_case(verifier, name("bf16 correct", l), bf16(17, 33, 65, l), naive(Acc::kF32), passes());
    run_case(verifier, name("bf16 correct", l), bf16(256, 256, 4096, l), naive(Acc::kF32),
             passes(true));
    run_case(verifier, name("bf16 correct large K", l), bf16(128, 128, 16384, l),
             naive(Acc::kF32), passes(true));
    run_case(verifier, name("bf16 correct K=256", l), bf16(64, 80, 256, l), naive(Acc::kF32),
             passes(true));
    run_case(verifier, name("bf16 correct K=1", l), bf16(300, 200, 1, l), naive(Acc::kF32),
             passes());
  }
  run_case(verifier, "bf16 correct misalign 1", bf16(17, 33, 65, Layout::kNN), naive(Acc::kF32),
           passes(), misaligned);
  run_case(verifier, "bf16 correct misalign 3", bf16(256, 256, 4096, Layout::kTN),
           naive(Acc::kF32), passes(true), misaligned3);
  for (Layout l : layouts) {
    run_case(verifier, name("bf16 skip_tile", l), bf16(256, 256, 4096, l),
             naive(Acc::kF32, Fault::kSkipTile),
             fails({"guard_bands", "random_normal"},
                   {"guard_bands", "unwritten", "0x7f9a", "256 of 65536", "(128,128)"}));
    // Neither a bf16 nor an fp16 accumulator keeps the probe's small terms.
    run_case(verifier, name("bf16 accumulation claimed as f32", l), bf16(256, 256, 4096, l),
             naive(Acc::kBF16), fails({"precision_probe"}, {"precision_probe", "1/32"}));
    run_case(verifier, name("bf16 data, f16 accumulation claimed as f32", l),
             bf16(256, 256, 4096, l), naive(Acc::kF16),
             fails({"precision_probe"}, {"precision_probe"}));
    run_case(verifier, name("bf16 out_of_bounds", l), bf16(256, 256, 4096, l),
             naive(Acc::kF32, Fault::kOutOfBounds),
             fails({"guard_bands"}, {"guard_bands", "wrote outside C", "element offset 65536"},
                   values_ok));
    run_case(verifier, name("bf16 drops NaN", l), bf16(256, 256, 1024, l),
             naive(Acc::kF32, Fault::kDropNan),
             fails({"nonfinite"}, {"nonfinite"},
                   {"random_normal", "small_integer", "precision_probe", "guard_bands"}));
    // The element types read as each other: far off, whichever way round.
    run_case(verifier, name("bf16 data read as fp16", l), bf16(256, 256, 1024, l),
             naive(Acc::kF32, Fault::kWrongType), fails({"random_normal"}, {"random_normal"}));
    run_case(verifier, name("fp16 data read as bf16", l), Problem{256, 256, 1024, l, Accum::kF32},
             naive(Acc::kF32, Fault::kWrongType), fails({"random_normal"}, {"random_normal"}));
    run_case(verifier, name("cuBLAS bf16 COMPUTE_32F", l), bf16(1024, 1024, 4096, l),
             cublas(handle, false), passes(true));
  }
  run_case(verifier, "cuBLAS bf16 COMPUTE_32F large K", bf16(2048, 2048, 16384, Layout::kTN),
           cublas(handle, false), passes(true));
  {
    Expect e;
    e.disposition = Disposition::kLaunchFailed;
    e.summary_has = {"LAUNCH_FAILED", "invalid problem", "bf16 accumulates in fp32 only"};
    e.must_fail = {"setup"};
    run_case(verifier, "bf16 with f16 accumulation is refused",
             Problem{64, 64, 64, Layout::kTN, Accum::kF16, DType::kBF16}, naive(Acc::kF32), e);
  }

  // ---- epilogues ----
  {
    using hgemm::Activation;
    // N + 1 elements: the shifted-bias fault reads one past the N the verifier writes.
    hgemm::bench::DeviceBias bias;
    bias.prepare(1025, 3, DType::kF16, nullptr);
    auto epilogue = [&](bool with_bias, Activation activation) {
      Options o;
      o.epilogue.bias = with_bias ? bias.data() : nullptr;
      o.epilogue.activation = activation;
      return o;
    };
    const Options bias_gelu = epilogue(true, Activation::kGeluTanh);
    const Options bias_relu = epilogue(true, Activation::kRelu);
    const Options bias_only = epilogue(true, Activation::kNone);
    const Options relu_only = epilogue(false, Activation::kRelu);
    const Options gelu_erf = epilogue(false, Activation::kGelu);
    auto with = [&](const Options& o, EpilogueFault fault = EpilogueFault::kNone) {
      return naive_with_epilogue(o.epilogue, fault);
    };
    Expect inexact = passes();
    inexact.must_pass = {"random_normal", "guard_bands"};
    inexact.summary_has = {"PASSED", "small_integer n/a", "precision_probe n/a", "nonfinite n/a"};
    Expect biased = passes();
    biased.must_pass = {"random_normal", "nonfinite", "guard_bands"};
    biased.summary_has = {"PASSED", "small_integer n/a", "precision_probe n/a", "nonfinite ok"};
    Expect relu_exact = passes(true);
    relu_exact.must_pass = {"random_normal", "small_integer", "precision_probe", "guard_bands"};
    relu_exact.summary_has = {"PASSED", "nonfinite n/a"};
    for (DType dtype : {DType::kF16, DType::kBF16}) {
      const std::string type(hgemm::to_string(dtype));
      auto problem = [dtype](int64_t m, int64_t n, int64_t k, Layout l) {
        return Problem{m, n, k, l, Accum::kF32, dtype};
      };
      for (Layout l : layouts) {
        run_case(verifier, name((type + " bias_gelu").c_str(), l), problem(17, 33, 65, l),
                 with(bias_gelu), inexact, bias_gelu);
        run_case(verifier, name((type + " bias_gelu").c_str(), l), problem(256, 1024, 4096, l),
                 with(bias_gelu), inexact, bias_gelu);
        run_case(verifier, name((type + " bias_relu").c_str(), l), problem(256, 256, 1024, l),
                 with(bias_relu), inexact, bias_relu);
        run_case(verifier, name((type + " bias").c_str(), l), problem(256, 256, 1024, l),
                 with(bias_only), biased, bias_only);
        run_case(verifier, name((type + " relu").c_str(), l), problem(256, 256, 4096, l),
                 with(relu_only), relu_exact, relu_only);
        run_case(verifier, name((type + " erf gelu").c_str(), l), problem(256, 256, 1024, l),
                 with(gelu_erf), inexact, gelu_erf);
      }
      run_case(verifier, type + " bias_gelu large K", problem(128, 1024, 16384, Layout::kTN),
               with(bias_gelu), inexact, bias_gelu);
      for (int64_t k : {int64_t(64), int64_t(16384)}) {
        const Problem p = problem(128, 1024, k, Layout::kTN);
        const std::string at = " K=" + std::to_string(k);
        run_case(verifier, type + " bias one column off" + at, p,
                 with(bias_gelu, EpilogueFault::kShiftedBias),
                 fails({"random_normal"}, {"random_normal"}), bias_gelu);
        run_case(verifier, type + " GELU before the bias" + at, p,
                 with(bias_gelu, EpilogueFault::kActivationFirst),
                 fails({"random_normal"}, {"random_normal"}), bias_gelu);
        run_case(verifier, type + " bias_gelu left out" + at, p,
                 with(bias_gelu, EpilogueFault::kLeftOut),
                 fails({"random_normal"}, {"random_normal"}), bias_gelu);
        run_case(verifier, type + " bias left out" + at, p,
                 with(bias_only, EpilogueFault::kLeftOut),
                 fails({"random_normal"}, {"random_normal"}), bias_only);
      }
    }
    Expect refused;
    refused.disposition = Disposition::kLaunchFailed;
    refused.must_fail = {"setup"};
    Options zero_alpha = bias_gelu;
    zero_alpha.epilogue.alpha = 0.0f;
    refused.summary_has = {"LAUNCH_FAILED", "alpha must be finite and nonzero"};
    run_case(verifier, "epilogue alpha 0 is refused", Problem{64, 64, 64, Layout::kTN},
             with(zero_alpha), refused, zero_alpha);
    Options odd_bias = bias_gelu;
    odd_bias.epilogue.bias = static_cast<char*>(bias.data()) + 1;
    refused.summary_has = {"LAUNCH_FAILED", "bias is not 2-byte aligned"};
    run_case(verifier, "misaligned bias is refused", Problem{64, 64, 64, Layout::kTN},
             with(odd_bias), refused, odd_bias);
  }

  // ---- strided batches ----
  {
    using hgemm::verify::Batch;
    auto batched = [](const Problem& p, int64_t count, int64_t gap = 0) {
      Batch b = Batch::packed(p, count);
      b.stride_a += gap;
      b.stride_b += gap;
      b.stride_c += gap;
      return b;
    };
    auto options_for = [](const Batch& b, const Options& base = {}) {
      Options o = base;
      o.batch = b;
      return o;
    };
    auto label = [](const std::string& what, const Batch& b) {
      return what + " x" + std::to_string(b.count) +
             (b.stride_c > 0 && b.count > 1 ? " sc " + std::to_string(b.stride_c) : "");
    };
    for (DType dtype : {DType::kF16, DType::kBF16}) {
      const std::string type(hgemm::to_string(dtype));
      for (Layout l : layouts) {
        const struct {
          int64_t m, n, k, count, gap;
          bool probe;
        } correct[] = {{128, 128, 64, 64, 0, false},
                       {100, 72, 40, 3, 0, false},
                       {256, 512, 256, 5, 0, true},
                       {17, 33, 65, 4, 40, false},
                       {64, 80, 256, 3, 1024, true}};
        for (const auto& c : correct) {
          const Problem p{c.m, c.n, c.k, l, Accum::kF32, dtype};
          const Batch b = batched(p, c.count, c.gap);
          run_case(verifier, name(label(type + " batched correct", b).c_str(), l), p,
                   naive_batched(b), passes(c.probe), options_for(b));
        }
        const Problem p{256, 256, 1024, l, Accum::kF32, dtype};
        const Batch five = batched(p, 5);
        run_case(verifier, name((type + " batched correct misalign 3").c_str(), l), p,
                 naive_batched(five), passes(true), options_for(five, misaligned3));
        run_case(verifier, name((type + " batched only batch 0").c_str(), l), p,
                 naive_batched(five, BatchFault::kOnlyFirst),
                 fails({"guard_bands", "random_normal"},
                       {"guard_bands", "unwritten", "262144 of 327680", "first at batch 1 (0,0)",
                        "4 of 5 batches wrong"}),
                 options_for(five));
        run_case(verifier, name((type + " batched last batch skipped").c_str(), l), p,
                 naive_batched(five, BatchFault::kSkipLast),
                 fails({"guard_bands", "random_normal"},
                       {"unwritten", "first at batch 4 (0,0)", "1 of 5 batches wrong"}),
                 options_for(five));
        run_case(verifier, name((type + " batched first two swapped").c_str(), l), p,
                 naive_batched(five, BatchFault::kSwapFirstTwo),
                 fails({"random_normal", "small_integer", "nonfinite"},
                       {"random_normal: batch ", "small_integer: batch ", "nonfinite: batch 0",
                        "(2 of 5 batches wrong)"},
                       {"precision_probe", "guard_bands"}),
                 options_for(five));
        run_case(verifier, name((type + " batched A of batch 0 for all").c_str(), l), p,
                 naive_batched(five, BatchFault::kSharedA),
                 fails({"random_normal", "small_integer", "nonfinite"},
                       {"4 of 5 batches wrong"}, {"guard_bands"}),
                 options_for(five));
        run_case(verifier, name((type + " batched batch 2 fp16-accumulated").c_str(), l), p,
                 naive_batched(five, BatchFault::kF16InOne),
                 fails({"precision_probe"}, {"precision_probe: batch 2 (1 of 5 batches wrong)"},
                       {"small_integer", "nonfinite", "guard_bands"}),
                 options_for(five));
        run_case(verifier, name((type + " batched last batch drops NaN").c_str(), l), p,
                 naive_batched(five, BatchFault::kDropNanInOne),
                 fails({"nonfinite"}, {"nonfinite: batch 4 (1 of 5 batches wrong)"},
                       {"random_normal", "small_integer", "precision_probe", "guard_bands"}),
                 options_for(five));
        const Batch gapped = batched(p, 5, 256);
        run_case(verifier, name((type + " batched write into the gap").c_str(), l), p,
                 naive_batched(gapped, BatchFault::kIntoGap),
                 fails({"guard_bands"},
                       {"wrote outside C", "element offset 65536", "in the gap after batch 0"},
                       values_ok),
                 options_for(gapped));
        // Only the guard bands: they still see every batch.
        run_case(verifier, name((type + " batched only batch 0, guard bands only").c_str(), l),
                 Problem{64, 64, 64, l, Accum::kF32, dtype},
                 naive_batched(batched(Problem{64, 64, 64}, 3), BatchFault::kOnlyFirst),
                 fails({"guard_bands"}, {"unwritten", "first at batch 1"}),
                 options_for(batched(Problem{64, 64, 64}, 3), guard_only));
      }
    }
    // An epilogue applies to every batch with the one bias.
    {
      hgemm::bench::DeviceBias bias;
      bias.prepare(512, 7, DType::kF16, nullptr);
      Options o;
      o.epilogue.bias = bias.data();
      o.epilogue.activation = hgemm::Activation::kGeluTanh;
      const Problem p{128, 512, 256, Layout::kTN, Accum::kF32};
      o.batch = batched(p, 4);
      const hgemm::verify::Batch bt = o.batch;
      auto fused = [bt, e = o.epilogue](const Problem& q, const void* a, const void* b, void* c,
                                        cudaStream_t s) {
        naive_batched(bt)(q, a, b, c, s);
        hgemm::bench::apply_bias_activation(c, q.dtype, bt.count * q.m, q.n, e.bias,
                                            e.activation, s);
      };
      Expect inexact = passes();
      inexact.must_pass = {"random_normal", "guard_bands"};
      inexact.summary_has = {"PASSED", "small_integer n/a"};
      run_case(verifier, "batched bias_gelu x4", p, fused, inexact, o);
      auto last_unfused = [bt, e = o.epilogue](const Problem& q, const void* a, const void* b,
                                               void* c, cudaStream_t s) {
        naive_batched(bt)(q, a, b, c, s);
        hgemm::bench::apply_bias_activation(c, q.dtype, (bt.count - 1) * q.m, q.n, e.bias,
                                            e.activation, s);
      };
      run_case(verifier, "batched bias_gelu left out of the last batch", p, last_unfused,
               fails({"random_normal"}, {"random_normal: batch 3 (1 of 4 batches wrong)"}), o);
    }
    Expect refused;
    refused.disposition = Disposition::kLaunchFailed;
    refused.must_fail = {"setup"};
    const Problem p{64, 64, 64, Layout::kTN, Accum::kF32};
    Batch overlapping = batched(p, 3);
    overlapping.stride_c = p.m * p.n - 1;
    refused.summary_has = {"LAUNCH_FAILED", "must each hold one matrix"};
    run_case(verifier, "overlapping batches of C are refused", p, naive_batched(overlapping),
             refused, options_for(overlapping));
    Batch broadcast = batched(p, 3);
    broadcast.stride_a = 0;
    run_case(verifier, "a broadcast A is refused", p, naive_batched(broadcast), refused,
             options_for(broadcast));
    Batch none = batched(p, 3);
    none.count = 0;
    refused.summary_has = {"LAUNCH_FAILED", "batch count must be in [1, 2^31-1], got 0"};
    run_case(verifier, "a batch count of 0 is refused", p, naive_batched(none), refused,
             options_for(none));
    run_case(verifier, "correct f32 after the batched cases", Problem{17, 33, 65, Layout::kNN},
             naive(Acc::kF32), passes());
  }

  cublasDestroy(handle);
  std::printf("%s: %d failure(s)\n", g_failures ? "FAILED" : "PASSED", g_failures);
  return g_failures ? 1 : 0;
}
