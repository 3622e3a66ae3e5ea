// The GEMM epilogue every kernel family applies: C = act(alpha * acc + beta * C + bias) in fp32
// with one rounding to the element type, C read only where beta != 0. Shared so that the kernels
// compute one function. One exception: the sm90 kernels' tanh GELU takes the special-function
// unit's tanh, on C's rounded pairs (gelu_tanh_pair below) or on the fp32 sums
// (gelu_tanh_approx), the other paths tanhf.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "hgemm/hgemm.hpp"
#include "ptx/math.cuh"

namespace hgemm::kernels {

template <DType kDType>
__device__ __forceinline__ float to_float(uint16_t bits) {
  if constexpr (kDType == DType::kF16)
    return __half2float(__ushort_as_half(bits));
  else
    return __bfloat162float(__ushort_as_bfloat16(bits));
}

template <DType kDType>
__device__ __forceinline__ uint16_t from_float(float x) {
  if constexpr (kDType == DType::kF16)
    return __half_as_ushort(__float2half_rn(x));
  else
    return __bfloat16_as_ushort(__float2bfloat16_rn(x));
}

// The tanh GELU's constants, 0.5 x (1 + tanh(kGeluTanhK (x + kGeluTanhC x^3))): sqrt(2/pi) and
// the cubic's weight, shared by its three forms below.
inline constexpr float kGeluTanhK = 0.79788456080286536f, kGeluTanhC = 0.044715f;

// NaN passes through ReLU, as in PyTorch. The erf GELU's constant is 1/sqrt(2).
template <Activation kActivation>
__device__ __forceinline__ float activate(float x) {
  if constexpr (kActivation == Activation::kRelu)
    return x < 0.0f ? 0.0f : x;
  else if constexpr (kActivation == Activation::kGelu)
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
  else if constexpr (kActivation == Activation::kGeluTanh)
    return 0.5f * x * (1.0f + tanhf(kGeluTanhK * (x + kGeluTanhC * x * x * x)));
  else
    return x;
}

// The erf GELU out of line: the tuned kernels apply the epilogue in fully unrolled loops over
// their accumulators, where an inlined erff per element made the code too large to fetch quickly
// once per tile, and inlining it beside the other activations spilled.
static __device__ __noinline__ float gelu(float x) { return activate<Activation::kGelu>(x); }

// The tanh GELU on a pair of C's elements already rounded to the element type, in that type's
// paired arithmetic: the sm90 kernels apply it after the tile's one rounding, so C is GELU(x
// rounded) rounded. Six paired operations (five in bf16) and the tanh for two elements, where
// the fp32 form took five operations and a tanh per element; the tanh still costs the
// special-function unit one issue per element (the SASS has one MUFU.TANH.F16 per element, as
// many as MUFU.TANH before), and that is most of what remains. The cooperative epilogue runs
// while no mainloop does, so every instruction there is time: bias + GELU over the plain call
// 1.056 -> 1.046 (docs/notes/2026-12-01-paired-gelu.md).
// Error: the intermediates' roundings (fp16's 2^-11, bf16's 2^-8) move C by about half an ulp of
// its type where |x| is small and not at all where the tanh saturates, as it does for the large
// |x| that dominate C's norm: the verifier measured the rounding's own relative error, 2.1e-4
// (fp16) and 1.7e-3 (bf16). In fp16, x below -65504 (rounded to -inf, and -inf (1 + -1) is NaN)
// is raised to -65504 first, which gives the 0 that GELU(x) rounds to, and so a sum of -inf gives
// 0 too, where PyTorch gives NaN; bf16 needs no guard (a finite fp32 sum stays finite), so -inf
// gives NaN there. NaN stays NaN (max.NaN).
// x^2 overflows from |x| = 256 on: u is then +-inf and the tanh +-1, as GELU needs.
template <DType kDType>
__device__ __forceinline__ uint32_t gelu_tanh_pair(uint32_t pair) {
  constexpr bool kF16 = kDType == DType::kF16;
  using Pair = std::conditional_t<kF16, __half2, __nv_bfloat162>;
  auto splat = [](float v) {
    if constexpr (kF16)
      return __float2half2_rn(v);
    else
      return __float2bfloat162_rn(v);
  };
  Pair x = *reinterpret_cast<Pair const*>(&pair);
  if constexpr (kF16) x = __hmax2_nan(x, splat(-65504.0f));
  const Pair inner =
      __hmul2(x, __hfma2(__hmul2(x, x), splat(kGeluTanhK * kGeluTanhC), splat(kGeluTanhK)));
  const Pair h = __hmul2(x, splat(0.5f));
  const uint32_t inner_bits = *reinterpret_cast<uint32_t const*>(&inner);
  uint32_t t;
  if constexpr (kF16)
    t = ptx::tanh_approx_f16x2(inner_bits);
  else
    t = ptx::tanh_approx_bf16x2(inner_bits);
  const Pair y = __hfma2(h, *reinterpret_cast<Pair const*>(&t), h);
  return *reinterpret_cast<uint32_t const*>(&y);
}

// The same tanh GELU on an fp32 sum before its rounding, through the special-function unit's fp32
// tanh: the three-warpgroup tiles take it (sm90_ws.cuh, Traits::kGeluOnPairs), where the pairs'
// temporaries spilled (docs/notes/2026-12-02-three-warpgroup-gelu.md). Error: the tanh's, about
// 2^-11 relative, times half |x| where 1 + tanh cancels (x < 0), then C's one rounding. A finite
// x needs no guard (x^3 overflowing gives u = -inf and h (1 + -1) = 0). In fp16, x below -65504
// is raised to it, so that -inf gives 0 as the fp16 pairs' does (there the two cannot be told
// apart after the rounding); in bf16 -inf gives NaN, as PyTorch and the bf16 pairs do. NaN stays
// NaN (the comparison fails).
template <DType kDType>
__device__ __forceinline__ float gelu_tanh_approx(float x) {
  if constexpr (kDType == DType::kF16)
    if (x < -65504.0f) x = -65504.0f;
  const float h = 0.5f * x;
  const float t = ptx::tanh_approx_f32(x * fmaf(x * x, kGeluTanhK * kGeluTanhC, kGeluTanhK));
  return fmaf(h, t, h);
}

__device__ __forceinline__ float activate(float x, Activation activation) {
  switch (activation) {
    case Activation::kRelu: return activate<Activation::kRelu>(x);
    case Activation::kGelu: return gelu(x);
    case Activation::kGeluTanh: return activate<Activation::kGeluTanh>(x);
    case Activation::kNone: break;
  }
  return x;
}

// What the tuned kernels' epilogue applies beyond the product; the default is none. The bias is
// N elements of the element type, one per column of C.
struct EpilogueParams {
  float alpha = 1.0f;
  float beta = 0.0f;  // 0: C is never read (a NaN in it stays out)
  uint16_t const* bias = nullptr;
  Activation activation = Activation::kNone;
  int ops = 0;  // 0: nothing to apply (the plain product, as every kernel ran before)
};

// act(alpha * acc + beta * c + bias[col]) for one element of column `col` whose old value of C is
// at `c` (read only where beta != 0).
template <DType kDType>
__device__ __forceinline__ float apply_epilogue(float acc, int64_t col, EpilogueParams const& e,
                                                uint16_t const* c) {
  float v = e.alpha * acc;
  if (e.beta != 0.0f) v += e.beta * to_float<kDType>(*c);
  if (e.bias) v += to_float<kDType>(e.bias[col]);
  return activate(v, e.activation);
}

}  // namespace hgemm::kernels
