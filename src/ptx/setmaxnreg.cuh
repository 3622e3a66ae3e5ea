// setmaxnreg (sm_90a): moves registers between the warpgroups of a CTA at run time, so the TMA
// producer can give its share to the math warpgroups. Executed by all threads of a warpgroup.
// NOTE: ptxas honours it only when the kernel has a register cap at entry
// (__launch_bounds__(threads, 1)) and each role is one branch of an if/else; otherwise it warns
// (C7508) and ignores it.
#pragma once

namespace hgemm::ptx {

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg takes 24..256, step 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg takes 24..256, step 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

}  // namespace hgemm::ptx
