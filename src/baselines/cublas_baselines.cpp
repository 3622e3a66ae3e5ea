#include "baselines/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>

#include <cublas_v2.h>
#include <cuda_fp16.h>

#include "baselines/cublas_error.hpp"
#include "core/error.hpp"

namespace hgemm::baselines {
namespace {

constexpr int kAutotuneRequested = 100;
// The screen ranks the candidates; only the final measurement decides, so its loops are short.
constexpr double kScreenLoopMs = 0.25;
constexpr int kScreenLoops = 3;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The largest power of two (up to 256) dividing the address: cuBLASLt's heuristic must know it,
// since an algorithm chosen for 256-byte-aligned operands fails on less-aligned ones.
uint32_t alignment_of(const void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  if (v == 0) return 256;
  return uint32_t(std::min<uintptr_t>(256, v & (~v + 1)));
}

// The alignment every batch's pointer has: the base's, and with batches no more than the stride's
// bytes allow (batch i starts i * stride elements further on).
uint32_t batch_alignment(const void* p, int64_t stride, int64_t count) {
  const uint32_t base = alignment_of(p);
  if (count <= 1 || stride == 0) return base;
  return std::min(base, alignment_of(reinterpret_cast<const void*>(uintptr_t(stride) * 2)));
}

struct PlanKey {
  int64_t m, n, k;
  Layout layout;
  Accum accum;
  DType dtype;
  cublasLtEpilogue_t epilogue;
  int64_t batch_count, stride_a, stride_b, stride_c;  // strides 0 for one product
  uint32_t align_a, align_b, align_c, align_bias;
  bool operator==(const PlanKey&) const = default;
};

uint64_t fnv1a(std::initializer_list<uint64_t> values) {
  uint64_t h = 1469598103934665603ull;
  for (uint64_t v : values) h = (h ^ v) * 1099511628211ull;
  return h;
}

struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    return size_t(fnv1a({uint64_t(k.m), uint64_t(k.n), uint64_t(k.k), uint64_t(k.layout),
                         uint64_t(k.accum), uint64_t(k.dtype), uint64_t(k.epilogue),
                         uint64_t(k.batch_count), uint64_t(k.stride_a), uint64_t(k.stride_b),
                         uint64_t(k.stride_c), uint64_t(k.align_a), uint64_t(k.align_b),
                         uint64_t(k.align_c), uint64_t(k.align_bias)}));
  }
};

// A selection holds for every pointer alignment: it is made on the benchmark's 256-byte aligned
// buffer sets, and cuBLASLt refuses (never miscomputes) an algorithm that needs more alignment
// than a later call's pointers have.
struct SelectionKey {
  int64_t m, n, k;
  Layout layout;
  Accum accum;
  DType dtype;
  cublasLtEpilogue_t epilogue;
  int64_t batch_count, stride_a, stride_b, stride_c;  // a selection holds for one batching only
  bool operator==(const SelectionKey&) const = default;
};

struct SelectionKeyHash {
  size_t operator()(const SelectionKey& k) const {
    return size_t(fnv1a({uint64_t(k.m), uint64_t(k.n), uint64_t(k.k), uint64_t(k.layout),
                         uint64_t(k.accum), uint64_t(k.dtype), uint64_t(k.epilogue),
                         uint64_t(k.batch_count), uint64_t(k.stride_a), uint64_t(k.stride_b),
                         uint64_t(k.stride_c)}));
  }
};

struct Chosen {
  Selection selection;
  cublasLtMatmulAlgo_t autotune{};
  cublasLtMatmulAlgo_t best{};
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
  const void* bias = nullptr;  // what CUBLASLT_MATMUL_DESC_BIAS_POINTER holds now

  ~Plan() {
    if (preference) cublasLtMatmulPreferenceDestroy(preference);
    if (out) cublasLtMatrixLayoutDestroy(out);
    if (second) cublasLtMatrixLayoutDestroy(second);
    if (first) cublasLtMatrixLayoutDestroy(first);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

struct EnumName {
  uint32_t value;
  std::string_view name;
};

// Every value the header lists, behind a first entry so that the arrays are never empty.
constexpr EnumName kTileNames[] = {
    {0, "UNDEFINED"},
#include "cublaslt_tile_names.inc"
};
constexpr EnumName kStageNames[] = {
    {0, "UNDEFINED"},
#include "cublaslt_stage_names.inc"
};

template <size_t N>
std::string_view find_name(const EnumName (&names)[N], uint32_t value) {
  for (EnumName const& e : names)
    if (e.value == value) return e.name;
  return {};
}

// A name where the header has one, else the number.
std::string name_or_number(std::string_view name, uint32_t value) {
  return name.empty() ? std::to_string(value) : std::string(name);
}

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
  // Algorithms that do not split K report the attribute as all ones.
  const std::string splits = splitk == UINT32_MAX ? "n/a" : std::to_string(splitk);
  return "id " + std::to_string(id) + " tile " + name_or_number(cublaslt_tile_name(tile), tile) +
         " stages " + name_or_number(cublaslt_stage_name(stages), stages) + " splitk " + splits;
}

}  // namespace

std::string_view cublaslt_tile_name(uint32_t tile_id) { return find_name(kTileNames, tile_id); }

std::string_view cublaslt_stage_name(uint32_t stages_id) {
  return find_name(kStageNames, stages_id);
}

std::string_view to_string(Kind kind) {
  switch (kind) {
    case Kind::kCublas: return "cublas";
    case Kind::kLtHeuristic: return "cublaslt-heuristic";
    case Kind::kLtAutotune: return "cublaslt-autotune";
    case Kind::kLtBest: return "cublaslt-best";
  }
  return "?";
}

std::optional<Kind> parse_kind(std::string_view text) {
  for (Kind k : kAllKinds)
    if (text == to_string(k)) return k;
  return std::nullopt;
}

std::vector<int> select_finalists(const std::vector<double>& screen_ms, int keep) {
  std::vector<int> order;
  for (size_t i = 0; i < screen_ms.size(); ++i)
    if (std::isfinite(screen_ms[i])) order.push_back(int(i));
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return screen_ms[size_t(a)] < screen_ms[size_t(b)]; });
  if (order.size() > size_t(std::max(keep, 0))) order.resize(size_t(std::max(keep, 0)));
  if (!screen_ms.empty() && std::find(order.begin(), order.end(), 0) == order.end())
    order.push_back(0);
  return order;
}

Picks choose_algorithms(const std::vector<int>& finalists, const std::vector<double>& final_ms,
                        size_t from_screen) {
  HGEMM_REQUIRE(finalists.size() == final_ms.size() && from_screen <= finalists.size(),
                HGEMM_ERROR_INTERNAL, "choose_algorithms: finalists and times differ in length");
  auto fastest = [&](size_t end) {
    int pick = -1;
    for (size_t i = 0; i < end; ++i)
      if (std::isfinite(final_ms[i]) && (pick < 0 || final_ms[i] < final_ms[size_t(pick)]))
        pick = int(i);
    return pick;
  };
  int autotune = fastest(from_screen);
  if (autotune < 0) autotune = fastest(finalists.size());
  Picks picks;
  if (autotune < 0) return picks;
  int best = autotune;
  for (size_t i = 0; i < finalists.size(); ++i)
    if (finalists[i] == 0 && std::isfinite(final_ms[i]) &&
        final_ms[i] < final_ms[size_t(best)])
      best = int(i);
  picks.autotune = finalists[size_t(autotune)];
  picks.best = finalists[size_t(best)];
  return picks;
}

std::string Selection::describe(Kind kind) const {
  const int pick = kind == Kind::kLtBest ? picks.best : picks.autotune;
  if (pick < 0 || size_t(pick) >= candidates.size()) return "no algorithm chosen";
  std::string why = pick == 0 ? "the heuristic's pick" : "the autotune pick";
  if (kind == Kind::kLtBest && pick == picks.autotune && pick == 0)
    why = "the heuristic's and the autotune pick";
  std::string out = "candidate " + std::to_string(pick) + " of " +
                    std::to_string(candidates.size()) + ", " + why + " (" +
                    candidates[size_t(pick)] + "); graph ms";
  char buf[48];
  for (size_t i = 0; i < finalists.size(); ++i) {
    std::snprintf(buf, sizeof buf, " #%d %.4g", finalists[i], final_ms[i]);
    out += buf;
  }
  if (screen_ms.empty()) out += " (all candidates final)";
  return out;
}

cublasComputeType_t compute_type(Accum accum) {
  return accum == Accum::kF16 ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F;
}

cudaDataType_t scale_type(Accum accum) {
  return accum == Accum::kF16 ? CUDA_R_16F : CUDA_R_32F;
}

cudaDataType_t data_type(DType dtype) {
  return dtype == DType::kBF16 ? CUDA_R_16BF : CUDA_R_16F;
}

cublasLtEpilogue_t lt_epilogue(const verify::Epilogue& epilogue) {
  const bool bias = epilogue.bias != nullptr;
  switch (epilogue.activation) {
    case Activation::kNone: return bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
    case Activation::kRelu: return bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
    case Activation::kGeluTanh: return bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
    case Activation::kGelu:
      HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED,
                  "cuBLASLt's GELU epilogues compute the tanh approximation; it has none for "
                  "the erf form (Activation::kGelu): ask for Activation::kGeluTanh");
  }
  HGEMM_THROW(HGEMM_ERROR_INVALID_ENUM,
              "unknown activation " + std::to_string(int(epilogue.activation)));
}

std::string_view lt_epilogue_name(cublasLtEpilogue_t epilogue) {
  switch (epilogue) {
    case CUBLASLT_EPILOGUE_DEFAULT: return "DEFAULT";
    case CUBLASLT_EPILOGUE_BIAS: return "BIAS";
    case CUBLASLT_EPILOGUE_RELU: return "RELU";
    case CUBLASLT_EPILOGUE_RELU_BIAS: return "RELU_BIAS";
    case CUBLASLT_EPILOGUE_GELU: return "GELU";
    case CUBLASLT_EPILOGUE_GELU_BIAS: return "GELU_BIAS";
    default: return "other";
  }
}

// alpha and beta (0) in the scale type of the accumulation, read by cuBLAS during the call (host
// pointer mode; a captured call keeps the values).
class Scalars {
 public:
  Scalars(Accum accum, float alpha)
      : f16_(accum == Accum::kF16),
        f32_alpha_(alpha),
        f16_alpha_(__float2half(alpha)),
        f16_zero_(__float2half(0.0f)) {}
  const void* alpha() const { return f16_ ? static_cast<const void*>(&f16_alpha_) : &f32_alpha_; }
  const void* beta() const { return f16_ ? static_cast<const void*>(&f16_zero_) : &f32_zero_; }

 private:
  bool f16_;
  float f32_alpha_;
  float f32_zero_ = 0.0f;
  __half f16_alpha_;
  __half f16_zero_;
};

struct Baselines::Impl {
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  void* workspace = nullptr;
  cudaStream_t stream = nullptr;
  bool bound = false;
  std::unordered_map<PlanKey, std::unique_ptr<Plan>, PlanKeyHash> plans;
  std::unordered_map<SelectionKey, Chosen, SelectionKeyHash> selections;

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

  Plan& plan(const Problem& p, const void* a, const void* b, const void* c,
             const verify::Epilogue& epi, const verify::Batch& batch) {
    const cublasLtEpilogue_t epilogue = lt_epilogue(epi);
    const bool batched = batch.batched();
    const PlanKey key{p.m,
                      p.n,
                      p.k,
                      p.layout,
                      p.accum,
                      p.dtype,
                      epilogue,
                      batch.count,
                      batched ? batch.stride_a : 0,
                      batched ? batch.stride_b : 0,
                      batched ? batch.stride_c : 0,
                      batch_alignment(a, batch.stride_a, batch.count),
                      batch_alignment(b, batch.stride_b, batch.count),
                      batch_alignment(c, batch.stride_c, batch.count),
                      epi.bias ? alignment_of(epi.bias) : 0};
    auto it = plans.find(key);
    if (it != plans.end()) {
      set_bias(*it->second, epi.bias);
      return *it->second;
    }
    auto plan = std::make_unique<Plan>();
    const cublasOperation_t op_first = p.layout == Layout::kTN ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_second = CUBLAS_OP_N;
    HGEMM_CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan->op, compute_type(p.accum),
                                                scale_type(p.accum)));
    HGEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA,
                                                      &op_first, sizeof op_first));
    HGEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB,
                                                      &op_second, sizeof op_second));
    // The bias is one element per row of the column-major N x M output, i.e. per column of our
    // row-major C, of the output's type (CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE's default). The
    // heuristic reads the pointer's alignment, so it is set before the heuristic is asked.
    if (epilogue != CUBLASLT_EPILOGUE_DEFAULT)
      HGEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                        &epilogue, sizeof epilogue));
    set_bias(*plan, epi.bias);
    // Layouts describe the stored (untransposed) column-major matrices.
    const cudaDataType_t type = data_type(p.dtype);
    if (p.layout == Layout::kTN) {
      HGEMM_CUBLAS_CHECK(
          cublasLtMatrixLayoutCreate(&plan->first, type, uint64_t(p.k), uint64_t(p.n), p.k));
    } else {
      HGEMM_CUBLAS_CHECK(
          cublasLtMatrixLayoutCreate(&plan->first, type, uint64_t(p.n), uint64_t(p.k), p.n));
    }
    HGEMM_CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&plan->second, type, uint64_t(p.k), uint64_t(p.m), p.k));
    HGEMM_CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&plan->out, type, uint64_t(p.n), uint64_t(p.m), p.n));
    if (batched) {
      // cuBLAS's first operand is our B, its second our A (the mapping above); C is C.
      const int32_t count = int32_t(batch.count);
      const std::pair<cublasLtMatrixLayout_t, int64_t> strided[] = {{plan->first, batch.stride_b},
                                                                    {plan->second, batch.stride_a},
                                                                    {plan->out, batch.stride_c}};
      for (const auto& [layout, stride] : strided) {
        HGEMM_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
            layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
        HGEMM_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
            layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
      }
      // One bias for every batch, as hgemm.h's general call shares it (also the default).
      if (epi.bias) {
        const int64_t bias_stride = 0;
        HGEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(
            plan->op, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &bias_stride, sizeof bias_stride));
      }
    }
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

  // A plan's descriptor holds one bias pointer; a call with another (the verifier's buffer, then
  // the benchmark's) changes it. Host-side only, so it is safe between captured calls: each
  // captured cublasLtMatmul has read the descriptor when it was enqueued.
  static void set_bias(Plan& plan, const void* bias) {
    if (!bias || bias == plan.bias) return;
    HGEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                      &bias, sizeof bias));
    plan.bias = bias;
  }

  cublasStatus_t lt_call(Plan& plan, const cublasLtMatmulAlgo_t& algo, const Problem& p,
                         const void* a, const void* b, void* c, cudaStream_t s,
                         const verify::Epilogue& epi) {
    const Scalars sc(p.accum, epi.alpha);
    return cublasLtMatmul(lt, plan.op, sc.alpha(), b, plan.first, a, plan.second, sc.beta(), c,
                          plan.out, c, plan.out, &algo, workspace, kWorkspaceBytes, s);
  }

  void cublas_call(const Problem& p, const void* a, const void* b, void* c,
                   const verify::Epilogue& epi, const verify::Batch& batch) {
    HGEMM_REQUIRE(!epi.bias && epi.activation == Activation::kNone, HGEMM_ERROR_NOT_SUPPORTED,
                  "cublas (cublasGemmEx) has no bias or activation epilogue: use a cublaslt kind");
    const cublasOperation_t op_first = p.layout == Layout::kTN ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int ld_first = int(p.layout == Layout::kTN ? p.k : p.n);
    const cudaDataType_t type = data_type(p.dtype);
    const Scalars sc(p.accum, epi.alpha);
    if (batch.batched()) {
      HGEMM_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
          blas, op_first, CUBLAS_OP_N, int(p.n), int(p.m), int(p.k), sc.alpha(), b, type,
          ld_first, batch.stride_b, a, type, int(p.k), batch.stride_a, sc.beta(), c, type,
          int(p.n), batch.stride_c, int(batch.count), compute_type(p.accum),
          CUBLAS_GEMM_DEFAULT));
      return;
    }
    HGEMM_CUBLAS_CHECK(cublasGemmEx(blas, op_first, CUBLAS_OP_N, int(p.n), int(p.m), int(p.k),
                                    sc.alpha(), b, type, ld_first, a, type, int(p.k), sc.beta(),
                                    c, type, int(p.n), compute_type(p.accum),
                                    CUBLAS_GEMM_DEFAULT));
  }

};

Baselines::Baselines() : impl_(std::make_unique<Impl>()) {
  HGEMM_CUBLAS_CHECK(cublasCreate(&impl_->blas));
  HGEMM_CUBLAS_CHECK(cublasLtCreate(&impl_->lt));
  HGEMM_CUDA_CHECK(cudaMalloc(&impl_->workspace, kWorkspaceBytes));
}

Baselines::~Baselines() {
  if (!impl_) return;
  // The workspace may still be in use by queued work; the bound stream may already be
  // destroyed by its owner, so the whole device is synchronized instead.
  if (impl_->bound) cudaDeviceSynchronize();
  impl_->plans.clear();
  if (impl_->workspace) cudaFree(impl_->workspace);
  if (impl_->lt) cublasLtDestroy(impl_->lt);
  if (impl_->blas) cublasDestroy(impl_->blas);
}

namespace {

SelectionKey selection_key(const Problem& p, const verify::Epilogue& epilogue,
                           const verify::Batch& batch) {
  const bool batched = batch.batched();
  return {p.m,
          p.n,
          p.k,
          p.layout,
          p.accum,
          p.dtype,
          lt_epilogue(epilogue),
          batch.count,
          batched ? batch.stride_a : 0,
          batched ? batch.stride_b : 0,
          batched ? batch.stride_c : 0};
}

// Every entry point refuses what cuBLAS must not be asked, such as bf16 with fp16 accumulation or
// a batch count cuBLAS's int cannot hold, with a reason rather than a cuBLAS status.
void require_valid(const Problem& p, const verify::Batch& batch) {
  if (Status s = p.validate(); !s.ok()) throw Error(s.code, s.message);
  HGEMM_REQUIRE(batch.count >= 1 && batch.count <= INT32_MAX, HGEMM_ERROR_INVALID_BATCH_COUNT,
                "batch count " + std::to_string(batch.count) + " is outside [1, 2^31-1]");
  HGEMM_REQUIRE(!batch.batched() ||
                    (batch.stride_a >= 0 && batch.stride_b >= 0 && batch.stride_c >= 0),
                HGEMM_ERROR_INVALID_STRIDE, "a batch stride is negative");
}

// " batch 64" for batched calls, nothing for one product (whose detail reads as it always has).
std::string batch_text(const verify::Batch& batch) {
  return batch.batched() ? " batch " + std::to_string(batch.count) : "";
}

}  // namespace

void Baselines::run(Kind kind, const Problem& problem, const void* a, const void* b, void* c,
                    cudaStream_t stream, const verify::Epilogue& epilogue,
                    const verify::Batch& batch) {
  require_valid(problem, batch);
  HGEMM_REQUIRE(a && b && c, HGEMM_ERROR_NULL_POINTER, "null pointer passed to a baseline");
  Impl& im = *impl_;
  im.bind(stream);
  if (kind == Kind::kCublas) {
    im.cublas_call(problem, a, b, c, epilogue, batch);
    return;
  }
  const cublasLtMatmulAlgo_t algo = algorithm(kind, problem, a, b, c, epilogue, batch);
  Plan& plan = im.plan(problem, a, b, c, epilogue, batch);
  HGEMM_CUBLAS_CHECK(im.lt_call(plan, algo, problem, a, b, c, stream, epilogue));
}

verify::GemmFn Baselines::fn(Kind kind, const verify::Epilogue& epilogue,
                             const verify::Batch& batch) {
  return [this, kind, epilogue, batch](const Problem& p, const void* a, const void* b, void* c,
                                       cudaStream_t s) {
    run(kind, p, a, b, c, s, epilogue, batch);
  };
}

const Selection& Baselines::select(const Problem& problem, bench::Timer& timer,
                                   const bench::RotatingBuffers& buffers,
                                   const verify::Epilogue& epilogue, const verify::Batch& batch) {
  require_valid(problem, batch);
  Impl& im = *impl_;
  const SelectionKey key = selection_key(problem, epilogue, batch);
  if (auto it = im.selections.find(key); it != im.selections.end()) return it->second.selection;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  HGEMM_CUDA_CHECK(cudaStreamIsCapturing(timer.stream(), &status));
  HGEMM_REQUIRE(status == cudaStreamCaptureStatusNone, HGEMM_ERROR_NOT_SUPPORTED,
                "choosing cuBLASLt's algorithm for " + problem.name() +
                    " cannot run during graph capture: select it once before capturing");
  im.bind(timer.stream());
  Plan& plan = im.plan(problem, buffers.a(0), buffers.b(0), buffers.c(0), epilogue, batch);
  const auto& candidates = im.candidates(plan, problem);
  // Candidate i on whichever buffer set the timer hands it (all sets share one alignment).
  auto contender = [&im, &problem, &epilogue, &batch](const cublasLtMatmulAlgo_t& algo) {
    const verify::GemmFn fn = [&im, algo, &epilogue, &batch](const Problem& p, const void* a,
                                                             const void* b, void* c,
                                                             cudaStream_t s) {
      HGEMM_CUBLAS_CHECK(
          im.lt_call(im.plan(p, a, b, c, epilogue, batch), algo, p, a, b, c, s, epilogue));
    };
    return bench::Contender{fn, problem};
  };
  auto medians = [](const std::vector<bench::Timing>& timings) {
    std::vector<double> ms;
    for (const bench::Timing& t : timings) ms.push_back(t.ok() ? t.median_ms : kInf);
    return ms;
  };

  Selection sel;
  for (const auto& c : candidates) sel.candidates.push_back(describe_algo(c.algo));
  if (candidates.size() > size_t(kScreenKeep) + 1) {
    bench::TimingOptions screen_options = timer.options();
    screen_options.loop_ms = kScreenLoopMs;
    screen_options.loops = kScreenLoops;
    bench::Timer screen_timer(timer.stream(), screen_options);
    std::vector<bench::Contender> all;
    for (const auto& c : candidates) all.push_back(contender(c.algo));
    sel.screen_ms = medians(screen_timer.measure(bench::Mode::kGraph, all, buffers));
    sel.finalists = select_finalists(sel.screen_ms, kScreenKeep);
    sel.from_screen = size_t(std::count_if(sel.screen_ms.begin(), sel.screen_ms.end(),
                                           [](double ms) { return std::isfinite(ms); }));
    sel.from_screen = std::min(sel.from_screen, size_t(kScreenKeep));
  } else {
    for (size_t i = 0; i < candidates.size(); ++i) sel.finalists.push_back(int(i));
    sel.from_screen = candidates.size();
  }
  std::vector<bench::Contender> finals;
  for (int i : sel.finalists) finals.push_back(contender(candidates[size_t(i)].algo));
  sel.final_ms = medians(timer.measure(bench::Mode::kGraph, finals, buffers));
  sel.picks = choose_algorithms(sel.finalists, sel.final_ms, sel.from_screen);
  HGEMM_REQUIRE(sel.picks.autotune >= 0, HGEMM_ERROR_NOT_SUPPORTED,
                "every cuBLASLt candidate failed for " + problem.name() + batch_text(batch));
  const cublasLtMatmulAlgo_t autotune = candidates[size_t(sel.picks.autotune)].algo;
  const cublasLtMatmulAlgo_t best = candidates[size_t(sel.picks.best)].algo;
  return im.selections.emplace(key, Chosen{std::move(sel), autotune, best})
      .first->second.selection;
}

cublasLtMatmulAlgo_t Baselines::algorithm(Kind kind, const Problem& problem, const void* a,
                                          const void* b, const void* c,
                                          const verify::Epilogue& epilogue,
                                          const verify::Batch& batch) {
  HGEMM_REQUIRE(kind != Kind::kCublas, HGEMM_ERROR_NOT_SUPPORTED,
                "cublas runs cublasGemmEx, which exposes no algorithm");
  require_valid(problem, batch);
  Impl& im = *impl_;
  if (kind == Kind::kLtHeuristic)
    return im.candidates(im.plan(problem, a, b, c, epilogue, batch), problem).front().algo;
  const auto it = im.selections.find(selection_key(problem, epilogue, batch));
  HGEMM_REQUIRE(it != im.selections.end(), HGEMM_ERROR_NOT_SUPPORTED,
                std::string(to_string(kind)) + " has no algorithm for " + problem.name() +
                    batch_text(batch) +
                    " yet: Baselines::select() chooses it, under the benchmark's timing "
                    "conditions, before the first call");
  return kind == Kind::kLtBest ? it->second.best : it->second.autotune;
}

std::string Baselines::describe(Kind kind, const Problem& problem, const void* a, const void* b,
                                const void* c, const verify::Epilogue& epilogue,
                                const verify::Batch& batch) {
  require_valid(problem, batch);
  // bf16 rows, epilogue rows and batched rows say so; plain fp16 rows keep the text they always
  // had.
  std::string compute = std::string(problem.dtype == DType::kBF16 ? "bf16 " : "") +
                        (problem.accum == Accum::kF16 ? "COMPUTE_16F" : "COMPUTE_32F");
  if (kind == Kind::kCublas)
    return (batch.batched() ? "cublasGemmStridedBatchedEx " : "cublasGemmEx ") + compute +
           batch_text(batch);
  if (const cublasLtEpilogue_t e = lt_epilogue(epilogue); e != CUBLASLT_EPILOGUE_DEFAULT)
    compute += " EPILOGUE_" + std::string(lt_epilogue_name(e));
  compute += batch_text(batch);
  if (kind == Kind::kLtHeuristic) {
    const auto& candidates =
        impl_->candidates(impl_->plan(problem, a, b, c, epilogue, batch), problem);
    return compute + " heuristic " + describe_algo(candidates.front().algo) + " (of " +
           std::to_string(candidates.size()) + ")";
  }
  const auto it = impl_->selections.find(selection_key(problem, epilogue, batch));
  return compute + " " +
         (it == impl_->selections.end() ? std::string("not selected yet")
                                        : it->second.selection.describe(kind));
}

}  // namespace hgemm::baselines
