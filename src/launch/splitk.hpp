// Split-K on the host, shared by the sm80 and sm90 launchers: how a call's K is cut into splits,
// the scratch for the fp32 partial sums, and the reduction kernel's launch.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "launch/launch.hpp"

namespace hgemm {

// How a call splits K: whole k-blocks per split, every split non-empty, the partial sums
// (splits x M x partial_ld fp32) within the workspace limit. Fewer splits than asked when K is
// short or the workspace would overflow; 1 means no split.
struct SplitPlan {
  int splits = 1;
  int total_k_blocks = 0;
  int k_blocks_per_split = 0;
  int64_t partial_ld = 0;
  size_t workspace_bytes = 0;
};

SplitPlan plan_split(int requested, GemmArgs const& args, int block_k);

// The partial-sum scratch of one call: the caller's workspace when GemmArgs carries one, else
// from the pool and returned (stream-ordered) when it goes out of scope, also when the launch
// throws. Empty when the plan does not split or no scratch can be had: the launcher then runs
// unsplit, which computes the same product.
class SplitScratch {
 public:
  SplitScratch(SplitPlan const& plan, GemmArgs const& args);
  ~SplitScratch();
  SplitScratch(SplitScratch const&) = delete;
  SplitScratch& operator=(SplitScratch const&) = delete;

  float* partial() const { return static_cast<float*>(buffer_); }
  int splits() const { return buffer_ ? splits_ : 1; }

 private:
  void* buffer_ = nullptr;
  bool pooled_ = false;
  int splits_ = 1;
  cudaStream_t stream_ = nullptr;
};

// C (m x n of `dtype`, row stride ldc) = the sum of `splits` partial buffers, in split order, with
// `epilogue` applied to it (launch/launch.hpp; the sm80 catalog passes the plain one). With
// `programmatic` (see programmatic_launch) the reduction may start while the GEMM kernel ahead of
// it finishes; it waits for that kernel's partials before reading them.
void launch_splitk_reduce(float const* partial, int64_t partial_ld, int splits, void* c,
                          int64_t ldc, int m, int n, DType dtype, EpilogueArgs const& epilogue,
                          cudaStream_t stream, bool programmatic = false);

// Zeroes `count` arrival counters on `stream` (kernels/common/clear_counters.cuh), launched
// programmatically where `programmatic`.
void launch_clear_counters(int* counters, int count, cudaStream_t stream, bool programmatic);

}  // namespace hgemm
