#include "launch/workspace.hpp"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace hgemm {
namespace {

struct Pools {
  std::mutex mutex;
  std::vector<cudaMemPool_t> by_device;  // nullptr until first use; never destroyed (see below)
};

// Pools outlive static destruction on purpose: work may still be queued when the process exits.
Pools& pools() {
  static Pools* p = new Pools;
  return *p;
}

cudaMemPool_t pool_for(int device) {
  Pools& p = pools();
  std::lock_guard lock(p.mutex);
  if (size_t(device) >= p.by_device.size()) p.by_device.resize(size_t(device) + 1, nullptr);
  if (p.by_device[size_t(device)]) return p.by_device[size_t(device)];
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  // Keep everything the pool has ever held, so steady-state calls never go to the driver.
  uint64_t keep = UINT64_MAX;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  p.by_device[size_t(device)] = pool;
  return pool;
}

}  // namespace

void* acquire_workspace(size_t bytes, cudaStream_t stream) {
  if (bytes == 0 || bytes > kMaxWorkspaceBytes) return nullptr;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  cudaMemPool_t pool = pool_for(device);
  if (!pool) return nullptr;
  void* buffer = nullptr;
  if (cudaMallocFromPoolAsync(&buffer, bytes, pool, stream) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return buffer;
}

void release_workspace(void* buffer, cudaStream_t stream) {
  if (buffer) cudaFreeAsync(buffer, stream);
}

OperandCopyScratch::OperandCopyScratch(size_t bytes, void* workspace, cudaStream_t stream,
                                       char const* what)
    : buffer_(workspace), stream_(stream), pooled_(workspace == nullptr) {
  if (!pooled_) return;
  buffer_ = acquire_workspace(bytes, stream);
  if (!buffer_)
    HGEMM_THROW(HGEMM_ERROR_CUDA,
                "no " + std::to_string(bytes) + " B of workspace for " + std::string(what));
}

OperandCopyScratch::~OperandCopyScratch() {
  if (pooled_) release_workspace(buffer_, stream_);
}

}  // namespace hgemm
