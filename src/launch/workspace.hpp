// Device scratch memory that launchers need on some paths (split-K partial sums). It comes from a
// library-owned stream-ordered memory pool per device that never releases what it holds, so:
// - after the first calls no call allocates from the driver;
// - stream ordering makes reuse safe across streams and threads (a buffer is handed out again
//   only after the work that used it is ordered before the new user);
// - it works inside CUDA graph capture (the graph gets its own allocation node).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace hgemm {

// The most scratch one call may ask for; launchers size their use to fit.
inline constexpr size_t kMaxWorkspaceBytes = size_t(32) << 20;

// `bytes` of scratch ordered on `stream`, to be returned with release_workspace on the same
// stream after the last kernel that uses it. nullptr when none can be had (the pool could not be
// created or is out of memory); callers then take a path that needs no workspace.
void* acquire_workspace(size_t bytes, cudaStream_t stream);
void release_workspace(void* buffer, cudaStream_t stream);

// Room for a copy of an operand that a call makes before its kernel: the caller's workspace where
// one is given (the launcher checked its size), else `bytes` from the pool, released on `stream`
// when this is destroyed, after the call's launches are enqueued. Throws HGEMM_ERROR_CUDA naming
// `what` when the pool has none: unlike split-K, such a call has no path without it.
class OperandCopyScratch {
 public:
  OperandCopyScratch(size_t bytes, void* workspace, cudaStream_t stream, char const* what);
  ~OperandCopyScratch();
  OperandCopyScratch(OperandCopyScratch const&) = delete;
  OperandCopyScratch& operator=(OperandCopyScratch const&) = delete;

  void* get() const { return buffer_; }

 private:
  void* buffer_;
  cudaStream_t stream_;
  bool pooled_;
};

}  // namespace hgemm
