// TMA tensor maps for the sm90 family: fp16 or bf16 row-major views of A, B and C, 2-D for one
// matrix and 3-D (column, row, batch) for strided batches, encoded with the driver's
// cuTensorMapEncodeTiled (fetched through the runtime, so the library needs no -lcuda)
// and cached per thread, so repeated calls on the same buffers do not re-encode.
#pragma once

#include <cstdint>

#include <cuda.h>

#include "hgemm/hgemm.hpp"

namespace hgemm::sm90 {

// `batches` rows x cols matrices of 2-byte elements, row stride `row_stride` elements, each
// `batch_stride` elements after the previous, read or written in boxes of box_rows x box_cols of
// one matrix with a `swizzle_bytes` smem swizzle (0, 32, 64 or 128).
struct TensorMapKey {
  void const* base = nullptr;
  uint64_t rows = 0;
  uint64_t cols = 0;
  uint64_t row_stride = 0;
  uint64_t batches = 1;
  uint64_t batch_stride = 0;  // unused for one batch
  uint32_t box_rows = 0;
  uint32_t box_cols = 0;
  uint32_t swizzle_bytes = 0;
  DType dtype = DType::kF16;

  bool operator==(TensorMapKey const&) const = default;
};

// The encoded map for `key`. Throws hgemm::Error when the driver refuses it (the launcher's
// can_implement checks make that an internal error: alignment and strides are checked first).
CUtensorMap const& tensor_map(TensorMapKey const& key);

}  // namespace hgemm::sm90
