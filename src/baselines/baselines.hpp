// cuBLAS and cuBLASLt baselines behind the same callable interface as our kernels
// (verify::GemmFn), so the verifier and every timing mode treat them exactly like hgemm.
//
//   cublas              cublasGemmEx, CUBLAS_GEMM_DEFAULT
//   cublaslt-heuristic  cublasLtMatmul with the first algorithm the heuristic returns
//   cublaslt-autotune   cublasLtMatmul with the fastest of every heuristic candidate (100 asked),
//                       chosen once per shape, layout, accumulation and pointer alignment and
//                       cached for the lifetime of the Baselines object
//
// Settings shared by all: a 32 MiB workspace allocated once (cublasSetWorkspace for cuBLAS, the
// workspace argument for cuBLASLt); compute type matching our accumulation: CUBLAS_COMPUTE_32F
// with fp32 alpha/beta for Accum::kF32, CUBLAS_COMPUTE_16F with fp16 alpha/beta for kF16. Every
// status is checked; a failure throws hgemm::Error.
//
// Row-major mapping: C (M x N, row-major) is the column-major N x M matrix C' = B' * A', so each
// call asks column-major cuBLAS for an N x M x K product with B as the first operand:
//   NN: B is K x N row-major = N x K column-major (ld N): op N, ld N
//   TN: B is N x K row-major = K x N column-major (ld K): op T, ld K
//   A is M x K row-major = K x M column-major (ld K): op N, ld K;  C: ld N
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "hgemm/hgemm.hpp"
#include "verify/verifier.hpp"

namespace hgemm::baselines {

enum class Kind { kCublas, kLtHeuristic, kLtAutotune };
std::string_view to_string(Kind kind);  // "cublas", "cublaslt-heuristic", "cublaslt-autotune"
std::optional<Kind> parse_kind(std::string_view text);

inline constexpr size_t kWorkspaceBytes = size_t(32) << 20;

// The autotuner's pick for one key.
struct AlgoChoice {
  cublasLtMatmulAlgo_t algo{};
  int index = -1;                   // position in the heuristic's list (0 = the heuristic's pick)
  int num_candidates = 0;           // how many the heuristic returned
  std::vector<double> candidate_ms; // per candidate, median ms per call; +inf where it failed
  // "algo 2/8: id 21 tile 18 stages 9 splitk 1, 0.0123 ms"
  std::string describe() const;
};

// Owns a cuBLAS and a cuBLASLt handle, the workspace and the plan cache. Not thread-safe. The
// handles follow the caller's stream; switching streams synchronizes the device once so that the
// shared workspace is never used by two streams at the same time, and is refused while the new
// stream is being captured (call once on the capture stream before capturing).
class Baselines {
 public:
  Baselines();
  ~Baselines();
  Baselines(const Baselines&) = delete;
  Baselines& operator=(const Baselines&) = delete;

  void run(Kind kind, const Problem& problem, const void* a, const void* b, void* c,
           cudaStream_t stream);
  // A callable bound to this object (which must outlive it).
  verify::GemmFn fn(Kind kind);

  // Autotunes this problem (timing each candidate on these buffers, which must be valid for the
  // problem) unless the choice is cached, and returns the choice. Not allowed during capture.
  const AlgoChoice& tune(const Problem& problem, const void* a, const void* b, void* c,
                         cudaStream_t stream);
  // The heuristic's first algorithm for the problem and these pointers' alignment.
  cublasLtMatmulAlgo_t heuristic_algo(const Problem& problem, const void* a, const void* b,
                                      const void* c);

  // A short description of what `kind` runs for this problem ("" for cuBLAS, the algorithm for
  // cuBLASLt): what the benchmark writes to its detail column.
  std::string describe(Kind kind, const Problem& problem, const void* a, const void* b,
                       const void* c);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// cuBLASLt descriptors of the row-major mapping above, for code that calls cublasLtMatmul itself
// (the cross-check in tests/gpu/test_harness.cu builds its own from this description).
cublasComputeType_t compute_type(Accum accum);
cudaDataType_t scale_type(Accum accum);

}  // namespace hgemm::baselines
