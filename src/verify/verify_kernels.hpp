// Device-side pieces of the verifier: deterministic input generators, the poison fill, and the
// reductions that compare C without copying it to the host (only scalars come back). Every
// launcher is asynchronous on the given stream and checks its launch.
//
// Index convention: matrices are addressed by their logical (row, col); the generators map the
// logical element to its storage, so NN and TN problems of one shape get the same logical B.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>

#include "hgemm/hgemm.hpp"

#if defined(__CUDACC__)
#define HGEMM_VERIFY_HD __host__ __device__
#else
#define HGEMM_VERIFY_HD
#endif

namespace hgemm::verify::detail {

// Element bit patterns. The poison is a signaling NaN with an odd payload in either type:
// arithmetic and float->half / float->bf16 conversion only ever produce the canonical quiet NaN
// (or quiet an input NaN, which sets the top mantissa bit), and the NaN this verifier plants in A
// is the type's quiet NaN, so no real result equals the poison.
inline constexpr uint16_t kPoisonBits = 0x7D5A;  // fp16
inline constexpr uint16_t kPlantedNanBits = 0x7E00;
inline constexpr uint16_t kPosInfBits = 0x7C00;
inline constexpr uint16_t kBf16PoisonBits = 0x7F9A;
inline constexpr uint16_t kBf16PlantedNanBits = 0x7FC0;
inline constexpr uint16_t kBf16PosInfBits = 0x7F80;

HGEMM_VERIFY_HD inline uint16_t poison_bits(DType dtype) {
  return dtype == DType::kBF16 ? kBf16PoisonBits : kPoisonBits;
}
HGEMM_VERIFY_HD inline uint16_t planted_nan_bits(DType dtype) {
  return dtype == DType::kBF16 ? kBf16PlantedNanBits : kPlantedNanBits;
}
HGEMM_VERIFY_HD inline uint16_t pos_inf_bits(DType dtype) {
  return dtype == DType::kBF16 ? kBf16PosInfBits : kPosInfBits;
}

// Every integer up to this magnitude is representable: 2^11 in fp16 (11 significant bits), 2^8
// in bf16 (8). An exact integer sum within it survives the one rounding to C's type unchanged.
HGEMM_VERIFY_HD inline float exact_integer_limit(DType dtype) {
  return dtype == DType::kBF16 ? 256.0f : 2048.0f;
}

enum class FillKind : uint8_t {
  kNormal,     // N(0,1): counter hash + Box-Muller
  kSmallInt,   // uniform in {-1, 0, 1}
  kProbe,      // precision probe: A = 1, B = probe_b()
  kNonfinite,  // A in [0.5, 1] with one NaN; B in [-1, 1], one column in [0.5, 1] with one +Inf
};

struct FillSpec {
  FillKind kind = FillKind::kNormal;
  uint64_t key = 0;      // stream key of this tensor (seed, shape and tensor mixed)
  int64_t k = 0;         // the problem's K (probe values depend on it)
  int64_t sparsity = 1;  // kSmallInt, A only: A(i,k) != 0 only where k % sparsity == i % sparsity
  int64_t special_row = -1;  // kNonfinite: logical position of A's NaN (i0, k0) or B's Inf (k1, j1)
  int64_t special_col = -1;
};

// Every launcher below takes the element type of the 2-byte buffers it reads or writes: values
// are generated and compared as `dtype`, and the poison and the planted NaN and Inf are its bit
// patterns.

// Fills A (M x K row-major) at `a`.
void fill_a(uint16_t* a, DType dtype, int64_t m, int64_t k, const FillSpec& spec, int max_blocks,
            cudaStream_t stream);
// Fills B (K x N logical) at `b`, stored K x N row-major for NN and N x K row-major for TN.
void fill_b(uint16_t* b, DType dtype, Layout layout, int64_t k, int64_t n, const FillSpec& spec,
            int max_blocks, cudaStream_t stream);

void fill_poison(uint16_t* p, DType dtype, int64_t count, int max_blocks, cudaStream_t stream);

// splitmix64's finalizer: the counter-based generator behind every fill, and the key mixer.
HGEMM_VERIFY_HD inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// ---- precision probe --------------------------------------------------------------------------
// Column j of B holds +V at k = 0 and k = K/2, -V at k = K-1, and s elsewhere except where
// (k + j) % 5 == 0 (zero there, so the expected value varies with the column). With A = 1 every
// partial sum is a multiple of s below 2^16 for K <= 2^20, hence exact in fp32 in any order,
// while a 16-bit accumulator drops the small terms:
//   fp16, s = 1/128: an fp16 accumulator (ulp 1 at 1024) drops every chunk of up to 64 small terms
//     (0.5, a tie that rounds to the even 1024), while from K = 256 on, with at least 202 small
//     terms in every column, the exact sum lies more than one fp16 ulp above 1024.
//   bf16, s = 1/32: C's ulp at 1024 is 8, so the small terms must add up to more than 4 for the
//     exact sum to round away from 1024; K >= 256 gives at least 202 of them (> 6). A bf16
//     accumulator (ulp 8) drops every chunk of up to 64 small terms (2 < 4), an fp16 one every
//     chunk of up to 16 (0.5, the k-depth of one 16-bit MMA), so either ends at exactly 1024.
// (The same s cannot serve both: 1/128 would need K >= 650 to move a bf16 result, and 1/32 is
// kept by an fp16 accumulator in chunks of 64.)
inline constexpr float kProbeBig = 1024.0f;
inline constexpr int kProbePeriod = 5;

HGEMM_VERIFY_HD inline float probe_small(DType dtype) {
  return dtype == DType::kBF16 ? 1.0f / 32.0f : 1.0f / 128.0f;
}

HGEMM_VERIFY_HD inline float probe_b(int64_t k, int64_t j, int64_t kk, float small) {
  if (k == 0 || k == kk / 2) return kProbeBig;
  if (k == kk - 1) return -kProbeBig;
  return (k + j) % kProbePeriod == 0 ? 0.0f : small;
}

// How many small entries column j holds, for K >= 3 (so that 0, K/2 and K-1 are distinct).
HGEMM_VERIFY_HD inline int64_t probe_small_count(int64_t j, int64_t kk) {
  const int64_t r =
      (kProbePeriod - j % kProbePeriod) % kProbePeriod;  // (k + j) % 5 == 0 <=> k % 5 == r
  const int64_t zeros = r < kk ? (kk - 1 - r) / kProbePeriod + 1 : 0;
  int64_t count = kk - zeros;
  const int64_t big[3] = {0, kk / 2, kk - 1};
  for (int64_t p : big)
    if ((p + j) % kProbePeriod != 0) --count;
  return count;
}

// ---- epilogue ----------------------------------------------------------------------------------
// The activations of hgemm.h's general call, in fp64 for the reference: ReLU max(x, 0), GELU
// x/2 (1 + erf(x / sqrt 2)), GELU_TANH x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). Written
// out here rather than shared with any implementation under test, so that a wrong constant
// there cannot hide by being wrong here too.
HGEMM_VERIFY_HD inline double reference_activation(double x, Activation activation) {
  switch (activation) {
    case Activation::kNone: return x;
    case Activation::kRelu: return x > 0.0 ? x : 0.0;
    case Activation::kGelu: return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
    case Activation::kGeluTanh:
      return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
  }
  return x;
}

// The epilogue's bias, N elements of `dtype`: N(0,1) x scale from the counter-based generator.
void fill_bias(uint16_t* bias, DType dtype, int64_t n, uint64_t key, float scale, int max_blocks,
               cudaStream_t stream);

// ref (M x N row-major fp32) = act(alpha * ref + bias[col]) in place, in fp64, kept in fp32.
// `bias`: N elements of `dtype`, or nullptr.
void apply_epilogue(float* ref, int64_t m, int64_t n, double alpha, const uint16_t* bias,
                    DType dtype, Activation activation, int max_blocks, cudaStream_t stream);
// The same over M x N elements of `dtype` (cuBLAS COMPUTE_16F's output), rounded once to it.
void apply_epilogue(uint16_t* c, int64_t m, int64_t n, double alpha, const uint16_t* bias,
                    DType dtype, Activation activation, int max_blocks, cudaStream_t stream);

// ---- comparisons ------------------------------------------------------------------------------
enum class CompareMode : uint8_t {
  kNorm,                // Frobenius sums and max-abs; non-finite outputs count as mismatches
  kExactRepresentable,  // exact, only where |ref| <= exact_integer_limit(dtype)
  kExact,               // exact everywhere
};

struct CompareStats {
  double err_sq = 0;              // sum of (got - ref)^2 (kNorm)
  double ref_sq = 0;              // sum of ref^2 (kNorm)
  unsigned int max_err_bits = 0;  // float bits of max |got - ref| (+inf for non-finite got)
  unsigned int max_ref_bits = 0;  // float bits of max |ref| over compared elements
  unsigned long long compared = 0;
  unsigned long long mismatches = 0;       // exact modes: got != ref; kNorm: non-finite got
  unsigned long long worst_index = ~0ull;  // row * n + col of the first element with the max error
};

// Where the reference comes from: a dense fp32 M x N buffer, or (probe) five per-column values
// selected by col % 5.
struct RefSource {
  const float* dense = nullptr;
  float by_col_mod5[kProbePeriod] = {};
};

// Pass 1: fills *stats (device memory, initialised here) for C (M x N row-major, `dtype`).
void compare(const uint16_t* c, DType dtype, int64_t m, int64_t n, const RefSource& ref,
             CompareMode mode, CompareStats* stats, int max_blocks, cudaStream_t stream);
// Pass 2: stats->worst_index = the smallest index whose error has bits `max_err_bits`.
void locate_worst(const uint16_t* c, DType dtype, int64_t m, int64_t n, const RefSource& ref,
                  CompareMode mode, unsigned int max_err_bits, CompareStats* stats, int max_blocks,
                  cudaStream_t stream);

struct GuardStats {
  unsigned long long guard_changed = 0;            // guard elements that are no longer the poison
  unsigned long long first_guard_changed = ~0ull;  // index into the whole buffer
  unsigned long long c_unwritten = 0;              // C elements still equal to the poison
  unsigned long long first_c_unwritten = ~0ull;    // offset from C's (first batch's) start
};

// Scans the whole C buffer (`total` elements) in which C's `c_batches` batches of `c_count`
// elements start at c_begin, c_begin + c_stride, ...; everything else is guard band, also the
// gaps between batches when c_stride > c_count.
void scan_guard(const uint16_t* buffer, DType dtype, int64_t total, int64_t c_begin,
                int64_t c_count, int64_t c_batches, int64_t c_stride, GuardStats* stats,
                int max_blocks, cudaStream_t stream);

struct NonfiniteStats {
  unsigned long long mismatches = 0;
  unsigned long long first_index = ~0ull;  // row * n + col
};

// Row nan_row must be NaN; column inf_col (other rows) must be exactly +Inf; all else finite.
void scan_nonfinite(const uint16_t* c, DType dtype, int64_t m, int64_t n, int64_t nan_row,
                    int64_t inf_col, NonfiniteStats* stats, int max_blocks, cudaStream_t stream);

}  // namespace hgemm::verify::detail
