// A device allocation that grows with the problems it serves and is freed with its owner: the
// verifier's operand and reference buffers, and the scratch of callers around it (hgemm bench's
// transposed A and workspace for hgemm-acol).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace hgemm::verify {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  // Grows (never shrinks); the old contents are not kept. The caller has synchronized, and
  // cudaFree waits for the device anyway.
  void reserve(size_t bytes) {
    if (bytes <= bytes_) return;
    if (ptr_) {
      cudaFree(ptr_);
      ptr_ = nullptr;
      bytes_ = 0;
    }
    HGEMM_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    bytes_ = bytes;
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace hgemm::verify
