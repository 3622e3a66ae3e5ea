#include "baselines/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include <cublas_v2.h>
#include <cuda_fp16.h>

#include "core/error.hpp"

namespace hgemm::baselines {
namespace {

constexpr int kAutotuneRequested = 100;
constexpr double kAutotuneSampleMs = 0.3;  // per timed sample of one candidate
constexpr int kAutotuneSamples = 3;

// The largest power of two (up to 256) dividing the address: cuBLASLt's heuristic must know it,
// since an algorithm chosen for 256-byte-aligned operands fails on less-aligned ones.
uint32_t alignment_of(const void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  if (v == 0) return 256;
  return uint32_t(std::min<uintptr_t>(256, v & (~v + 1)));
}

struct PlanKey {
  int64_t m, n, k;
  Layout layout;
  Accum accum;
  uint32_t align_a, align_b, align_c;
  bool operator==(const PlanKey&) const = default;
};

struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t v : {uint64_t(k.m), uint64_t(k.n), uint64_t(k.k), uint64_t(k.layout),
                       uint64_t(k.accum), uint64_t(k.align_a), uint64_t(k.align_b),
                       uint64_t(k.align_c)})
      h = (h ^ v) * 1099511628211ull;
    return size_t(h);
  }
};

// The descriptors of one key, built once. `first` describes B (cuBLAS's A operand), `second`
// describes A (cuBLAS's B operand); see the mapping in baselines.hpp.
struct Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t first = nullptr;
  cublasLtMatrixLayout_t second = nullptr;
  cublasLtMatrixLayout_t out = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> candidates;  // filled on first use
  bool queried = false;
  std::optional<AlgoChoice> tuned;

  ~Plan() {
    if (preference) cublasLtMatmulPreferenceDestroy(preference);
    if (out) cublasLtMatrixLayoutDestroy(out);
    if (second) cublasLtMatrixLayoutDestroy(second);
    if (first) cublasLtMatrixLayoutDestroy(first);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

std::string describe_algo(const cublasLtMatmulAlgo_t& algo) {
  int32_t id = -1;
  uint32_t tile = 0, stages = 0, splitk = 0;
  size_t written = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile,
                                       &written);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages,
                                       sizeof stages, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk,
                                       sizeof splitk, &written);
  return "id " + std::to_string(id) + " tile " + std::to_string(tile) + " stages " +
         std::to_string(stages) + " splitk " + std::to_string(splitk);
}

}  // namespace

std::string_view to_string(Kind kind) {
  switch (kind) {
    case Kind::kCublas: return "cublas";
    case Kind::kLtHeuristic: return "cublaslt-heuristic";
    case Kind::kLtAutotune: return "cublaslt-autotune";
  }
  return "?";
}

std::optional<Kind> parse_kind(std::string_view text) {
  for (Kind k : {Kind::kCublas, Kind::kLtHeuristic, Kind::kLtAutotune})
    if (text == to_string(k)) return k;
  return std::nullopt;
}

cublasComputeType_t compute_type(Accum accum) {
  return accum == Accum::kF16 ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F;
}

cudaDataType_t scale_type(Accum accum) {
  return accum == Accum::kF16 ? CUDA_R_16F : CUDA_R_32F;
}

std::string AlgoChoice::describe() const {
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.4g ms", index >= 0 ? candidate_ms[size_t(index)] : 0.0);
  return "algo " + std::to_string(index) + "/" + std::to_string(num_candidates) + ": " +
         describe_algo(algo) + ", " + ms;
}

struct Baselines::Impl {
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  void* workspace = nullptr;
  cudaStream_t stream = nullptr;
  bool bound = false;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  std::unordered_map<PlanKey, std::unique_ptr<Plan>, PlanKeyHash> plans;
  const float f32_one = 1.0f;
  const float f32_zero = 0.0f;
  const __half f16_one = __float2half(1.0f);
  const __half f16_zero = __float2half(0.0f);

  const void* alpha(Accum a) const {
    return a == Accum::kF16 ? static_cast<const void*>(&f16_one) : &f32_one;
  }
  const void* beta(Accum a) const {
    return a == Accum::kF16 ? static_cast<const void*>(&f16_zero) : &f32_zero;
  }

  // The handles and the shared workspace follow the caller's stream (see the class comment).
  void bind(cudaStream_t s) {
    if (bound && s == stream) return;
    if (bound) {
      cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
      HGEMM_CUDA_CHECK(cudaStreamIsCapturing(s, &status));
      HGEMM_REQUIRE(status == cudaStreamCaptureStatusNone, HGEMM_ERROR_NOT_SUPPORTED,
                    "baseline called on a new stream during graph capture: call it once on the "
                    "capture stream before capturing");
      HGEMM_CUDA_CHECK(cudaDeviceSynchronize());
    }
    // cublasSetStream resets the workspace to cuBLAS's own pool, so ours is set after it.
    HGEMM_CUBLAS_CHECK(cublasSetStream(blas, s));
    HGEMM_CUBLAS_CHECK(cublasSetWorkspace(blas, workspace, kWorkspaceBytes));
    stream = s;
    bound = true;
  }

  Plan& plan(const Problem& p, const void* a, const void* b, const void* c) {
    const PlanKey key{p.m, p.n, p.k, p.layout, p.accum, alignment_of(a), alignment_of(b),
                      alignment_of(c)};
    auto it = plans.find(key);
    if (it != plans.end()) return *it->second;
    auto plan = std::make_unique<Plan>();
    const cublasOperation_t op_first = p.layout == Layout::kTN ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_second = CUBLAS_OP_N;
    HGEMM_CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan->op, compute_type(p.accum),
                                                scale_type(p.accum)));
    HGEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA,
                                                      &op_first, sizeof op_first));
    HGEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB,
                                                      &op_second, sizeof op_second));
    // Layouts describe the stored (untransposed) column-major matrices.
    if (p.layout == Layout::kTN) {
      HGEMM_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->first, CUDA_R_16F, uint64_t(p.k),
                                                    uint64_t(p.n), p.k));
    } else {
      HGEMM_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->first, CUDA_R_16F, uint64_t(p.n),
                                                    uint64_t(p.k), p.n));
    }
    HGEMM_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->second, CUDA_R_16F, uint64_t(p.k),
                                                  uint64_t(p.m), p.k));
    HGEMM_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->out, CUDA_R_16F, uint64_t(p.n),
                                                  uint64_t(p.m), p.n));
    HGEMM_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&plan->preference));
    const uint64_t workspace_bytes = kWorkspaceBytes;
    HGEMM_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
        plan->preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
        sizeof workspace_bytes));
    const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.align_b},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.align_a},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.align_c},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.align_c}};
    for (const auto& [attr, bytes] : aligns)
      HGEMM_CUBLAS_CHECK(
          cublasLtMatmulPreferenceSetAttribute(plan->preference, attr, &bytes, sizeof bytes));
    Plan& ref = *plan;
    plans.emplace(key, std::move(plan));
    return ref;
  }

  // The heuristic's candidates, asked once per plan: 100 are requested, and the first is the
  // heuristic baseline's algorithm.
  const std::vector<cublasLtMatmulHeuristicResult_t>& candidates(Plan& plan, const Problem& p) {
    if (plan.queried) return plan.candidates;
    std::vector<cublasLtMatmulHeuristicResult_t> results(kAutotuneRequested);
    int returned = 0;
    HGEMM_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, plan.op, plan.first, plan.second,
                                                      plan.out, plan.out, plan.preference,
                                                      kAutotuneRequested, results.data(),
                                                      &returned));
    for (int i = 0; i < returned; ++i)
      if (results[size_t(i)].state == CUBLAS_STATUS_SUCCESS)
        plan.candidates.push_back(results[size_t(i)]);
    plan.queried = true;
    HGEMM_REQUIRE(!plan.candidates.empty(), HGEMM_ERROR_NOT_SUPPORTED,
                  "cuBLASLt has no algorithm for " + p.name());
    return plan.candidates;
  }

  cublasStatus_t lt_call(Plan& plan, const cublasLtMatmulAlgo_t& algo, const Problem& p,
                         const void* a, const void* b, void* c, cudaStream_t s) {
    return cublasLtMatmul(lt, plan.op, alpha(p.accum), b, plan.first, a, plan.second,
                          beta(p.accum), c, plan.out, c, plan.out, &algo, workspace,
                          kWorkspaceBytes, s);
  }

  void cublas_call(const Problem& p, const void* a, const void* b, void* c) {
    const cublasOperation_t op_first = p.layout == Layout::kTN ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int ld_first = int(p.layout == Layout::kTN ? p.k : p.n);
    HGEMM_CUBLAS_CHECK(cublasGemmEx(blas, op_first, CUBLAS_OP_N, int(p.n), int(p.m), int(p.k),
                                    alpha(p.accum), b, CUDA_R_16F, ld_first, a, CUDA_R_16F,
                                    int(p.k), beta(p.accum), c, CUDA_R_16F, int(p.n),
                                    compute_type(p.accum), CUBLAS_GEMM_DEFAULT));
  }

  // Median ms per call of one candidate, or +inf when cuBLASLt refuses it.
  double time_candidate(Plan& plan, const cublasLtMatmulAlgo_t& algo, const Problem& p,
                        const void* a, const void* b, void* c, cudaStream_t s) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (lt_call(plan, algo, p, a, b, c, s) != CUBLAS_STATUS_SUCCESS) return kInf;
    HGEMM_CUDA_CHECK(cudaEventRecord(start, s));
    if (lt_call(plan, algo, p, a, b, c, s) != CUBLAS_STATUS_SUCCESS) return kInf;
    HGEMM_CUDA_CHECK(cudaEventRecord(stop, s));
    HGEMM_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    HGEMM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    const int reps = int(std::clamp(std::ceil(kAutotuneSampleMs / std::max(double(ms), 1e-4)),
                                    1.0, 200.0));
    std::vector<double> samples;
    for (int i = 0; i < kAutotuneSamples; ++i) {
      HGEMM_CUDA_CHECK(cudaEventRecord(start, s));
      for (int r = 0; r < reps; ++r)
        if (lt_call(plan, algo, p, a, b, c, s) != CUBLAS_STATUS_SUCCESS) return kInf;
      HGEMM_CUDA_CHECK(cudaEventRecord(stop, s));
      HGEMM_CUDA_CHECK(cudaEventSynchronize(stop));
      HGEMM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      samples.push_back(double(ms) / reps);
    }
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
  }
};

Baselines::Baselines() : impl_(std::make_unique<Impl>()) {
  HGEMM_CUBLAS_CHECK(cublasCreate(&impl_->blas));
  HGEMM_CUBLAS_CHECK(cublasLtCreate(&impl_->lt));
  HGEMM_CUDA_CHECK(cudaMalloc(&impl_->workspace, kWorkspaceBytes));
  HGEMM_CUDA_CHECK(cudaEventCreate(&impl_->start));
  HGEMM_CUDA_CHECK(cudaEventCreate(&impl_->stop));
}

Baselines::~Baselines() {
  if (!impl_) return;
  // The workspace may still be in use by queued work; the bound stream may already be
  // destroyed by its owner, so the whole device is synchronized instead.
  if (impl_->bound) cudaDeviceSynchronize();
  impl_->plans.clear();
  if (impl_->stop) cudaEventDestroy(impl_->stop);
  if (impl_->start) cudaEventDestroy(impl_->start);
  if (impl_->workspace) cudaFree(impl_->workspace);
  if (impl_->lt) cublasLtDestroy(impl_->lt);
  if (impl_->blas) cublasDestroy(impl_->blas);
}

void Baselines::run(Kind kind, const Problem& problem, const void* a, const void* b, void* c,
                    cudaStream_t stream) {
  if (Status s = problem.validate(); !s.ok()) throw Error(s.code, s.message);
  HGEMM_REQUIRE(a && b && c, HGEMM_ERROR_NULL_POINTER, "null pointer passed to a baseline");
  Impl& im = *impl_;
  im.bind(stream);
  if (kind == Kind::kCublas) {
    im.cublas_call(problem, a, b, c);
    return;
  }
  Plan& plan = im.plan(problem, a, b, c);
  const cublasLtMatmulAlgo_t* algo = nullptr;
  if (kind == Kind::kLtHeuristic) {
    algo = &im.candidates(plan, problem).front().algo;
  } else {
    if (!plan.tuned) tune(problem, a, b, c, stream);
    algo = &plan.tuned->algo;
  }
  HGEMM_CUBLAS_CHECK(im.lt_call(plan, *algo, problem, a, b, c, stream));
}

verify::GemmFn Baselines::fn(Kind kind) {
  return [this, kind](const Problem& p, const void* a, const void* b, void* c, cudaStream_t s) {
    run(kind, p, a, b, c, s);
  };
}

const AlgoChoice& Baselines::tune(const Problem& problem, const void* a, const void* b, void* c,
                                  cudaStream_t stream) {
  if (Status s = problem.validate(); !s.ok()) throw Error(s.code, s.message);
  Impl& im = *impl_;
  Plan& plan = im.plan(problem, a, b, c);
  if (plan.tuned) return *plan.tuned;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  HGEMM_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  HGEMM_REQUIRE(status == cudaStreamCaptureStatusNone, HGEMM_ERROR_NOT_SUPPORTED,
                "cuBLASLt autotuning of " + problem.name() +
                    " cannot run during graph capture: call it once before capturing");
  im.bind(stream);
  const auto& candidates = im.candidates(plan, problem);
  AlgoChoice choice;
  choice.num_candidates = int(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    const double ms = im.time_candidate(plan, candidates[i].algo, problem, a, b, c, stream);
    choice.candidate_ms.push_back(ms);
    if (std::isfinite(ms) && (choice.index < 0 || ms < choice.candidate_ms[size_t(choice.index)]))
      choice.index = int(i);
  }
  HGEMM_REQUIRE(choice.index >= 0, HGEMM_ERROR_NOT_SUPPORTED,
                "every cuBLASLt candidate failed for " + problem.name());
  choice.algo = candidates[size_t(choice.index)].algo;
  plan.tuned = std::move(choice);
  return *plan.tuned;
}

cublasLtMatmulAlgo_t Baselines::heuristic_algo(const Problem& problem, const void* a,
                                               const void* b, const void* c) {
  Plan& plan = impl_->plan(problem, a, b, c);
  return impl_->candidates(plan, problem).front().algo;
}

std::string Baselines::describe(Kind kind, const Problem& problem, const void* a, const void* b,
                                const void* c) {
  const char* compute = problem.accum == Accum::kF16 ? "COMPUTE_16F" : "COMPUTE_32F";
  if (kind == Kind::kCublas) return std::string("cublasGemmEx ") + compute;
  Plan& plan = impl_->plan(problem, a, b, c);
  if (kind == Kind::kLtHeuristic) {
    const auto& candidates = impl_->candidates(plan, problem);
    return std::string(compute) + " heuristic " + describe_algo(candidates.front().algo) +
           " (of " + std::to_string(candidates.size()) + ")";
  }
  return std::string(compute) + " " + (plan.tuned ? plan.tuned->describe() : "not tuned yet");
}

}  // namespace hgemm::baselines
