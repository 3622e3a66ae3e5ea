#include "launch/splitk.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "kernels/common/clear_counters.cuh"
#include "kernels/common/splitk_reduce.cuh"
#include "launch/epilogue_params.cuh"
#include "launch/workspace.hpp"

namespace hgemm {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

constexpr int kThreads = 256;

// A launch of `blocks` CTAs of kThreads on `stream`, programmatic where asked (through `attr`,
// which must outlive the launch).
cudaLaunchConfig_t launch_of(int64_t blocks, cudaStream_t stream, bool programmatic,
                             cudaLaunchAttribute& attr) {
  cudaLaunchConfig_t launch{};
  launch.gridDim = dim3(unsigned(blocks));
  launch.blockDim = dim3(kThreads);
  launch.stream = stream;
  attr = programmatic_launch_attribute();
  if (programmatic) {
    launch.attrs = &attr;
    launch.numAttrs = 1;
  }
  return launch;
}

}  // namespace

SplitPlan plan_split(int requested, GemmArgs const& args, int block_k) {
  SplitPlan plan;
  plan.total_k_blocks = int(ceil_div(args.k, block_k));
  plan.partial_ld = splitk_partial_ld(args.n);
  const size_t split_bytes = splitk_partial_bytes(args.m, args.n);
  int64_t splits = std::clamp<int64_t>(requested, 1, kMaxSplitK);
  splits = std::min<int64_t>(splits, int64_t(kMaxWorkspaceBytes / split_bytes));
  splits = std::max<int64_t>(splits, 1);
  plan.k_blocks_per_split = int(ceil_div(plan.total_k_blocks, splits));
  plan.splits = int(ceil_div(plan.total_k_blocks, plan.k_blocks_per_split));
  plan.workspace_bytes = plan.splits > 1 ? split_bytes * size_t(plan.splits) : 0;
  return plan;
}

SplitScratch::SplitScratch(SplitPlan const& plan, GemmArgs const& args)
    : splits_(plan.splits), stream_(args.stream) {
  if (plan.splits <= 1) return;
  if (args.workspace) {
    // The API checked the size against the largest plan; a smaller one runs unsplit rather
    // than write past the caller's buffer.
    if (plan.workspace_bytes <= args.workspace_bytes) buffer_ = args.workspace;
    return;
  }
  buffer_ = acquire_workspace(plan.workspace_bytes, args.stream);
  pooled_ = buffer_ != nullptr;
}

SplitScratch::~SplitScratch() {
  if (pooled_) release_workspace(buffer_, stream_);
}

void launch_splitk_reduce(float const* partial, int64_t partial_ld, int splits, void* c,
                          int64_t ldc, int m, int n, DType dtype, EpilogueArgs const& epilogue,
                          cudaStream_t stream, bool programmatic) {
  const kernels::EpilogueParams e = epilogue_params(epilogue);
  const int64_t pairs = int64_t(m) * ((n + 1) / 2);
  const bool pair_stores =
      n % 2 == 0 && ldc % 2 == 0 && (reinterpret_cast<uintptr_t>(c) & 3) == 0;
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t launch =
      launch_of(std::min<int64_t>(ceil_div(pairs, kThreads), 8192), stream, programmatic, attr);
  const bool bf16 = dtype == DType::kBF16;
  auto kernel = pair_stores ? (bf16 ? &kernels::splitk_reduce_kernel<DType::kBF16, true>
                                    : &kernels::splitk_reduce_kernel<DType::kF16, true>)
                            : (bf16 ? &kernels::splitk_reduce_kernel<DType::kBF16, false>
                                    : &kernels::splitk_reduce_kernel<DType::kF16, false>);
  HGEMM_CUDA_CHECK(cudaLaunchKernelEx(&launch, kernel, partial, partial_ld, splits,
                                      static_cast<uint16_t*>(c), ldc, m, n, e));
  HGEMM_LAUNCH_CHECK();
}

void launch_clear_counters(int* counters, int count, cudaStream_t stream, bool programmatic) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t launch =
      launch_of(std::min<int64_t>(ceil_div(count, kThreads), 64), stream, programmatic, attr);
  HGEMM_CUDA_CHECK(cudaLaunchKernelEx(&launch, &kernels::clear_counters_kernel, counters, count));
  HGEMM_LAUNCH_CHECK();
}

}  // namespace hgemm
