// cuBLAS and cuBLASLt baselines behind the same callable interface as our kernels
// (verify::GemmFn), so the verifier and every timing mode treat them exactly like hgemm.
//
//   cublas              cublasGemmEx, CUBLAS_GEMM_DEFAULT
//   cublaslt-heuristic  cublasLtMatmul with the first algorithm the heuristic returns
//   cublaslt-autotune   cublasLtMatmul with the fastest of the heuristic's candidates (100 asked),
//                       timed the way the benchmark times (select() below)
//   cublaslt-best       the faster of cublaslt-autotune's pick and the heuristic's first pick,
//                       timed interleaved: the reference of every bar in this project
//
// select() chooses both under the conditions of the headline measurement, once per shape, layout,
// accumulation, element type, epilogue and batching, cached for the lifetime of the Baselines
// object:
//   1. screen: every candidate in one interleaved graph-mode measurement with short loops, on
//      the benchmark's rotated buffer sets (more than twice the L2 between two uses of a set);
//   2. final: the screen's kScreenKeep fastest and the heuristic's pick, interleaved in graph
//      mode with the caller's timing options (several rounds, median). cublaslt-autotune runs
//      the final's fastest of the screen's picks, cublaslt-best the faster of that one and the
//      heuristic's pick. With few candidates the screen is skipped and all of them are final.
// Graph mode because device time is the headline; a choice made with eager calls on one warm
// buffer set times the host launch on small shapes and the L2 on the rest.
//
// Settings shared by all: a 32 MiB workspace allocated once (cublasSetWorkspace for cuBLAS, the
// workspace argument for cuBLASLt); compute type matching our accumulation: CUBLAS_COMPUTE_32F
// with fp32 alpha/beta for Accum::kF32, CUBLAS_COMPUTE_16F with fp16 alpha/beta for kF16; A, B and
// C of the problem's element type (CUDA_R_16F, or CUDA_R_16BF for bf16, which accumulates in fp32
// only: a bf16 problem with fp16 accumulation is refused by Problem::validate() before any call).
// Every status is checked; a failure throws hgemm::Error.
//
// Epilogue (verify::Epilogue, the same one the verifier applies to its reference): alpha is the
// call's alpha; a bias and an activation become cuBLASLt's CUBLASLT_MATMUL_DESC_EPILOGUE (BIAS,
// RELU, RELU_BIAS, GELU, GELU_BIAS) with CUBLASLT_MATMUL_DESC_BIAS_POINTER, the bias of the
// output's type (the attribute's default). cuBLASLt's GELU is the tanh approximation: cublasLt.h
// says only "GELU", and PyTorch's fused addmm + GELU, which runs on it, is the tanh form
// (pytorch/pytorch#104061 discusses it). So Activation::kGeluTanh maps to it and
// Activation::kGelu, the erf form, is refused. cuBLAS's cublasGemmEx has no epilogue and refuses
// a bias or an activation. Plans and selections are kept per epilogue.
//
// Strided batches (verify::Batch, as hgemm.h's general call takes them): cuBLASLt runs them in one
// call, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT and CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET set on
// all three layouts (A's, B's and C's strides), one bias for every batch
// (CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE 0, as the general call shares it); the heuristic is told
// the alignment every batch's pointers have (the base's, lowered by the strides' bytes). cuBLAS
// runs them through cublasGemmStridedBatchedEx. Plans and selections are kept per batch count and
// strides.
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

#include "bench/timing.hpp"
#include "hgemm/hgemm.hpp"
#include "verify/verifier.hpp"

namespace hgemm::baselines {

enum class Kind { kCublas, kLtHeuristic, kLtAutotune, kLtBest };
// "cublas", "cublaslt-heuristic", "cublaslt-autotune", "cublaslt-best"
std::string_view to_string(Kind kind);
std::optional<Kind> parse_kind(std::string_view text);
inline constexpr Kind kAllKinds[] = {Kind::kCublas, Kind::kLtHeuristic, Kind::kLtAutotune,
                                     Kind::kLtBest};

inline constexpr size_t kWorkspaceBytes = size_t(32) << 20;
inline constexpr int kScreenKeep = 3;  // screen picks re-timed in the final measurement

// The selection logic of select(), apart from the GPU so that it is tested on recorded times.
// Candidate 0 is the heuristic's pick; times are median ms per call, +inf where a call failed.
//
// The final measurement's candidates: the `keep` fastest of the screen (finite times only,
// ties to the lower index), then the heuristic's pick if it is not among them.
std::vector<int> select_finalists(const std::vector<double>& screen_ms, int keep);
struct Picks {
  int autotune = -1;  // candidate index, -1 when every finalist failed
  int best = -1;
};
// `final_ms[i]` is the final time of candidate `finalists[i]`; the first `from_screen`
// finalists came from the screen. autotune: the fastest of those (of any finalist when all of
// them failed); best: the faster of autotune and the heuristic's pick.
Picks choose_algorithms(const std::vector<int>& finalists, const std::vector<double>& final_ms,
                        size_t from_screen);

// What select() measured and chose for one shape, layout, accumulation and element type.
struct Selection {
  std::vector<std::string> candidates;  // each candidate's algorithm, heuristic order
  std::vector<double> screen_ms;        // per candidate; empty when the screen was skipped
  std::vector<int> finalists;
  std::vector<double> final_ms;         // per finalist
  size_t from_screen = 0;
  Picks picks;
  // The detail column of `kind`'s rows, e.g. "cublaslt-best: candidate 2 of 8 (autotune pick;
  // id 21 tile 128x96 stages 64xAUTO splitk 1), final ms: #2 0.0123, #0 0.0131, #5 0.0135"
  std::string describe(Kind kind) const;
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

  // `batch`: one product (the default) or strided batches from a, b and c.
  void run(Kind kind, const Problem& problem, const void* a, const void* b, void* c,
           cudaStream_t stream, const verify::Epilogue& epilogue = {},
           const verify::Batch& batch = {});
  // A callable bound to this object (which must outlive it), to `epilogue` and to `batch`.
  verify::GemmFn fn(Kind kind, const verify::Epilogue& epilogue = {},
                    const verify::Batch& batch = {});

  // Chooses cublaslt-autotune's and cublaslt-best's algorithms for this problem (see the top
  // of this file) unless the choice is cached, and returns it. `buffers` must hold the
  // problem's shape; `timer` times the final measurement with its options, in graph mode, on
  // its stream. Refused during graph capture. run() of those two kinds needs this first.
  // With an epilogue, its bias is the one every candidate reads while it is timed; with batches,
  // `buffers` hold them (bench::RotatingBuffers::prepare's batch) and every candidate runs them.
  const Selection& select(const Problem& problem, bench::Timer& timer,
                          const bench::RotatingBuffers& buffers,
                          const verify::Epilogue& epilogue = {}, const verify::Batch& batch = {});
  // The algorithm a cuBLASLt kind runs for this problem: the heuristic's first for these
  // pointers' alignment, or select()'s pick (throws when select() has not run).
  cublasLtMatmulAlgo_t algorithm(Kind kind, const Problem& problem, const void* a, const void* b,
                                 const void* c, const verify::Epilogue& epilogue = {},
                                 const verify::Batch& batch = {});

  // A short description of what `kind` runs for this problem (the algorithm, for cuBLASLt, and
  // how it was chosen): what the benchmark writes to its detail column.
  std::string describe(Kind kind, const Problem& problem, const void* a, const void* b,
                       const void* c, const verify::Epilogue& epilogue = {},
                       const verify::Batch& batch = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// cuBLASLt descriptors of the row-major mapping above, for code that calls cublasLtMatmul itself
// (the cross-check in tests/gpu/test_harness.cu builds its own from this description).
cublasComputeType_t compute_type(Accum accum);
cudaDataType_t scale_type(Accum accum);
cudaDataType_t data_type(DType dtype);  // of A, B and C
// The cuBLASLt epilogue of `epilogue`'s bias and activation (see the top of this file); throws
// hgemm::Error (HGEMM_ERROR_NOT_SUPPORTED) for the erf GELU, which cuBLASLt does not compute.
cublasLtEpilogue_t lt_epilogue(const verify::Epilogue& epilogue);
std::string_view lt_epilogue_name(cublasLtEpilogue_t epilogue);  // "GELU_BIAS", ...
// The names of cuBLASLt's CUBLASLT_ALGO_CONFIG_TILE_ID and _STAGES_ID values as its header spells
// them ("128x96", "64xAUTO"); empty for a value this build's header does not list. The tile is
// cuBLASLt's rows x columns of its column-major N x M output: N x M of our row-major C.
std::string_view cublaslt_tile_name(uint32_t tile_id);
std::string_view cublaslt_stage_name(uint32_t stages_id);

}  // namespace hgemm::baselines
