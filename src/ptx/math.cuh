// Special-function unit instructions (sm_75+; the bf16 pair sm_90).
#pragma once

#include <cstdint>

namespace hgemm::ptx {

// tanh of a pair of fp16 values (both halves of the 32-bit word) from the special-function unit
// in one instruction, each result an approximation in fp16.
__device__ __forceinline__ uint32_t tanh_approx_f16x2(uint32_t x) {
  uint32_t y;
  asm("tanh.approx.f16x2 %0, %1;" : "=r"(y) : "r"(x));
  return y;
}

// tanh of an fp32 value from the special-function unit, relative error about 2^-11.
__device__ __forceinline__ float tanh_approx_f32(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// A pair of bf16 values (sm_90).
__device__ __forceinline__ uint32_t tanh_approx_bf16x2(uint32_t x) {
  uint32_t y;
  asm("tanh.approx.bf16x2 %0, %1;" : "=r"(y) : "r"(x));
  return y;
}

}  // namespace hgemm::ptx
