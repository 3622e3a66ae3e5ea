// The epilogues `hgemm bench --epilogue` times, and what the benchmark needs around them: the bias
// vector every implementation reads, and the elementwise kernel of the unfused comparison
// (hgemm-unfused: the plain GEMM, then that kernel over C). docs/benchmarking.md, "Epilogues".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

#include "hgemm/hgemm.hpp"
#include "verify/verifier.hpp"

namespace hgemm::bench {

// C = act(A*B + bias), the bias one element per column of C.
enum class EpilogueOp : uint8_t { kNone, kBias, kBiasRelu, kBiasGelu, kRelu, kGelu };
inline constexpr EpilogueOp kAllEpilogueOps[] = {EpilogueOp::kNone,     EpilogueOp::kBias,
                                                 EpilogueOp::kBiasRelu, EpilogueOp::kBiasGelu,
                                                 EpilogueOp::kRelu,     EpilogueOp::kGelu};
// "none", "bias", "bias_relu", "bias_gelu", "relu", "gelu": the option's values and the results
// file's epilogue column.
std::string_view to_string(EpilogueOp op);
std::optional<EpilogueOp> parse_epilogue(std::string_view text);
inline constexpr std::string_view kEpilogueNames = "none, bias, bias_relu, bias_gelu, relu, gelu";

bool has_bias(EpilogueOp op);
// The activation hgemm is asked for. "gelu" is GELU's tanh approximation (Activation::kGeluTanh),
// the function cuBLASLt's GELU epilogues compute (baselines.hpp), so that every implementation of
// a row computes the same function.
Activation activation_of(EpilogueOp op);
// What C becomes, for the results file's header: "A*B", "A*B + bias", "gelu_tanh(A*B + bias)".
std::string formula(EpilogueOp op);

// hgemm's general call for a benchmark problem with `epilogue`: row-major packed A and C, B
// row-major for NN and column-major for TN (packed), beta 0; with `batch`, its count and strides
// (the bias shared by every batch).
GemmDesc general_call(const Problem& problem, const verify::Epilogue& epilogue,
                      const verify::Batch& batch = {});

// The same call with A column-major (stored K x M, packed): what `hgemm-acol` times, the NT and
// TT products of the terms (A transposed).
GemmDesc general_call_a_col(const Problem& problem);

// dst (cols x rows, row-major) = src (rows x cols, row-major) transposed, 2-byte elements, on
// `stream`: how the verifier's row-major A reaches a call that reads A column-major.
void transpose(const void* src, void* dst, int64_t rows, int64_t cols, cudaStream_t stream);

// The benchmark's bias: N elements of device memory, reused across shapes. The verifier writes
// its own values into it before it checks an implementation (verify::Epilogue), so the timings
// read those; either way they are random, finite and of the order of C's.
class DeviceBias {
 public:
  DeviceBias() = default;
  ~DeviceBias();
  DeviceBias(const DeviceBias&) = delete;
  DeviceBias& operator=(const DeviceBias&) = delete;

  // Room for n elements (grown, never shrunk), uniform in [-1, 1] in `dtype`.
  void prepare(int64_t n, uint32_t seed, DType dtype, cudaStream_t stream);
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
  int64_t capacity_ = 0;
};

// C (M x N row-major, packed, `dtype`) = act(C + bias[col]) in place, on `stream`: each element
// read, computed in fp32 and rounded once. 16 bytes per access where C and the bias are 16-byte
// aligned and N is a multiple of 8, one element otherwise. `bias` may be nullptr.
void apply_bias_activation(void* c, DType dtype, int64_t m, int64_t n, const void* bias,
                           Activation activation, cudaStream_t stream);

}  // namespace hgemm::bench
