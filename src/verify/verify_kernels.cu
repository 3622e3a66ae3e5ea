// Device side of the verifier: generators, the poison fill and the comparison reductions.
// Matrices are walked as a 2-D grid-stride loop (blockIdx.y over rows, threads over columns) so no
// kernel divides a 64-bit index; reductions accumulate per thread, combine per warp, and issue one
// atomic per warp.
#include "verify/verify_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "core/error.hpp"

namespace hgemm::verify::detail {
namespace {

using u64 = unsigned long long;  // the type CUDA's 64-bit atomics take

constexpr int kThreads = 256;
constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ull;

struct Grid2d {
  dim3 grid;
  dim3 block;
};

// Columns across threads (at most 64 blocks wide: 16K columns per pass), rows across blockIdx.y.
Grid2d grid_2d(int64_t rows, int64_t cols, int max_blocks) {
  const int64_t gx = std::clamp<int64_t>((cols + kThreads - 1) / kThreads, 1, 64);
  const int64_t gy = std::clamp<int64_t>(std::min<int64_t>(rows, max_blocks / gx), 1, 65535);
  return {dim3(unsigned(gx), unsigned(gy)), dim3(kThreads)};
}

unsigned grid_1d(int64_t count, int max_blocks) {
  return unsigned(std::clamp<int64_t>((count + kThreads - 1) / kThreads, 1, max_blocks));
}

__device__ inline uint64_t element_hash(uint64_t key, uint64_t index) {
  return mix64(key + index * kGolden);
}

// Uniform in [0, 1) with 24 random bits.
__device__ inline float uniform01(uint64_t h) { return float(uint32_t(h >> 40)) * 0x1p-24f; }

// Box-Muller on two 24-bit uniforms; u1 is in (0, 1] so the log is finite.
__device__ inline float standard_normal(uint64_t h) {
  const float u1 = (float(uint32_t(h >> 40)) + 1.0f) * 0x1p-24f;
  const float u2 = float(uint32_t(h & 0xffffffu)) * 0x1p-24f;
  return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

// A float rounded to nearest even in `dtype`, as its bits; and back.
__device__ inline uint16_t element_bits(float x, DType dtype) {
  return dtype == DType::kBF16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x))
                               : __half_as_ushort(__float2half_rn(x));
}
__device__ inline float element_value(uint16_t bits, DType dtype) {
  return dtype == DType::kBF16 ? __bfloat162float(__ushort_as_bfloat16(bits))
                               : __half2float(__ushort_as_half(bits));
}

__device__ inline uint16_t value_a(const FillSpec& s, DType dtype, int64_t i, int64_t kk,
                                   int64_t k) {
  const uint64_t h = element_hash(s.key, uint64_t(i) * uint64_t(k) + uint64_t(kk));
  switch (s.kind) {
    case FillKind::kNormal: return element_bits(standard_normal(h), dtype);
    case FillKind::kSmallInt:
      if (s.sparsity > 1 && kk % s.sparsity != i % s.sparsity) return element_bits(0.0f, dtype);
      return element_bits(float(int((h >> 32) % 3u) - 1), dtype);
    case FillKind::kProbe: return element_bits(1.0f, dtype);
    case FillKind::kNonfinite:
      if (i == s.special_row && kk == s.special_col) return planted_nan_bits(dtype);
      return element_bits(0.5f + 0.5f * uniform01(h), dtype);
  }
  return poison_bits(dtype);
}

__device__ inline uint16_t value_b(const FillSpec& s, DType dtype, int64_t kk, int64_t j,
                                   int64_t n) {
  const uint64_t h = element_hash(s.key, uint64_t(kk) * uint64_t(n) + uint64_t(j));
  switch (s.kind) {
    case FillKind::kNormal: return element_bits(standard_normal(h), dtype);
    case FillKind::kSmallInt: return element_bits(float(int((h >> 32) % 3u) - 1), dtype);
    case FillKind::kProbe: return element_bits(probe_b(kk, j, s.k, probe_small(dtype)), dtype);
    case FillKind::kNonfinite:
      if (kk == s.special_row && j == s.special_col) return pos_inf_bits(dtype);
      // The Inf's column stays positive so that it sums to +Inf, never Inf - Inf.
      if (j == s.special_col) return element_bits(0.5f + 0.5f * uniform01(h), dtype);
      return element_bits(2.0f * uniform01(h) - 1.0f, dtype);
  }
  return poison_bits(dtype);
}

__global__ void fill_a_kernel(uint16_t* a, DType dtype, int64_t m, int64_t k, FillSpec spec) {
  for (int64_t i = blockIdx.y; i < m; i += gridDim.y)
    for (int64_t kk = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; kk < k;
         kk += int64_t(gridDim.x) * blockDim.x)
      a[i * k + kk] = value_a(spec, dtype, i, kk, k);
}

// Walks B's storage (rows x cols); `tn` says storage row = logical column.
__global__ void fill_b_kernel(uint16_t* b, DType dtype, int64_t rows, int64_t cols, bool tn,
                              int64_t n, FillSpec spec) {
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y)
    for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < cols;
         c += int64_t(gridDim.x) * blockDim.x)
      b[r * cols + c] = tn ? value_b(spec, dtype, c, r, n) : value_b(spec, dtype, r, c, n);
}

__global__ void poison_kernel(uint16_t* p, uint16_t poison, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    p[i] = poison;
}

template <class T>
__global__ void init_kernel(T* stats) {
  *stats = T{};
}

// ---- warp reductions (every lane of a full warp must call these) ----
__device__ inline double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}
__device__ inline unsigned long long warp_sum(unsigned long long v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}
__device__ inline unsigned long long warp_min(unsigned long long v) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    const unsigned long long other = __shfl_down_sync(0xffffffffu, v, offset);
    v = other < v ? other : v;
  }
  return v;
}
__device__ inline unsigned int warp_max(unsigned int v) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    const unsigned int other = __shfl_down_sync(0xffffffffu, v, offset);
    v = other > v ? other : v;
  }
  return v;
}
__device__ inline bool lane_zero() { return (threadIdx.x & 31) == 0; }

__device__ inline float ref_at(const RefSource& ref, int64_t r, int64_t c, int64_t n) {
  return ref.dense ? ref.dense[r * n + c] : ref.by_col_mod5[c % kProbePeriod];
}

// Whether (got, want) takes part in the comparison; if so its error (+inf for a non-finite got,
// so that unwritten NaN poison can never hide in a NaN-poisoned sum) and whether it mismatches.
__device__ inline bool element_error(float got, float want, CompareMode mode, float exact_limit,
                                     float* err, bool* mismatch) {
  if (mode == CompareMode::kExactRepresentable && !(fabsf(want) <= exact_limit)) return false;
  const bool finite = isfinite(got);
  *err = finite ? fabsf(got - want) : INFINITY;
  *mismatch = mode == CompareMode::kNorm ? !finite : !(got == want);
  return true;
}

__global__ void compare_kernel(const uint16_t* c, DType dtype, int64_t m, int64_t n, RefSource ref,
                               CompareMode mode, CompareStats* stats) {
  const float exact_limit = exact_integer_limit(dtype);
  double err_sq = 0, ref_sq = 0;
  float max_err = 0, max_ref = 0;
  unsigned long long compared = 0, mismatches = 0;
  for (int64_t r = blockIdx.y; r < m; r += gridDim.y) {
    for (int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; col < n;
         col += int64_t(gridDim.x) * blockDim.x) {
      const float got = element_value(c[r * n + col], dtype);
      const float want = ref_at(ref, r, col, n);
      float err;
      bool mismatch;
      if (!element_error(got, want, mode, exact_limit, &err, &mismatch)) continue;
      ++compared;
      mismatches += mismatch;
      max_err = fmaxf(max_err, err);
      max_ref = fmaxf(max_ref, fabsf(want));
      if (mode == CompareMode::kNorm) {
        const double d = double(got) - double(want);
        err_sq += isfinite(got) ? d * d : double(INFINITY);
        ref_sq += double(want) * double(want);
      }
    }
  }
  err_sq = warp_sum(err_sq);
  ref_sq = warp_sum(ref_sq);
  compared = warp_sum(compared);
  mismatches = warp_sum(mismatches);
  // Non-negative floats order like their bit patterns, +inf above every finite value.
  const unsigned int err_bits = warp_max(__float_as_uint(max_err));
  const unsigned int ref_bits = warp_max(__float_as_uint(max_ref));
  if (lane_zero()) {
    if (mode == CompareMode::kNorm) {
      atomicAdd(&stats->err_sq, err_sq);
      atomicAdd(&stats->ref_sq, ref_sq);
    }
    atomicAdd(&stats->compared, compared);
    atomicAdd(&stats->mismatches, mismatches);
    atomicMax(&stats->max_err_bits, err_bits);
    atomicMax(&stats->max_ref_bits, ref_bits);
  }
}

__global__ void locate_kernel(const uint16_t* c, DType dtype, int64_t m, int64_t n, RefSource ref,
                              CompareMode mode, unsigned int max_err_bits, CompareStats* stats) {
  const float exact_limit = exact_integer_limit(dtype);
  unsigned long long first = ~0ull;
  for (int64_t r = blockIdx.y; r < m; r += gridDim.y) {
    for (int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; col < n;
         col += int64_t(gridDim.x) * blockDim.x) {
      const float got = element_value(c[r * n + col], dtype);
      float err;
      bool mismatch;
      if (!element_error(got, ref_at(ref, r, col, n), mode, exact_limit, &err, &mismatch))
        continue;
      const unsigned long long index = u64(r * n + col);
      if (__float_as_uint(err) == max_err_bits && index < first) first = index;
    }
  }
  first = warp_min(first);
  if (lane_zero() && first != ~0ull) atomicMin(&stats->worst_index, first);
}

__global__ void guard_kernel(const uint16_t* buffer, uint16_t poison, int64_t total,
                             int64_t c_begin, int64_t c_count, int64_t c_batches,
                             int64_t c_stride, GuardStats* stats) {
  unsigned long long changed = 0, unwritten = 0, first_changed = ~0ull, first_unwritten = ~0ull;
  const int64_t c_span = (c_batches - 1) * c_stride + c_count;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const bool poisoned = buffer[i] == poison;
    const int64_t rel = i - c_begin;
    // The division only where there are gaps between batches to tell apart.
    const bool in_c = rel >= 0 && rel < c_span &&
                      (c_batches == 1 || c_stride == c_count || rel % c_stride < c_count);
    if (in_c) {
      if (poisoned) {
        ++unwritten;
        const auto at = u64(rel);
        if (at < first_unwritten) first_unwritten = at;
      }
    } else if (!poisoned) {
      ++changed;
      if (u64(i) < first_changed) first_changed = u64(i);
    }
  }
  changed = warp_sum(changed);
  unwritten = warp_sum(unwritten);
  first_changed = warp_min(first_changed);
  first_unwritten = warp_min(first_unwritten);
  if (lane_zero()) {
    if (changed) {
      atomicAdd(&stats->guard_changed, changed);
      atomicMin(&stats->first_guard_changed, first_changed);
    }
    if (unwritten) {
      atomicAdd(&stats->c_unwritten, unwritten);
      atomicMin(&stats->first_c_unwritten, first_unwritten);
    }
  }
}

__global__ void nonfinite_kernel(const uint16_t* c, DType dtype, int64_t m, int64_t n,
                                 int64_t nan_row, int64_t inf_col, NonfiniteStats* stats) {
  const uint16_t inf_bits = pos_inf_bits(dtype);
  unsigned long long mismatches = 0, first = ~0ull;
  for (int64_t r = blockIdx.y; r < m; r += gridDim.y) {
    for (int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; col < n;
         col += int64_t(gridDim.x) * blockDim.x) {
      const uint16_t bits = c[r * n + col];
      const float v = element_value(bits, dtype);
      const bool ok =
          r == nan_row ? isnan(v) : (col == inf_col ? bits == inf_bits : isfinite(v));
      if (!ok) {
        ++mismatches;
        const auto index = u64(r * n + col);
        if (index < first) first = index;
      }
    }
  }
  mismatches = warp_sum(mismatches);
  first = warp_min(first);
  if (lane_zero() && mismatches) {
    atomicAdd(&stats->mismatches, mismatches);
    atomicMin(&stats->first_index, first);
  }
}

__global__ void fill_bias_kernel(uint16_t* bias, DType dtype, int64_t n, uint64_t key,
                                 float scale) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < n;
       j += int64_t(gridDim.x) * blockDim.x)
    bias[j] = element_bits(scale * standard_normal(element_hash(key, uint64_t(j))), dtype);
}

// One pass over M x N elements: x = alpha * ref + bias[col], then the activation, in fp64.
template <class Element>
__global__ void epilogue_kernel(Element* ref, DType dtype, int64_t m, int64_t n, double alpha,
                                const uint16_t* bias, Activation activation) {
  for (int64_t r = blockIdx.y; r < m; r += gridDim.y)
    for (int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; col < n;
         col += int64_t(gridDim.x) * blockDim.x) {
      Element& e = ref[r * n + col];
      double x = alpha;
      if constexpr (std::is_same_v<Element, float>)
        x *= double(e);
      else
        x *= double(element_value(e, dtype));
      if (bias) x += double(element_value(bias[col], dtype));
      const double y = reference_activation(x, activation);
      if constexpr (std::is_same_v<Element, float>)
        e = float(y);
      else
        e = element_bits(float(y), dtype);
    }
}

template <class Element>
void launch_epilogue(Element* ref, int64_t m, int64_t n, double alpha, const uint16_t* bias,
                     DType dtype, Activation activation, int max_blocks, cudaStream_t stream) {
  const Grid2d g = grid_2d(m, n, max_blocks);
  epilogue_kernel<<<g.grid, g.block, 0, stream>>>(ref, dtype, m, n, alpha, bias, activation);
  HGEMM_LAUNCH_CHECK();
}

}  // namespace

void fill_bias(uint16_t* bias, DType dtype, int64_t n, uint64_t key, float scale, int max_blocks,
               cudaStream_t stream) {
  fill_bias_kernel<<<grid_1d(n, max_blocks), kThreads, 0, stream>>>(bias, dtype, n, key, scale);
  HGEMM_LAUNCH_CHECK();
}

void apply_epilogue(float* ref, int64_t m, int64_t n, double alpha, const uint16_t* bias,
                    DType dtype, Activation activation, int max_blocks, cudaStream_t stream) {
  launch_epilogue(ref, m, n, alpha, bias, dtype, activation, max_blocks, stream);
}

void apply_epilogue(uint16_t* c, int64_t m, int64_t n, double alpha, const uint16_t* bias,
                    DType dtype, Activation activation, int max_blocks, cudaStream_t stream) {
  // fp64 -> fp32 -> the element type can round twice; this output only widens a tolerance.
  launch_epilogue(c, m, n, alpha, bias, dtype, activation, max_blocks, stream);
}

void fill_a(uint16_t* a, DType dtype, int64_t m, int64_t k, const FillSpec& spec, int max_blocks,
            cudaStream_t stream) {
  const Grid2d g = grid_2d(m, k, max_blocks);
  fill_a_kernel<<<g.grid, g.block, 0, stream>>>(a, dtype, m, k, spec);
  HGEMM_LAUNCH_CHECK();
}

void fill_b(uint16_t* b, DType dtype, Layout layout, int64_t k, int64_t n, const FillSpec& spec,
            int max_blocks, cudaStream_t stream) {
  const bool tn = layout == Layout::kTN;
  const int64_t rows = tn ? n : k;
  const int64_t cols = tn ? k : n;
  const Grid2d g = grid_2d(rows, cols, max_blocks);
  fill_b_kernel<<<g.grid, g.block, 0, stream>>>(b, dtype, rows, cols, tn, n, spec);
  HGEMM_LAUNCH_CHECK();
}

void fill_poison(uint16_t* p, DType dtype, int64_t count, int max_blocks, cudaStream_t stream) {
  poison_kernel<<<grid_1d(count, max_blocks), kThreads, 0, stream>>>(p, poison_bits(dtype), count);
  HGEMM_LAUNCH_CHECK();
}

void compare(const uint16_t* c, DType dtype, int64_t m, int64_t n, const RefSource& ref,
             CompareMode mode, CompareStats* stats, int max_blocks, cudaStream_t stream) {
  init_kernel<<<1, 1, 0, stream>>>(stats);
  HGEMM_LAUNCH_CHECK();
  const Grid2d g = grid_2d(m, n, max_blocks);
  compare_kernel<<<g.grid, g.block, 0, stream>>>(c, dtype, m, n, ref, mode, stats);
  HGEMM_LAUNCH_CHECK();
}

void locate_worst(const uint16_t* c, DType dtype, int64_t m, int64_t n, const RefSource& ref,
                  CompareMode mode, unsigned int max_err_bits, CompareStats* stats, int max_blocks,
                  cudaStream_t stream) {
  const Grid2d g = grid_2d(m, n, max_blocks);
  locate_kernel<<<g.grid, g.block, 0, stream>>>(c, dtype, m, n, ref, mode, max_err_bits, stats);
  HGEMM_LAUNCH_CHECK();
}

void scan_guard(const uint16_t* buffer, DType dtype, int64_t total, int64_t c_begin,
                int64_t c_count, int64_t c_batches, int64_t c_stride, GuardStats* stats,
                int max_blocks, cudaStream_t stream) {
  init_kernel<<<1, 1, 0, stream>>>(stats);
  HGEMM_LAUNCH_CHECK();
  guard_kernel<<<grid_1d(total, max_blocks), kThreads, 0, stream>>>(
      buffer, poison_bits(dtype), total, c_begin, c_count, c_batches, c_stride, stats);
  HGEMM_LAUNCH_CHECK();
}

void scan_nonfinite(const uint16_t* c, DType dtype, int64_t m, int64_t n, int64_t nan_row,
                    int64_t inf_col, NonfiniteStats* stats, int max_blocks, cudaStream_t stream) {
  init_kernel<<<1, 1, 0, stream>>>(stats);
  HGEMM_LAUNCH_CHECK();
  const Grid2d g = grid_2d(m, n, max_blocks);
  nonfinite_kernel<<<g.grid, g.block, 0, stream>>>(c, dtype, m, n, nan_row, inf_col, stats);
  HGEMM_LAUNCH_CHECK();
}

}  // namespace hgemm::verify::detail
