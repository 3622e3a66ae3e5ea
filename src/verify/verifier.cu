// The verifier: runs the GEMM under test on generated inputs inside poisoned guard bands and
// judges the result on the GPU (see verifier.hpp for the checks). Only scalars come back to the
// host, so verifying a 16384^3 problem costs a few GEMMs and a handful of memory passes.
//
// Tolerances (random_normal, inputs N(0,1), so |ref| ~ sqrt(K) and ||ref||_F ~ sqrt(M*N*K)):
//   fp32 accumulation: the only visible error is fp16 output rounding (rel_fro 2.1e-4 measured on
//     H100 at every K; a single element is off by at most 2^-11 relative), plus fp32 summation
//     order, ~2^-24 * sqrt(K) relative. 5e-4 sits 2.4x above the rounding floor and below fp16
//     accumulation at every K >= 256 (6.0e-4 at K = 256, 1.2e-3 at 1024, 2.4e-3 at 4096).
//   fp16 accumulation: tensor cores round the accumulator once per k16 step, so the error grows as
//     sqrt(K): a model with one round-to-nearest per 16 terms predicts 1.14e-3 * sqrt(K / 1024),
//     matching cuBLAS COMPUTE_16F (1.2e-3 at 1024, 2.4e-3 at 4096). The static tolerance is
//     2.5e-3 * sqrt(K / 1024), ~2x that, floored at 1e-3 for small K; and it is never tighter than
//     2x what cuBLAS COMPUTE_16F achieves on the same inputs (a kernel as accurate as cuBLAS must
//     pass even where cuBLAS beats the model, e.g. by splitting K).
//   Few elements make the Frobenius ratio noisy (one element's relative error is anything when
//   its reference is near zero), so the relative tolerance is widened by (1 + 3 / sqrt(M*N)) and
//   the error is divided by max(||ref||_F, 0.5 * sqrt(M*N*K)), the expected norm's lower half.
//   Max-abs: two fp16 ulps of max|ref| (four with fp16 accumulation) cover the output rounding
//   wherever it lands, plus an accumulation term independent of |ref| (so that an element whose
//   reference cancels to ~0 still gets the absolute error its partial sums carry): 2^-19 * K for
//   fp32 (> 30x the typical fp32 order difference, ~2^-24 * K) and 1e-3 * K for fp16 (> 20x the
//   fp16 model's per-element sigma, 3.75e-5 * K).
//   bf16 (fp32 accumulation only), derived the same way: the reference reads the same bf16
//   inputs, so input rounding never shows and the visible error is again C's rounding, now to 8
//   significant bits instead of 11 (a single element off by at most 2^-8 relative). Every term
//   that comes from output rounding scales by 2^(11-8) = 8: the floor becomes 8 x 2.1e-4 = 1.7e-3
//   (predicted from the fp16 measurement; the error of one rounding is the same fraction of an
//   ulp in either format) and the tolerance 8 x 5e-4 = 4e-3, the same 2.4x above it, while the
//   fp32 summation-order term stays as it is. Max-abs: two bf16 ulps of max|ref| plus the same
//   2^-19 * K. 4e-3 is below a bf16 accumulator's error (8x fp16 accumulation's: ~4.8e-3 at
//   K = 256, ~9.6e-3 at 1024) but above an fp16 accumulator's up to K ~ 12000; tensor cores have
//   no fp16 accumulation for bf16 inputs, and the precision probe catches either.
// Index and k-range bugs are caught exactly by small_integer, so these tolerances only need to
// separate fp32 from fp16 accumulation and catch gross errors.
// An epilogue (verifier.hpp) keeps these rules; its alpha scales the expected norm and the
// accumulation terms, since both grow with the product it multiplies. The bias the verifier
// writes has a spread of sqrt(K) / 4 (at least 1): one the GEMM misapplies leaves a relative
// Frobenius error near 0.25, 60x bf16's tolerance, at every K.
// Batches (Options::batch) keep these rules too: each batch is one M x N x K problem with its own
// inputs, reference, norms and tolerances (verifier.hpp).
#include "verify/verifier.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "baselines/cublas_error.hpp"
#include "core/error.hpp"
#include "verify/device_buffer.hpp"
#include "verify/verify_kernels.hpp"

namespace hgemm::verify {

const char* to_string(Disposition d) {
  switch (d) {
    case Disposition::kPassed: return "passed";
    case Disposition::kIncorrect: return "incorrect";
    case Disposition::kLaunchFailed: return "launch_failed";
  }
  return "unknown";
}

namespace {

using detail::CompareMode;
using detail::CompareStats;
using detail::FillKind;
using detail::FillSpec;
using detail::GuardStats;
using detail::NonfiniteStats;
using detail::RefSource;

constexpr double kU32 = 0x1p-24;  // fp32 unit roundoff
// The precision probe needs its small terms to move C's rounded result off 1024 in every column
// (a fifth of them are zero) and exact fp32 partial sums (K <= 2^20 keeps them below 2^16); see
// verify_kernels.hpp for both element types.
constexpr int64_t kProbeMinK = 256;
constexpr int64_t kProbeMaxK = int64_t(1) << 20;
// At least 4 KiB and one row of C on each side, in whole 256-byte units so C's base stays aligned.
constexpr int64_t kMinGuardElements = 2048;

// The spacing of `dtype` values around |x|: fp16 has 11 significant bits and normals from 2^-14
// (spacing 2^-24 below), bf16 8 bits and normals from 2^-126 (spacing 2^-133 below).
double ulp(double x, DType dtype) {
  const bool bf16 = dtype == DType::kBF16;
  const int digits = bf16 ? 8 : 11;
  const int min_exponent = bf16 ? -126 : -14;
  const double max_finite = bf16 ? 0x1.fep127 : 65504.0;
  x = std::fabs(x);
  if (!(x >= std::ldexp(1.0, min_exponent))) return std::ldexp(1.0, min_exponent - (digits - 1));
  x = std::min(x, max_finite);
  int e = 0;
  std::frexp(x, &e);  // x = f * 2^e with f in [0.5, 1)
  return std::ldexp(1.0, e - digits);
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string sci(double v) { return fmt("%.1e", v); }
std::string num(double v) { return fmt("%.6g", v); }
std::string at(int64_t row, int64_t col) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "(%lld,%lld)", static_cast<long long>(row),
                static_cast<long long>(col));
  return buf;
}

float float_from_bits(unsigned int bits) {
  float f;
  static_assert(sizeof f == sizeof bits);
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

double element_to_double(uint16_t bits, DType dtype) {
  if (dtype == DType::kBF16) return double(float_from_bits(unsigned(bits) << 16));
  return double(__half2float(__ushort_as_half(bits)));
}

// A float rounded to nearest even in `dtype`, back as a float.
float round_to(float x, DType dtype) {
  if (dtype == DType::kBF16) return __bfloat162float(__float2bfloat16_rn(x));
  return __half2float(__float2half_rn(x));
}

std::string hex16(uint16_t bits) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", unsigned(bits));
  return buf;
}

// Thrown for anything the GEMM under test did (as opposed to the verifier's own failures).
class GemmFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum CheckId : uint64_t {
  kRandomNormal = 1,
  kSmallInteger,
  kPrecisionProbe,
  kNonfinite,
  kEpilogueBias,
};

}  // namespace

struct Verifier::Impl {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  int max_blocks = 1024;
  DeviceBuffer a, b, c, ref, ref16, scratch;

  // The current check() call's problem, epilogue, batches and buffer layout.
  Problem p;
  Epilogue epi;
  int64_t batches = 1;
  // Elements between batches of A, B and C (one matrix's for a single GEMM, never used there).
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  int64_t misalign = 0;
  int64_t guard = 0;    // poisoned elements before C's (misaligned) start, and after its end
  int64_t a_total = 0;  // elements in the A, B and C buffers
  int64_t b_total = 0;
  int64_t c_total = 0;
  uint64_t shape_key = 0;

  Impl() {
    try {
      int device = 0;
      HGEMM_CUDA_CHECK(cudaGetDevice(&device));
      int sms = 0;
      HGEMM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      max_blocks = std::max(1, sms) * 8;
      // A blocking stream: a GemmFn that wrongly uses the legacy default stream is still ordered
      // with the poison fill before it and the scans after it.
      HGEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
      HGEMM_CUBLAS_CHECK(cublasCreate(&blas));
      HGEMM_CUBLAS_CHECK(cublasSetStream(blas, stream));
      HGEMM_CUBLAS_CHECK(cublasSetMathMode(
          blas,
          cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
      scratch.reserve(256);
    } catch (...) {
      release();
      throw;
    }
  }
  ~Impl() { release(); }

  void release() {
    if (blas) cublasDestroy(blas);
    if (stream) cudaStreamDestroy(stream);
    blas = nullptr;
    stream = nullptr;
  }

  // ---- buffers ----
  int64_t mn() const { return p.m * p.n; }
  uint16_t* a_at(int64_t offset, int64_t batch = 0) const {
    return a.as<uint16_t>() + offset + batch * stride_a;
  }
  uint16_t* b_at(int64_t offset, int64_t batch = 0) const {
    return b.as<uint16_t>() + offset + batch * stride_b;
  }
  int64_t c_begin() const { return guard + misalign; }
  // From C's first element to its last batch's last.
  int64_t c_span() const { return (batches - 1) * stride_c + mn(); }
  uint16_t* c_ptr(int64_t batch = 0) const {
    return c.as<uint16_t>() + c_begin() + batch * stride_c;
  }
  // The references hold the batches packed, whatever C's stride.
  float* ref_of(int64_t batch) const { return ref.as<float>() + batch * mn(); }
  uint16_t* ref16_of(int64_t batch) const { return ref16.as<uint16_t>() + batch * mn(); }

  void prepare(const Problem& problem, const Options& options) {
    p = problem;
    epi = options.epilogue;
    misalign = options.misalign_elements;
    batches = options.batch.count;
    const Batch packed = Batch::packed(p, 1);
    stride_a = batches > 1 ? options.batch.stride_a : packed.stride_a;
    stride_b = batches > 1 ? options.batch.stride_b : packed.stride_b;
    stride_c = batches > 1 ? options.batch.stride_c : packed.stride_c;
    guard = (std::max(kMinGuardElements, p.n) + 127) / 128 * 128;
    a_total = misalign + (batches - 1) * stride_a + p.m * p.k;
    b_total = misalign + (batches - 1) * stride_b + p.k * p.n;
    c_total = guard + misalign + c_span() + guard;
    a.reserve(size_t(a_total) * 2);
    b.reserve(size_t(b_total) * 2);
    c.reserve(size_t(c_total) * 2);
    if (options.random_normal || options.small_integer)
      ref.reserve(size_t(batches * mn()) * 4);
    if (p.accum == Accum::kF16 && options.random_normal) ref16.reserve(size_t(batches * mn()) * 2);
    uint64_t h = detail::mix64(options.seed);
    for (int64_t v : {p.m, p.n, p.k}) h = detail::mix64(h ^ uint64_t(v));
    shape_key = h;
  }

  // Inputs depend on the seed, the shape, the check, the tensor and the batch, not on the layout
  // or the accumulation, so NN and TN (and f32 and f16) problems of one shape see the same
  // matrices; batch 0's are those of the unbatched problem.
  uint64_t key(CheckId check, int tensor, int64_t batch = 0) const {
    const uint64_t k = detail::mix64(shape_key ^ (uint64_t(check) << 8 | uint64_t(tensor)));
    return batch == 0 ? k : detail::mix64(k ^ (uint64_t(batch) * 0x9e3779b97f4a7c15ull));
  }

  // Fills A and B of every batch at `offset`, batch i from specs(i) -> {A's spec, B's spec}.
  // Gaps between batches (strides beyond one matrix) hold the poison NaN, refilled each time so
  // that no value of an earlier fill lingers there: a GEMM that reads them computes NaN.
  template <class Specs>
  void fill(const Specs& specs, int64_t offset) {
    if (batches > 1 && stride_a > p.m * p.k)
      detail::fill_poison(a.as<uint16_t>(), p.dtype, a_total, max_blocks, stream);
    if (batches > 1 && stride_b > p.k * p.n)
      detail::fill_poison(b.as<uint16_t>(), p.dtype, b_total, max_blocks, stream);
    for (int64_t i = 0; i < batches; ++i) {
      const auto [sa, sb] = specs(i);
      detail::fill_a(a_at(offset, i), p.dtype, p.m, p.k, sa, max_blocks, stream);
      detail::fill_b(b_at(offset, i), p.dtype, p.layout, p.k, p.n, sb, max_blocks, stream);
    }
  }

  // Row-major C = A*B is the column-major N x M product C' = B' * A'. NN: B (K x N row-major) is
  // N x K column-major with ld N, op N. TN: B (N x K row-major) is K x N column-major with ld K,
  // op T. A (M x K row-major) is K x M column-major with ld K, op N. C: ld N. A and B are read as
  // the problem's element type, so the reference multiplies exactly the values the GEMM sees.
  void cublas_gemm(const void* a_ptr, const void* b_ptr, void* c_ptr, cudaDataType c_type,
                   cublasComputeType_t compute, const void* alpha, const void* beta) {
    const bool tn = p.layout == Layout::kTN;
    const cudaDataType in_type = p.dtype == DType::kBF16 ? CUDA_R_16BF : CUDA_R_16F;
    HGEMM_CUBLAS_CHECK(cublasGemmEx(blas, tn ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, int(p.n),
                                    int(p.m), int(p.k), alpha, b_ptr, in_type,
                                    tn ? int(p.k) : int(p.n), a_ptr, in_type, int(p.k), beta,
                                    c_ptr, c_type, int(p.n), compute, CUBLAS_GEMM_DEFAULT));
  }

  // fp32-accumulated, fp32-output reference of one batch from the inputs at offset 0 (always
  // 256-byte aligned, so cuBLAS never sees the misalignment meant for the GEMM under test). One
  // plain call per batch: the reference shares no batching code with what it judges.
  void reference_f32(int64_t batch) {
    const float one = 1.0f, zero = 0.0f;
    cublas_gemm(a_at(0, batch), b_at(0, batch), ref_of(batch), CUDA_R_32F, CUBLAS_COMPUTE_32F,
                &one, &zero);
  }
  void reference_f16(int64_t batch) {
    const __half one = __float2half(1.0f), zero = __float2half(0.0f);
    cublas_gemm(a_at(0, batch), b_at(0, batch), ref16_of(batch), CUDA_R_16F, CUBLAS_COMPUTE_16F,
                &one, &zero);
  }

  // The epilogue's bias, the same for every check and batch of one call (see verifier.hpp for
  // its scale), as hgemm.h's general call shares one bias among its batches.
  void fill_bias() {
    if (!epi.bias) return;
    const float scale = float(std::max(1.0, std::sqrt(double(p.k)) / 4.0));
    detail::fill_bias(static_cast<uint16_t*>(epi.bias), p.dtype, p.n, key(kEpilogueBias, 0), scale,
                      max_blocks, stream);
  }

  // The epilogue applied to what reference_f32 (and reference_f16) left for one batch.
  void reference_epilogue(bool f16, int64_t batch) {
    if (epi.empty()) return;
    const auto* bias = static_cast<const uint16_t*>(epi.bias);
    detail::apply_epilogue(ref_of(batch), p.m, p.n, epi.alpha, bias, p.dtype, epi.activation,
                           max_blocks, stream);
    if (f16)
      detail::apply_epilogue(ref16_of(batch), p.m, p.n, epi.alpha, bias, p.dtype, epi.activation,
                             max_blocks, stream);
  }

  // Fills at offset 0, computes what `reference` computes there, then refills at the
  // misalignment (same values: the generator depends on the logical index only).
  template <class Specs, class Reference>
  void fill_with_reference(const Specs& specs, Reference reference) {
    fill(specs, 0);
    reference();
    if (misalign != 0) fill(specs, misalign);
  }

  template <class T>
  T read_back(const void* device_ptr) {
    T host{};
    HGEMM_CUDA_CHECK(cudaMemcpyAsync(&host, device_ptr, sizeof(T), cudaMemcpyDeviceToHost, stream));
    HGEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
  }

  // ---- the GEMM under test, inside the guard bands ----
  void run_under_test(const GemmFn& gemm, const char* during, CheckResult& guard_result) {
    detail::fill_poison(c.as<uint16_t>(), p.dtype, c_total, max_blocks, stream);
    try {
      gemm(p, a_at(misalign), b_at(misalign), c_ptr(), stream);
    } catch (const std::exception& e) {
      throw GemmFailure(std::string("the GEMM threw: ") + e.what());
    } catch (...) {
      throw GemmFailure("the GEMM threw a non-standard exception");
    }
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
      throw GemmFailure(std::string("CUDA error at the GEMM's launch: ") + cudaGetErrorName(e) +
                        ": " + cudaGetErrorString(e));
    if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess)
      throw GemmFailure(std::string("CUDA error while the GEMM ran: ") + cudaGetErrorName(e) +
                        ": " + cudaGetErrorString(e));
    check_guard(during, guard_result);
  }

  // "(r,c)", or "batch b (r,c)" for a batched problem.
  std::string where(int64_t batch, int64_t row, int64_t col) const {
    return (batches > 1 ? "batch " + std::to_string(batch) + " " : std::string()) + at(row, col);
  }

  // What a check that failed in `failing` batches says first, naming the batch it reports; empty
  // for an unbatched problem, whose reasons read as they always have.
  std::string batch_prefix(int64_t batch, int64_t failing) const {
    if (batches == 1) return "";
    return "batch " + std::to_string(batch) + " (" + std::to_string(failing) + " of " +
           std::to_string(batches) + " batches wrong): ";
  }

  void check_guard(const char* during, CheckResult& r) {
    auto* stats = scratch.as<GuardStats>();
    detail::scan_guard(c.as<uint16_t>(), p.dtype, c_total, c_begin(), mn(), batches, stride_c,
                       stats, max_blocks, stream);
    const GuardStats s = read_back<GuardStats>(stats);
    if (r.disposition != Disposition::kPassed || (s.guard_changed == 0 && s.c_unwritten == 0))
      return;
    r.disposition = Disposition::kIncorrect;
    r.reason = std::string("during ") + during + ":";
    if (s.c_unwritten) {
      const int64_t first = int64_t(s.first_c_unwritten);
      const int64_t batch = first / stride_c, within = first % stride_c;
      r.worst_row = within / p.n;
      r.worst_col = within % p.n;
      r.worst_got = std::nan("");
      if (batches > 1) r.batch = batch;
      r.reason += " " + std::to_string(s.c_unwritten) + " of " + std::to_string(batches * mn()) +
                  " elements of C unwritten (still the poison pattern " +
                  hex16(detail::poison_bits(p.dtype)) + "), first at " +
                  where(batch, r.worst_row, r.worst_col);
    }
    if (s.guard_changed) {
      const int64_t offset = int64_t(s.first_guard_changed) - c_begin();
      r.reason += std::string(s.c_unwritten ? ";" : "") +
                  " wrote outside C: " + std::to_string(s.guard_changed) +
                  " guard elements changed, the first at element offset " +
                  std::to_string(offset) + " from C's start (C spans [0, " +
                  std::to_string(c_span()) + ")";
      if (batches > 1) {
        r.reason += " in " + std::to_string(batches) + " batches of " + std::to_string(mn()) +
                    " elements every " + std::to_string(stride_c);
        if (offset >= 0 && offset < c_span())
          r.reason += "; the offset is in the gap after batch " + std::to_string(offset / stride_c);
      }
      r.reason += ")";
    }
  }

  // Pass 1 and, when there is an error, pass 2 (the first element with the largest error).
  CompareStats compare(const uint16_t* got, const RefSource& source, CompareMode mode) {
    auto* stats = scratch.as<CompareStats>();
    detail::compare(got, p.dtype, p.m, p.n, source, mode, stats, max_blocks, stream);
    CompareStats s = read_back<CompareStats>(stats);
    if (s.max_err_bits != 0) {
      detail::locate_worst(got, p.dtype, p.m, p.n, source, mode, s.max_err_bits, stats, max_blocks,
                           stream);
      s.worst_index = read_back<CompareStats>(stats).worst_index;
    }
    return s;
  }

  // Fills r's worst element (of `batch`) from a located index.
  void set_worst(CheckResult& r, const CompareStats& s, const uint16_t* got, const RefSource& src,
                 int64_t batch) {
    if (batches > 1) r.batch = batch;
    if (s.worst_index == ~0ull) return;
    const int64_t index = int64_t(s.worst_index);
    r.worst_row = index / p.n;
    r.worst_col = index % p.n;
    r.worst_got = element_to_double(read_back<uint16_t>(got + index), p.dtype);
    r.worst_want = src.dense ? double(read_back<float>(src.dense + index))
                             : double(src.by_col_mod5[r.worst_col % detail::kProbePeriod]);
  }

  // Every batch's C against its own reference (`source_of(batch)`), the worst batch (the largest
  // error, the first of equals) into r; r.max_abs_error is the largest error while none fails.
  struct BatchTally {
    unsigned long long mismatches = 0, compared = 0;
    int64_t failing = 0;  // batches with a mismatch
  };
  template <class SourceOf>
  BatchTally compare_batches(SourceOf const& source_of, CompareMode mode, CheckResult& r) {
    BatchTally t;
    for (int64_t i = 0; i < batches; ++i) {
      const RefSource src = source_of(i);
      const CompareStats s = compare(c_ptr(i), src, mode);
      const double err = double(float_from_bits(s.max_err_bits));
      t.mismatches += s.mismatches;
      t.compared += s.compared;
      t.failing += s.mismatches != 0;
      if (s.mismatches != 0 && (t.failing == 1 || err > r.max_abs_error)) {
        r.max_abs_error = err;
        set_worst(r, s, c_ptr(i), src, i);
      } else if (t.failing == 0) {
        r.max_abs_error = std::max(r.max_abs_error, err);
      }
    }
    return t;
  }

  std::string worst_text(const CheckResult& r) const {
    if (r.worst_row < 0) return "";
    return " at " + at(r.worst_row, r.worst_col) + ": got " + num(r.worst_got) + " want " +
           num(r.worst_want);
  }

  // ---- the checks ----
  void random_normal(const GemmFn& gemm, CheckResult& r, CheckResult& guard_result) {
    const bool f16 = p.accum == Accum::kF16;
    auto specs = [this](int64_t batch) {
      return std::pair{FillSpec{FillKind::kNormal, key(kRandomNormal, 0, batch)},
                       FillSpec{FillKind::kNormal, key(kRandomNormal, 1, batch)}};
    };
    fill_with_reference(specs, [&] {
      for (int64_t i = 0; i < batches; ++i) {
        reference_f32(i);
        if (f16) reference_f16(i);
        reference_epilogue(f16, i);
      }
    });
    const double alpha = std::fabs(double(epi.alpha));
    const double expected_norm = alpha * std::sqrt(double(mn()) * double(p.k));
    auto rel_of = [&](const CompareStats& s) {
      return std::sqrt(s.err_sq) / std::max(std::sqrt(s.ref_sq), 0.5 * expected_norm);
    };
    std::vector<double> cublas_rel(size_t(batches), NAN), cublas_abs(size_t(batches), NAN);
    if (f16) {
      for (int64_t i = 0; i < batches; ++i) {
        const CompareStats s =
            compare(ref16_of(i), RefSource{ref_of(i)}, CompareMode::kNorm);
        cublas_rel[size_t(i)] = rel_of(s);
        cublas_abs[size_t(i)] = double(float_from_bits(s.max_err_bits));
      }
    }

    run_under_test(gemm, "random_normal", guard_result);
    // Each batch is judged alone, by its own norms and tolerances; the report carries the batch
    // furthest beyond (or closest to) its tolerances.
    int64_t failing = 0, worst_batch = 0;
    double worst_score = -1;
    unsigned long long worst_mismatches = 0;
    for (int64_t i = 0; i < batches; ++i) {
      const RefSource src{ref_of(i)};
      const CompareStats s = compare(c_ptr(i), src, CompareMode::kNorm);
      CheckResult b;
      const double max_ref = double(float_from_bits(s.max_ref_bits));
      b.rel_fro_error = rel_of(s);
      b.max_abs_error = double(float_from_bits(s.max_err_bits));
      b.tol_rel_fro = tol_rel_fro(p);
      b.tol_max_abs = tol_max_abs(p, max_ref, alpha);
      const double c_rel = cublas_rel[size_t(i)], c_abs = cublas_abs[size_t(i)];
      if (std::isfinite(c_rel) && std::isfinite(c_abs)) {
        b.tol_rel_fro = std::max(b.tol_rel_fro, 2.0 * c_rel);
        b.tol_max_abs = std::max(b.tol_max_abs, 2.0 * c_abs);
      }
      const bool ok = s.mismatches == 0 && b.rel_fro_error <= b.tol_rel_fro &&
                      b.max_abs_error <= b.tol_max_abs;
      failing += !ok;
      // NaN errors (from a NaN output) compare false everywhere: they count as the worst.
      double score = std::max(b.rel_fro_error / b.tol_rel_fro, b.max_abs_error / b.tol_max_abs);
      if (s.mismatches != 0 || std::isnan(score)) score = INFINITY;
      if (score > worst_score) {
        worst_score = score;
        worst_batch = i;
        worst_mismatches = s.mismatches;
        const std::string check = r.check;
        r = b;
        r.check = check;
        set_worst(r, s, c_ptr(i), src, i);
      }
    }
    if (failing == 0) return;
    const bool rel_ok = r.rel_fro_error <= r.tol_rel_fro;
    const bool abs_ok = r.max_abs_error <= r.tol_max_abs;
    r.disposition = Disposition::kIncorrect;
    std::string reason = batch_prefix(worst_batch, failing);
    if (worst_mismatches) reason += std::to_string(worst_mismatches) + " non-finite outputs; ";
    reason += "rel_fro " + sci(r.rel_fro_error) + (rel_ok ? " <= " : " > ") + "tol " +
              sci(r.tol_rel_fro) + ", max_abs " + sci(r.max_abs_error) + (abs_ok ? " <= " : " > ") +
              "tol " + sci(r.tol_max_abs) + worst_text(r);
    if (f16)
      reason += " (cuBLAS COMPUTE_16F: rel_fro " + sci(cublas_rel[size_t(worst_batch)]) +
                ", max_abs " + sci(cublas_abs[size_t(worst_batch)]) + ")";
    r.reason = reason;
  }

  void small_integer(const GemmFn& gemm, CheckResult& r, CheckResult& guard_result) {
    // fp16 accumulation is exact only while every partial sum stays within 2048 in magnitude, in
    // whatever order the kernel adds: A row i is nonzero only where k % s == i % s, so at most
    // ceil(K / s) <= 2048 products are nonzero per element (every k still meets a row if M >= s).
    // fp32 accumulation adds these integers exactly (far below 2^24), so C holds the exact sum
    // wherever C's type represents it: kExactRepresentable compares only |ref| <= 2048 for fp16
    // and |ref| <= 256 for bf16 (8 significant bits). With dense {-1,0,1} inputs |ref| has a
    // standard deviation of sqrt(2K/3), so bf16 still compares all but ~1e-6 of the elements up
    // to K = 4096, 98.6% at 16384 and 78% at 65536; the inputs stay dense so that every k of every
    // row is exercised, and are the same matrices as the fp16 problem's.
    // An exact epilogue (ReLU at most) keeps the exact integers exact.
    if (!epi.exact()) {
      r.reason = "not applicable: the epilogue (a bias, GELU or alpha) is not exact";
      return;
    }
    const int64_t sparsity = p.accum == Accum::kF16 ? std::max<int64_t>(1, (p.k + 2047) / 2048) : 1;
    auto specs = [this, sparsity](int64_t batch) {
      FillSpec sa{FillKind::kSmallInt, key(kSmallInteger, 0, batch)};
      sa.sparsity = sparsity;
      return std::pair{sa, FillSpec{FillKind::kSmallInt, key(kSmallInteger, 1, batch)}};
    };
    fill_with_reference(specs, [&] {
      for (int64_t i = 0; i < batches; ++i) {
        reference_f32(i);
        reference_epilogue(false, i);
      }
    });
    run_under_test(gemm, "small_integer", guard_result);
    const auto [mismatches, compared, failing] = compare_batches(
        [&](int64_t i) { return RefSource{ref_of(i)}; }, CompareMode::kExactRepresentable, r);
    if (mismatches == 0) return;
    r.disposition = Disposition::kIncorrect;
    r.reason = batch_prefix(r.batch, failing) + std::to_string(mismatches) + " of " +
               std::to_string(compared) +
               " exactly representable elements differ from the exact result; the worst" +
               worst_text(r);
  }

  void precision_probe(const GemmFn& gemm, CheckResult& r, CheckResult& guard_result) {
    if (p.accum == Accum::kF16) {
      r.reason = "not applicable: fp16 accumulation is allowed to drop the small terms";
      return;
    }
    if (!epi.exact()) {
      r.reason = "not applicable: the epilogue (a bias, GELU or alpha) is not exact";
      return;
    }
    if (p.k < kProbeMinK || p.k > kProbeMaxK) {
      r.reason = "not applicable: K=" + std::to_string(p.k) + " outside [" +
                 std::to_string(kProbeMinK) + ", " + std::to_string(kProbeMaxK) +
                 "] (the small terms would not move C's rounded result, or fp32 sums would round)";
      return;
    }
    // Every batch gets the same probe (verifier.hpp says why).
    fill([&](int64_t) {
      FillSpec sb{FillKind::kProbe};
      sb.k = p.k;
      return std::pair{FillSpec{FillKind::kProbe}, sb};
    }, misalign);
    // The exact column sum depends on the column only through j % 5.
    const float small = detail::probe_small(p.dtype);
    RefSource src;
    for (int j = 0; j < detail::kProbePeriod; ++j) {
      const float exact = detail::kProbeBig + small * float(detail::probe_small_count(j, p.k));
      src.by_col_mod5[j] =
          round_to(float(detail::reference_activation(exact, epi.activation)), p.dtype);
    }
    run_under_test(gemm, "precision_probe", guard_result);
    const auto [mismatches, compared, failing] =
        compare_batches([&](int64_t) { return src; }, CompareMode::kExact, r);
    if (mismatches == 0) return;
    r.disposition = Disposition::kIncorrect;
    const bool bf16 = p.dtype == DType::kBF16;
    r.reason = batch_prefix(r.batch, failing) + "got " + num(r.worst_got) + " want " +
               num(r.worst_want) + " at " + at(r.worst_row, r.worst_col) + " (" +
               std::to_string(mismatches) + " of " + std::to_string(compared) +
               " elements differ: 1024 + many " + (bf16 ? "1/32" : "1/128") +
               " terms - 1024 is exact with fp32 accumulation, " +
               (bf16 ? "a bf16 or fp16 accumulator" : "an fp16 accumulator") +
               " drops the small terms)";
  }

  void nonfinite(const GemmFn& gemm, CheckResult& r, CheckResult& guard_result) {
    if (!epi.keeps_nonfinite()) {
      r.reason = "not applicable: the activation's value at NaN and +Inf is not specified "
                 "(or alpha <= 0 turns +Inf into -Inf)";
      return;
    }
    // Positions away from tile corners; all collapse to valid indices for tiny shapes. The NaN's
    // row and the Inf's column move with the batch, so each batch's pattern is its own.
    const int64_t k0 = p.k / 3, k1 = 2 * p.k / 3;
    auto nan_row = [&](int64_t batch) { return (5 * p.m / 7 + batch) % p.m; };
    auto inf_col = [&](int64_t batch) { return (3 * p.n / 7 + batch) % p.n; };
    fill([&](int64_t batch) {
      FillSpec sa{FillKind::kNonfinite, key(kNonfinite, 0, batch)};
      sa.special_row = nan_row(batch);
      sa.special_col = k0;
      FillSpec sb{FillKind::kNonfinite, key(kNonfinite, 1, batch)};
      sb.special_row = k1;
      sb.special_col = inf_col(batch);
      return std::pair{sa, sb};
    }, misalign);
    run_under_test(gemm, "nonfinite", guard_result);
    auto* stats = scratch.as<NonfiniteStats>();
    unsigned long long mismatches = 0;
    int64_t failing = 0, first_batch = -1;
    NonfiniteStats first{};
    for (int64_t i = 0; i < batches; ++i) {
      detail::scan_nonfinite(c_ptr(i), p.dtype, p.m, p.n, nan_row(i), inf_col(i), stats,
                             max_blocks, stream);
      const NonfiniteStats s = read_back<NonfiniteStats>(stats);
      if (s.mismatches == 0) continue;
      mismatches += s.mismatches;
      ++failing;
      if (first_batch < 0) {
        first_batch = i;
        first = s;
      }
    }
    if (mismatches == 0) return;
    const int64_t i0 = nan_row(first_batch), j1 = inf_col(first_batch);
    const int64_t index = int64_t(first.first_index);
    if (batches > 1) r.batch = first_batch;
    r.worst_row = index / p.n;
    r.worst_col = index % p.n;
    r.worst_got = element_to_double(read_back<uint16_t>(c_ptr(first_batch) + index), p.dtype);
    const char* want = r.worst_row == i0 ? "NaN" : r.worst_col == j1 ? "+Inf" : "finite";
    r.worst_want = r.worst_row == i0 ? NAN : r.worst_col == j1 ? INFINITY : 0.0;
    r.disposition = Disposition::kIncorrect;
    r.reason = batch_prefix(first_batch, failing) + "NaN at A" + at(i0, k0) + " and +Inf at B" +
               at(k1, j1) + " must give a NaN row " + std::to_string(i0) + " and a +Inf column " +
               std::to_string(j1) + ": " + std::to_string(mismatches) +
               " elements wrong, the first at " + at(r.worst_row, r.worst_col) + ": got " +
               num(r.worst_got) + " want " + want;
  }

  // The guard bands still need one run when every other check is switched off.
  void guard_only(const GemmFn& gemm, CheckResult& guard_result) {
    fill([this](int64_t batch) {
      return std::pair{FillSpec{FillKind::kNormal, key(kRandomNormal, 0, batch)},
                       FillSpec{FillKind::kNormal, key(kRandomNormal, 1, batch)}};
    }, misalign);
    run_under_test(gemm, "the guard-band run", guard_result);
  }
};

Batch Batch::packed(const Problem& problem, int64_t count) {
  return {count, problem.m * problem.k, problem.k * problem.n, problem.m * problem.n};
}

Verifier::Verifier() : impl_(new Impl) {}

Verifier::~Verifier() { delete impl_; }

namespace {

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

// Adds a launch failure's note about the context: after a sticky error (an illegal address, a
// trap) every later CUDA call in this process fails.
std::string with_context_state(std::string reason) {
  cudaGetLastError();
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    reason += std::string(" [CUDA context unusable: ") + cudaGetErrorName(e) +
              "; restart the process before further GPU work]";
  return reason;
}

}  // namespace

Report Verifier::check(const Problem& problem, const GemmFn& gemm, const Options& options) {
  Report report;
  auto finish = [&report] {
    for (const CheckResult& r : report.checks)
      report.disposition = std::max(report.disposition, r.disposition);
    return report;
  };
  auto refuse = [&](const std::string& why) {
    CheckResult r;
    r.check = "setup";
    r.disposition = Disposition::kLaunchFailed;
    r.reason = one_line(why);
    report.checks.push_back(r);
    return finish();
  };
  if (Status s = problem.validate(); !s.ok()) return refuse("invalid problem: " + s.message);
  if (options.misalign_elements < 0 || options.misalign_elements > 4096)
    return refuse("misalign_elements must be in [0, 4096], got " +
                  std::to_string(options.misalign_elements));
  if (!gemm) return refuse("no GEMM to verify (empty GemmFn)");
  const Batch& batch = options.batch;
  if (batch.count < 1 || batch.count > INT32_MAX)
    return refuse("the batch count must be in [1, 2^31-1], got " + std::to_string(batch.count));
  if (batch.batched()) {
    const Batch packed = Batch::packed(problem, batch.count);
    if (batch.stride_a < packed.stride_a || batch.stride_b < packed.stride_b ||
        batch.stride_c < packed.stride_c)
      return refuse("batch strides " + std::to_string(batch.stride_a) + ", " +
                    std::to_string(batch.stride_b) + ", " + std::to_string(batch.stride_c) +
                    " (A, B, C) must each hold one matrix, at least " +
                    std::to_string(packed.stride_a) + ", " + std::to_string(packed.stride_b) +
                    ", " + std::to_string(packed.stride_c) +
                    ": the verifier gives every batch its own inputs and output");
    // The buffers' sizes in elements, computed where they cannot overflow.
    const double widest = double(batch.count - 1) *
                              double(std::max({batch.stride_a, batch.stride_b, batch.stride_c})) +
                          double(std::max({packed.stride_a, packed.stride_b, packed.stride_c}));
    if (widest > 0x1p50)
      return refuse("the batches span " + num(widest) + " elements, beyond what the verifier can "
                    "allocate");
  }
  const Epilogue& epilogue = options.epilogue;
  if (!std::isfinite(epilogue.alpha) || epilogue.alpha == 0.0f)
    return refuse("the epilogue's alpha must be finite and nonzero (the tolerances scale with "
                  "it), got " + num(epilogue.alpha));
  if (reinterpret_cast<uintptr_t>(epilogue.bias) % 2 != 0)
    return refuse("the epilogue's bias is not 2-byte aligned");
  const Activation act = epilogue.activation;
  if (act != Activation::kNone && act != Activation::kRelu && act != Activation::kGelu &&
      act != Activation::kGeluTanh)
    return refuse("unknown activation " + std::to_string(int(act)));
  try {
    // Clears a stale non-sticky error so it is not blamed on the GEMM.
    cudaGetLastError();
    impl_->prepare(problem, options);
    impl_->fill_bias();
  } catch (const std::exception& e) {
    return refuse(with_context_state(std::string("verifier setup failed: ") + e.what()));
  }

  using Step = void (Impl::*)(const GemmFn&, CheckResult&, CheckResult&);
  const struct {
    const char* name;
    bool enabled;
    Step step;
  } steps[] = {
      {"random_normal", options.random_normal, &Impl::random_normal},
      {"small_integer", options.small_integer, &Impl::small_integer},
      {"precision_probe", options.precision_probe, &Impl::precision_probe},
      {"nonfinite", options.nonfinite, &Impl::nonfinite},
  };
  CheckResult guard;
  guard.check = "guard_bands";
  bool any = false;
  for (const auto& step : steps) {
    if (!step.enabled) continue;
    any = true;
    CheckResult r;
    r.check = step.name;
    try {
      (impl_->*step.step)(gemm, r, guard);
    } catch (const GemmFailure& e) {
      r.disposition = Disposition::kLaunchFailed;
      r.reason = one_line(with_context_state(e.what()));
    } catch (const std::exception& e) {
      r.disposition = Disposition::kLaunchFailed;
      r.reason = one_line(with_context_state(std::string("verifier failed: ") + e.what()));
    }
    report.checks.push_back(r);
    // The rest would fail the same way, or cannot run on a broken context.
    if (r.disposition == Disposition::kLaunchFailed) return finish();
  }
  if (!any) {
    try {
      impl_->guard_only(gemm, guard);
    } catch (const GemmFailure& e) {
      guard.disposition = Disposition::kLaunchFailed;
      guard.reason = one_line(with_context_state(e.what()));
    } catch (const std::exception& e) {
      guard.disposition = Disposition::kLaunchFailed;
      guard.reason = one_line(with_context_state(std::string("verifier failed: ") + e.what()));
    }
  }
  report.checks.push_back(guard);
  return finish();
}

double Verifier::tol_rel_fro(const Problem& problem) {
  const double k = double(std::max<int64_t>(problem.k, 1));
  const double mn = std::max(1.0, double(problem.m) * double(problem.n));
  // C's rounding error relative to fp16's: 2^(11 - 8) for bf16 (see the top of this file).
  const double rounding = problem.dtype == DType::kBF16 ? 8.0 : 1.0;
  const double base = problem.accum == Accum::kF16 ? std::max(1e-3, 2.5e-3 * std::sqrt(k / 1024.0))
                                                   : 5e-4 * rounding + 4.0 * kU32 * std::sqrt(k);
  return base * (1.0 + 3.0 / std::sqrt(mn));
}

double Verifier::tol_max_abs(const Problem& problem, double max_abs_ref, double alpha) {
  const double k = double(std::max<int64_t>(problem.k, 1));
  const double out_ulp = ulp(max_abs_ref, problem.dtype);
  const double scale = std::fabs(alpha);
  return problem.accum == Accum::kF16 ? 4.0 * out_ulp + 1e-3 * k * scale
                                      : 2.0 * out_ulp + 32.0 * kU32 * k * scale;
}

std::string Report::summary() const {
  std::string out;
  if (disposition == Disposition::kPassed) {
    out = "PASSED (";
    for (size_t i = 0; i < checks.size(); ++i) {
      const CheckResult& r = checks[i];
      if (i) out += ", ";
      if (r.check == "random_normal")
        out += "random_normal rel " + sci(r.rel_fro_error) + "/" + sci(r.tol_rel_fro) + " max " +
               sci(r.max_abs_error) + "/" + sci(r.tol_max_abs) +
               (r.batch >= 0 ? " (worst batch " + std::to_string(r.batch) + ")" : "");
      else
        out += r.check + (r.reason.rfind("not applicable", 0) == 0 ? " n/a" : " ok");
    }
    return out + ")";
  }
  out = disposition == Disposition::kIncorrect ? "INCORRECT " : "LAUNCH_FAILED ";
  bool first = true;
  for (const CheckResult& r : checks) {
    if (r.disposition == Disposition::kPassed) continue;
    out += (first ? "" : "; ") + r.check + ": " + r.reason;
    first = false;
  }
  return one_line(out);
}

}  // namespace hgemm::verify
