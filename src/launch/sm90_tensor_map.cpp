#include "launch/sm90_tensor_map.hpp"

#include <array>
#include <mutex>
#include <string>

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include "core/error.hpp"

namespace hgemm::sm90 {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_fn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult found{};
    HGEMM_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000,
                                                      cudaEnableDefault, &found));
    HGEMM_REQUIRE(found == cudaDriverEntryPointSuccess && ptr != nullptr, HGEMM_ERROR_CUDA,
                  "the driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer needed)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(ptr);
  }();
  return fn;
}

CUtensorMapSwizzle swizzle_mode(uint32_t bytes) {
  switch (bytes) {
    case 0: return CU_TENSOR_MAP_SWIZZLE_NONE;
    case 32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64: return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128: return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  HGEMM_THROW(HGEMM_ERROR_INTERNAL, "unsupported TMA swizzle of " + std::to_string(bytes) + " B");
}

// What L2 fetches from DRAM for a TMA box row it misses: 128 bytes, the row of one 128-byte
// swizzle span, and no more. Against 256, calls of at most 16 tokens ran 2.5% faster (the
// swap-AB tiles that stream the weights; NN 17-128 tokens 1.7%), larger ones level (H200,
// docs/notes/2026-11-29-l2-promotion.md).
constexpr CUtensorMapL2promotion kL2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;

CUtensorMap encode(TensorMapKey const& key) {
  CUtensorMap map;
  // One matrix is a 2-D map (the kernel loads it with 2-D boxes), batches a 3-D one.
  const cuuint32_t rank = key.batches > 1 ? 3 : 2;
  const cuuint64_t dims[3] = {key.cols, key.rows, key.batches};
  // Bytes; the innermost stride is implied.
  const uint64_t batch_stride = key.batch_stride;
  const cuuint64_t strides[2] = {key.row_stride * 2, batch_stride * 2};
  const cuuint32_t box[3] = {key.box_cols, key.box_rows, 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUtensorMapDataType type = key.dtype == DType::kBF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                              : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const CUresult r = encode_fn()(&map, type, rank,
                                 const_cast<void*>(key.base), dims, strides, box, element_strides,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_mode(key.swizzle_bytes),
                                 kL2Promotion,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    HGEMM_THROW(HGEMM_ERROR_INTERNAL,
                "cuTensorMapEncodeTiled refused a " + std::to_string(key.batches) + "x" +
                    std::to_string(key.rows) + "x" + std::to_string(key.cols) + " map (strides " +
                    std::to_string(key.row_stride) + ", " + std::to_string(batch_stride) +
                    ", box " + std::to_string(key.box_rows) + "x" + std::to_string(key.box_cols) +
                    ", swizzle " + std::to_string(key.swizzle_bytes) + "): CUresult " +
                    std::to_string(int(r)));
  return map;
}

// A few maps per thread: a GEMM call needs 2 or 3, and callers alternate among a handful of
// buffers. Round-robin replacement; thread_local, so no locking.
constexpr int kCacheEntries = 16;

struct Cache {
  std::array<TensorMapKey, kCacheEntries> keys{};
  std::array<CUtensorMap, kCacheEntries> maps{};
  std::array<bool, kCacheEntries> valid{};
  int next = 0;
};

}  // namespace

CUtensorMap const& tensor_map(TensorMapKey const& key) {
  thread_local Cache cache;
  for (int i = 0; i < kCacheEntries; ++i)
    if (cache.valid[i] && cache.keys[i] == key) return cache.maps[i];
  const int slot = cache.next;
  cache.maps[slot] = encode(key);
  cache.keys[slot] = key;
  cache.valid[slot] = true;
  cache.next = (slot + 1) % kCacheEntries;
  return cache.maps[slot];
}

}  // namespace hgemm::sm90
