// Special-function unit instructions (sm_75+).
#pragma once

namespace hgemm::ptx {

// tanh(x) from the special-function unit in one instruction: maximum relative error about
// 2^-10.99 (PTX ISA, tanh.approx.f32), below fp16's and bf16's half ulp.
__device__ __forceinline__ float tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace hgemm::ptx
