// Clears the arrival counters of a split last round (kernels/sm90, a config's split_k 0) just
// before it. A kernel rather than a memset: launched programmatically, it overlaps the previous
// kernel's tail and lets the GEMM after it launch early too, where a memset node between two
// kernels stops both (a memset cost every split call 2.5-5 us,
// docs/notes/2026-11-30-split-in-launch-and-stream-k.md).
#pragma once

#include "ptx/griddepcontrol.cuh"

namespace hgemm::kernels {

__global__ void clear_counters_kernel(int* counters, int count) {
  // The counters may lie where the kernel ahead of this one (in stream order) still reads or
  // writes: wait for it before writing. The GEMM after may begin its setup at once; its own wait
  // holds it until these writes are done.
  ptx::griddepcontrol_wait();
  ptx::griddepcontrol_launch_dependents();
  const int step = int(gridDim.x * blockDim.x);
  for (int i = int(blockIdx.x * blockDim.x + threadIdx.x); i < count; i += step) counters[i] = 0;
}

}  // namespace hgemm::kernels
