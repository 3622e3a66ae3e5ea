// Programmatic dependent launch (sm_90). A kernel launched with programmatic stream serialization
// may start while the kernel ahead of it in the stream is still running; it must wait before it
// touches memory that kernel writes or reads. Both instructions are no-ops in a kernel launched
// without the attribute.
#pragma once

namespace hgemm::ptx {

// Blocks until the grids this one depends on have completed and their memory is visible.
__device__ __forceinline__ void griddepcontrol_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// Lets the next kernel in the stream (if launched with the attribute) start its prologue: it
// still waits for this grid's completion before touching memory.
__device__ __forceinline__ void griddepcontrol_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

}  // namespace hgemm::ptx
