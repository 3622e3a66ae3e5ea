// The GEMM epilogue every kernel family applies: C = act(alpha * acc + beta * C + bias) in fp32
// with one rounding to the element type, C read only where beta != 0. Shared so that the kernels
// compute one function. One exception: the sm90 kernels' tanh GELU takes the special-function
// unit's tanh (gelu_tanh_approx below), the other paths tanhf.
#pragma once

#include <cstdint>

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

// NaN passes through ReLU, as in PyTorch. The GELU constants are 1/sqrt(2) and sqrt(2/pi).
template <Activation kActivation>
__device__ __forceinline__ float activate(float x) {
  if constexpr (kActivation == Activation::kRelu)
    return x < 0.0f ? 0.0f : x;
  else if constexpr (kActivation == Activation::kGelu)
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
  else if constexpr (kActivation == Activation::kGeluTanh)
    return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
  else
    return x;
}

// The erf GELU out of line: the tuned kernels apply the epilogue in fully unrolled loops over
// their accumulators, where an inlined erff per element made the code too large to fetch quickly
// once per tile, and inlining it beside the other activations spilled.
static __device__ __noinline__ float gelu(float x) { return activate<Activation::kGelu>(x); }

// The tanh GELU with the special-function unit's tanh: a few instructions, inlined, so that the
// tuned kernels' unrolled epilogue overlaps its elements (a call per element with tanhf ran them
// one after another: +37% over the plain GEMM, against cuBLASLt's +5%). It differs from tanhf by
// less than half an fp16 or bf16 ulp of the result's scale.
// Written as x (k + k c x^2) and h + h tanh with h = x / 2: five multiplies and adds and the
// tanh, where the formula as written took seven (the tuned kernels' epilogue issues them back to
// back, so each one is time).
__device__ __forceinline__ float gelu_tanh_approx(float x) {
  constexpr float kK = 0.79788456080286536f, kC = 0.044715f;
  const float inner = x * fmaf(x * x, kK * kC, kK);
  const float h = 0.5f * x;
  return fmaf(h, ptx::tanh_approx(inner), h);
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
