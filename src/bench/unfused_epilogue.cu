// The unfused comparison's second kernel: C = act(C + bias[col]) in place over a packed row-major
// C, the way a framework runs a bias and an activation after a GEMM that has no epilogue. It is
// memory-bound (one read and one write of C, the bias from L2), so what matters is full 16-byte
// accesses and enough of them in flight: a grid-stride loop over 8-element chunks, as many
// 256-thread blocks as fill every SM.
#include "bench/epilogue.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "bench/timing.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "kernels/common/epilogue.cuh"

namespace hgemm::bench {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;  // 2048 resident threads per SM on sm_80 and sm_90
constexpr int kChunk = 8;        // elements of 2 bytes in one 16-byte access

// The runtime's epilogue functions (kernels/common/epilogue.cuh), so that the separate kernel
// computes what the fused epilogue computes, with tanhf for the tanh GELU (the fused one uses
// the special-function unit's tanh).
using kernels::activate;
using kernels::from_float;
using kernels::to_float;

// Element (or chunk) i of C is in column i mod row_len. The loop advances i by the grid's stride,
// so the column advances by stride mod row_len, wrapped once: no division inside the loop.
template <DType kType, Activation kAct, bool kBias>
__global__ void __launch_bounds__(kThreads)
    bias_activation_chunks(uint4* c, const uint4* bias, int64_t count, int64_t row_len,
                           int64_t column_step) {
  const int64_t stride = int64_t(gridDim.x) * kThreads;
  int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x;
  int64_t column = i % row_len;
  for (; i < count; i += stride) {
    __align__(16) uint16_t v[kChunk];
    *reinterpret_cast<uint4*>(v) = c[i];
    [[maybe_unused]] __align__(16) uint16_t b[kChunk];
    if constexpr (kBias) *reinterpret_cast<uint4*>(b) = bias[column];
#pragma unroll
    for (int e = 0; e < kChunk; ++e) {
      float x = to_float<kType>(v[e]);
      if constexpr (kBias) x += to_float<kType>(b[e]);
      v[e] = from_float<kType>(activate<kAct>(x));
    }
    c[i] = *reinterpret_cast<const uint4*>(v);
    column += column_step;
    if (column >= row_len) column -= row_len;
  }
}

template <DType kType, Activation kAct, bool kBias>
__global__ void __launch_bounds__(kThreads)
    bias_activation_elements(uint16_t* c, const uint16_t* bias, int64_t count, int64_t row_len,
                             int64_t column_step) {
  const int64_t stride = int64_t(gridDim.x) * kThreads;
  int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x;
  int64_t column = i % row_len;
  for (; i < count; i += stride) {
    float x = to_float<kType>(c[i]);
    if constexpr (kBias) x += to_float<kType>(bias[column]);
    c[i] = from_float<kType>(activate<kAct>(x));
    column += column_step;
    if (column >= row_len) column -= row_len;
  }
}

template <DType kType, Activation kAct, bool kBias>
void launch(void* c, int64_t m, int64_t n, const void* bias, cudaStream_t stream) {
  const bool chunked = n % kChunk == 0 && reinterpret_cast<uintptr_t>(c) % 16 == 0 &&
                       reinterpret_cast<uintptr_t>(bias) % 16 == 0;
  const int64_t row_len = chunked ? n / kChunk : n;
  const int64_t count = m * row_len;
  const int64_t max_blocks = int64_t(current_device().sm_count) * kBlocksPerSm;
  const int64_t blocks = std::clamp<int64_t>((count + kThreads - 1) / kThreads, 1, max_blocks);
  const int64_t column_step = (blocks * kThreads) % row_len;
  if (chunked)
    bias_activation_chunks<kType, kAct, kBias><<<unsigned(blocks), kThreads, 0, stream>>>(
        static_cast<uint4*>(c), static_cast<const uint4*>(bias), count, row_len, column_step);
  else
    bias_activation_elements<kType, kAct, kBias><<<unsigned(blocks), kThreads, 0, stream>>>(
        static_cast<uint16_t*>(c), static_cast<const uint16_t*>(bias), count, row_len,
        column_step);
  HGEMM_LAUNCH_CHECK();
}

template <DType kType, Activation kAct>
void launch_with_bias(void* c, int64_t m, int64_t n, const void* bias, cudaStream_t stream) {
  if (bias)
    launch<kType, kAct, true>(c, m, n, bias, stream);
  else
    launch<kType, kAct, false>(c, m, n, bias, stream);
}

template <DType kType>
void launch_with_activation(void* c, int64_t m, int64_t n, const void* bias,
                            Activation activation, cudaStream_t stream) {
  switch (activation) {
    case Activation::kNone:
      return launch_with_bias<kType, Activation::kNone>(c, m, n, bias, stream);
    case Activation::kRelu:
      return launch_with_bias<kType, Activation::kRelu>(c, m, n, bias, stream);
    case Activation::kGelu:
      return launch_with_bias<kType, Activation::kGelu>(c, m, n, bias, stream);
    case Activation::kGeluTanh:
      return launch_with_bias<kType, Activation::kGeluTanh>(c, m, n, bias, stream);
  }
  HGEMM_THROW(HGEMM_ERROR_INVALID_ENUM, "unknown activation " + std::to_string(int(activation)));
}

}  // namespace

void apply_bias_activation(void* c, DType dtype, int64_t m, int64_t n, const void* bias,
                           Activation activation, cudaStream_t stream) {
  HGEMM_REQUIRE(c != nullptr, HGEMM_ERROR_NULL_POINTER, "apply_bias_activation: C is null");
  HGEMM_REQUIRE(m > 0 && n > 0, HGEMM_ERROR_INVALID_SIZE,
                "apply_bias_activation: M and N must be positive");
  if (dtype == DType::kBF16)
    launch_with_activation<DType::kBF16>(c, m, n, bias, activation, stream);
  else
    launch_with_activation<DType::kF16>(c, m, n, bias, activation, stream);
}

DeviceBias::~DeviceBias() {
  if (data_) cudaFree(data_);
}

void DeviceBias::prepare(int64_t n, uint32_t seed, DType dtype, cudaStream_t stream) {
  if (n > capacity_) {
    if (data_) HGEMM_CUDA_CHECK(cudaFree(data_));
    data_ = nullptr;
    capacity_ = 0;
    HGEMM_CUDA_CHECK(cudaMalloc(&data_, size_t(n) * 2));
    capacity_ = n;
  }
  fill_uniform(data_, n, seed, stream, dtype);
  // The verifier writes the bias on its own stream next: the fill must not land after it.
  HGEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
}

namespace {

// One 32 x 32 tile per block through shared memory, so that reads and writes both run along rows.
__global__ void transpose_kernel(const uint16_t* __restrict__ src, uint16_t* __restrict__ dst,
                                 int64_t rows, int64_t cols) {
  __shared__ uint16_t tile[32][33];
  const int64_t r0 = int64_t(blockIdx.y) * 32, c0 = int64_t(blockIdx.x) * 32;
  for (int i = threadIdx.y; i < 32; i += blockDim.y) {
    const int64_t r = r0 + i, c = c0 + threadIdx.x;
    if (r < rows && c < cols) tile[i][threadIdx.x] = src[r * cols + c];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < 32; i += blockDim.y) {
    const int64_t c = c0 + i, r = r0 + threadIdx.x;
    if (r < rows && c < cols) dst[c * rows + r] = tile[threadIdx.x][i];
  }
}

}  // namespace

void transpose(const void* src, void* dst, int64_t rows, int64_t cols, cudaStream_t stream) {
  const dim3 grid(unsigned((cols + 31) / 32), unsigned((rows + 31) / 32));
  transpose_kernel<<<grid, dim3(32, 8), 0, stream>>>(static_cast<const uint16_t*>(src),
                                                     static_cast<uint16_t*>(dst), rows, cols);
  HGEMM_CUDA_CHECK(cudaGetLastError());
}

}  // namespace hgemm::bench
