// GPU tests of hgemmGemm, the general call: every storage order of A, B and C x leading
// dimensions longer than the row x alpha/beta (beta == 0 over a NaN-filled C) x strided batches
// (gapped, broadcast, side by side) x bias/ReLU/GELU x fp16/bf16 x both accumulations, at residue
// shapes, each element against an fp64 reference with the verifier's accumulation-dependent
// tolerance, and every byte of C's buffer outside the result left as it was. Then the dispatch
// path: plain calls take hgemmRun's kernel (the sm90 family on an H100) and give its bits, the
// caller's workspace replaces the pool, refusals that need a device, and graph replay. Last,
// calls drawn at random (shape and options) through dispatch, each against the reference.
// A plain executable: one line per check, exits non-zero on any failure. --quick runs a subset
// (the compute-sanitizer memcheck test uses it).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "dispatch/gemm_route.hpp"
#include "gpu_checks.cuh"
#include "launch/launch.hpp"
#include "launch/sm90_catalog.hpp"
#include "launch/workspace.hpp"
#include "hgemm/hgemm.h"
#include "hgemm/hgemm.hpp"

namespace {

using gpu_checks::check;
using hgemm::Activation;
using hgemm::DType;
using hgemm::GemmDesc;
using hgemm::Order;

bool g_quick = false;

// ---- host-side elements ---------------------------------------------------------------------

uint16_t to_bits(float x, DType t) {
  if (t == DType::kF16) return __half_raw(__float2half_rn(x)).x;
  return __nv_bfloat16_raw(__float2bfloat16_rn(x)).x;
}

double from_bits(uint16_t bits, DType t) {
  if (t == DType::kF16) {
    __half_raw r;
    r.x = bits;
    return double(__half2float(__half(r)));
  }
  __nv_bfloat16_raw r;
  r.x = bits;
  return double(__bfloat162float(__nv_bfloat16(r)));
}

// Uniform in [-1, 1]: real-valued, so fp16 accumulation shows.
struct Rng {
  uint64_t state;
  // Uniform in [0, bound).
  uint64_t below(uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  }
  float next() { return float(int(below(2001)) - 1000) / 1000.0f; }
};

// ---- the fp64 reference ---------------------------------------------------------------------

// Element (i, j) of a matrix stored in `order` with leading dimension ld, written out here
// rather than shared with the library, so a stride mix-up on either side shows.
__host__ __device__ int64_t offset(bool row_major, int64_t ld, int64_t i, int64_t j) {
  return row_major ? i * ld + j : j * ld + i;
}

struct RefArgs {
  uint16_t const* a;
  uint16_t const* b;
  uint16_t const* c_in;  // C as it was before the call
  uint16_t const* bias;
  double* out;  // batch x m x n, dense
  int64_t m, n, k, batch_count;
  bool a_row, b_row, c_row;
  int64_t lda, ldb, ldc, stride_a, stride_b, stride_c;
  double alpha, beta;
  Activation activation;
  bool bf16;
};

__device__ double element(uint16_t bits, bool bf16) {
  return bf16 ? double(__bfloat162float(__ushort_as_bfloat16(bits)))
              : double(__half2float(__ushort_as_half(bits)));
}

// The activations in fp64, as the reference applies them (on the device and on the host).
__host__ __device__ double reference_activation(double v, Activation activation) {
  switch (activation) {
    case Activation::kRelu: return v < 0 ? 0 : v;
    case Activation::kGelu: return 0.5 * v * (1 + erf(v / sqrt(2.0)));
    case Activation::kGeluTanh:
      return 0.5 * v * (1 + tanh(sqrt(2.0 / 3.14159265358979323846) * (v + 0.044715 * v * v * v)));
    case Activation::kNone: break;
  }
  return v;
}

__global__ void reference_kernel(RefArgs r) {
  const int64_t total = r.batch_count * r.m * r.n;
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < total;
       idx += int64_t(gridDim.x) * blockDim.x) {
    const int64_t bt = idx / (r.m * r.n), i = idx / r.n % r.m, j = idx % r.n;
    uint16_t const* a = r.a + bt * r.stride_a;
    uint16_t const* b = r.b + bt * r.stride_b;
    double sum = 0;
    for (int64_t l = 0; l < r.k; ++l)
      sum += element(a[offset(r.a_row, r.lda, i, l)], r.bf16) *
             element(b[offset(r.b_row, r.ldb, l, j)], r.bf16);
    double v = r.alpha * sum;
    if (r.beta != 0)
      v += r.beta * element(r.c_in[bt * r.stride_c + offset(r.c_row, r.ldc, i, j)], r.bf16);
    if (r.bias) v += element(r.bias[j], r.bf16);
    r.out[idx] = reference_activation(v, r.activation);
  }
}

// The verifier's max-abs rule (src/verify/verifier.cu, Verifier::tol_max_abs) in the output's
// type: 2 ulps of max|ref| with fp32 accumulation (4 with fp16) for the output rounding, plus an
// accumulation term, 2^-19 * K (fp32) or 1e-3 * K (fp16), scaled by |alpha| since the epilogue
// multiplies the accumulator by it. bf16 keeps 8 significant bits to fp16's 11.
double tolerance(const GemmDesc& d, double max_abs_ref) {
  const int mantissa_bits = d.dtype == DType::kF16 ? 10 : 7;
  const double ulp = std::ldexp(1.0, std::max(-24, int(std::floor(std::log2(std::max(
                                                        max_abs_ref, 1e-30)))) - mantissa_bits));
  const double k = double(d.k);
  const double alpha = std::fabs(d.alpha);
  return d.accum == hgemm::Accum::kF16 ? 4 * ulp + alpha * 1e-3 * k
                                       : 2 * ulp + alpha * 32 * std::ldexp(1.0, -24) * k;
}

// ---- one call against the reference -----------------------------------------------------------

struct Buffers {
  uint16_t* a = nullptr;
  uint16_t* b = nullptr;
  uint16_t* c = nullptr;
  uint16_t* c_in = nullptr;
  uint16_t* bias = nullptr;
  double* ref = nullptr;
  size_t a_cap = 0, b_cap = 0, c_cap = 0, c_in_cap = 0, bias_cap = 0, ref_cap = 0;
};

template <class T>
void ensure(T*& p, size_t& cap, size_t elements) {
  if (elements <= cap) return;
  if (p) CUDA_OK(cudaFree(p));
  CUDA_OK(cudaMalloc(&p, elements * sizeof(T)));
  cap = elements;
}

int64_t span(bool row_major, int64_t rows, int64_t cols, int64_t ld, int64_t batch_count,
             int64_t stride) {
  const int64_t one = row_major ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
  return (batch_count - 1) * stride + one;
}

// `d` on one compiled instance, as hgemmGemm's dispatch path would hand it the call
// (dispatch::route_args). The route's copy of a column-major A into rows is not taken: the
// instance reads A as the call stores it.
void launch_on(const hgemm::KernelInstance& inst, const GemmDesc& d, const void* a, const void* b,
               void* c) {
  const hgemm::dispatch::GemmRoute route = hgemm::dispatch::route(d);
  if (!route.dispatch) throw hgemm::Error(HGEMM_ERROR_NOT_SUPPORTED, route.reason);
  const hgemm::GemmArgs args = hgemm::dispatch::route_args(d, route, a, b, c, nullptr);
  if (hgemm::Status s =
          hgemm::sm90_can_implement(route.problem, inst.config, args, hgemm::current_device());
      !s.ok())
    throw hgemm::Error(s.code, s.message);
  inst.launch(inst.config, args);
}

// Runs `d` through hgemmGemm (or on `inst` alone) on fresh inputs and checks every element against
// the reference and every other byte of C's buffer for being untouched. `offset_elements` shifts
// every operand off its allocation's 256-byte alignment, `bias_offset` the bias alone further.
// `name_plan` adds the kernel dispatch runs (hgemm::explain) and its source to the check's name.
void run_case(Buffers& buf, const GemmDesc& d, bool with_bias, int64_t offset_elements,
              uint64_t seed, int64_t bias_offset = 0,
              const hgemm::KernelInstance* inst = nullptr, bool name_plan = false) {
  const bool a_row = d.order_a == Order::kRow, b_row = d.order_b == Order::kRow,
             c_row = d.order_c == Order::kRow;
  const int64_t lda = d.lda_or_packed(), ldb = d.ldb_or_packed(), ldc = d.ldc_or_packed();
  const int64_t guard = 64;  // elements after each span, also checked untouched for C
  const int64_t a_elems = span(a_row, d.m, d.k, lda, d.batch_count, d.stride_a) + offset_elements + guard;
  const int64_t b_elems = span(b_row, d.k, d.n, ldb, d.batch_count, d.stride_b) + offset_elements + guard;
  const int64_t c_elems = span(c_row, d.m, d.n, ldc, d.batch_count, d.stride_c) + offset_elements + guard;
  const int64_t ref_elems = d.batch_count * d.m * d.n;
  ensure(buf.a, buf.a_cap, size_t(a_elems));
  ensure(buf.b, buf.b_cap, size_t(b_elems));
  ensure(buf.c, buf.c_cap, size_t(c_elems));
  ensure(buf.c_in, buf.c_in_cap, size_t(c_elems));
  const int64_t bias_at = offset_elements + bias_offset;
  ensure(buf.bias, buf.bias_cap, size_t(d.n + bias_at));
  ensure(buf.ref, buf.ref_cap, size_t(ref_elems));

  Rng rng{seed};
  std::vector<uint16_t> ha(a_elems), hb(b_elems), hc(c_elems), hbias(d.n + bias_at);
  for (auto& x : ha) x = to_bits(rng.next(), d.dtype);
  for (auto& x : hb) x = to_bits(rng.next(), d.dtype);
  for (auto& x : hbias) x = to_bits(rng.next(), d.dtype);
  // beta == 0: C holds NaN, which must not reach the result. Otherwise C is an input.
  const uint16_t nan_bits = d.dtype == DType::kF16 ? 0x7e00 : 0x7fc0;
  for (auto& x : hc) x = d.beta == 0.0f ? nan_bits : to_bits(rng.next(), d.dtype);
  CUDA_OK(cudaMemcpy(buf.a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(buf.b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(buf.c, hc.data(), hc.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(buf.c_in, hc.data(), hc.size() * 2, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(buf.bias, hbias.data(), hbias.size() * 2, cudaMemcpyHostToDevice));

  GemmDesc call = d;
  call.bias = with_bias ? buf.bias + bias_at : nullptr;
  std::string name = call.name() +
                     (offset_elements ? "_off" + std::to_string(offset_elements) : "") +
                           (bias_offset ? "_bias_off" + std::to_string(bias_offset) : "");
  if (inst) name += " on " + inst->config.name();
  try {
    if (name_plan) {
      const hgemm::GemmPlan plan = hgemm::explain(call, buf.a + offset_elements,
                                                  buf.b + offset_elements, buf.c + offset_elements);
      name += " via " + plan.kernel + " (" + plan.source + ")";
    }
    if (inst)
      launch_on(*inst, call, buf.a + offset_elements, buf.b + offset_elements,
                buf.c + offset_elements);
    else
      hgemm::gemm(call, buf.a + offset_elements, buf.b + offset_elements, buf.c + offset_elements,
                  nullptr);
  } catch (const hgemm::Error& e) {
    check(false, name + ": " + e.what());
    return;
  }
  RefArgs r{buf.a + offset_elements, buf.b + offset_elements, buf.c_in + offset_elements,
            with_bias ? buf.bias + bias_at : nullptr, buf.ref, d.m, d.n, d.k,
            d.batch_count, a_row, b_row, c_row, lda, ldb, ldc,
            d.batch_count > 1 ? d.stride_a : 0, d.batch_count > 1 ? d.stride_b : 0,
            d.batch_count > 1 ? d.stride_c : 0, d.alpha, d.beta, d.activation,
            d.dtype == DType::kBF16};
  reference_kernel<<<1024, 256>>>(r);
  CUDA_OK(cudaGetLastError());
  const cudaError_t sync = cudaDeviceSynchronize();
  if (sync != cudaSuccess) {
    std::printf("FAIL %s: %s\n", name.c_str(), cudaGetErrorString(sync));
    std::exit(1);
  }
  std::vector<uint16_t> got(c_elems);
  std::vector<double> ref(ref_elems);
  CUDA_OK(cudaMemcpy(got.data(), buf.c, got.size() * 2, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(ref.data(), buf.ref, ref.size() * sizeof(double), cudaMemcpyDeviceToHost));

  double max_abs_ref = 0;
  for (double v : ref) max_abs_ref = std::max(max_abs_ref, std::fabs(v));
  const double tol = tolerance(d, max_abs_ref);
  std::vector<char> is_result(c_elems, 0);
  int64_t bad = 0;
  double worst = 0;
  std::string worst_at;
  for (int64_t bt = 0; bt < d.batch_count; ++bt)
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) {
        const int64_t pos = offset_elements + (d.batch_count > 1 ? bt * d.stride_c : 0) +
                            offset(c_row, ldc, i, j);
        is_result[pos] = 1;
        const double want = ref[(bt * d.m + i) * d.n + j];
        const double have = from_bits(got[pos], d.dtype);
        const double err = std::isfinite(have) ? std::fabs(have - want) : INFINITY;
        if (!(err <= tol)) ++bad;
        if (!(err <= worst)) {
          worst = err;
          worst_at = "(" + std::to_string(bt) + "," + std::to_string(i) + "," +
                     std::to_string(j) + ") got " + std::to_string(have) + " want " +
                     std::to_string(want);
        }
      }
  int64_t touched = 0;
  for (int64_t pos = 0; pos < c_elems; ++pos)
    if (!is_result[pos] && got[pos] != hc[pos]) ++touched;
  char line[256];
  std::snprintf(line, sizeof line, " max err %.3g tol %.3g (max|ref| %.3g)", worst, tol,
                max_abs_ref);
  check(bad == 0 && touched == 0,
        name + line + (bad ? ", " + std::to_string(bad) + " elements off, worst at " + worst_at : "") +
            (touched ? ", " + std::to_string(touched) + " elements outside C written" : ""));
}

// ---- the sweep ------------------------------------------------------------------------------

struct Shape {
  int64_t m, n, k;
};

// The type and accumulation pairs the call takes.
struct Types {
  DType dtype;
  hgemm::Accum accum;
};
constexpr Types kTypes[] = {{DType::kF16, hgemm::Accum::kF32},
                            {DType::kF16, hgemm::Accum::kF16},
                            {DType::kBF16, hgemm::Accum::kF32}};

enum class Batching { kOne, kGapped, kBroadcastSideBySide };

struct Epilogue {
  bool bias;
  Activation activation;
};

// The (alpha, beta) pairs and epilogues the sweeps and the random calls draw from.
constexpr std::pair<float, float> kScalars[] = {{1.0f, 0.0f}, {-1.5f, 0.0f}, {0.75f, -0.5f}};
constexpr Epilogue kEpilogues[] = {{false, Activation::kNone},
                                   {true, Activation::kNone},
                                   {true, Activation::kRelu},
                                   {true, Activation::kGelu},
                                   {false, Activation::kGeluTanh}};

// Leading dimensions and strides for one combination. Padded leading dimensions are the row
// plus `pad_by`, 3 unless given (odd, so rows start off any vector alignment). Gapped batches sit
// 5 elements apart beyond each span; broadcast batches share one A (stride 0) and write C side by
// side within each line (heads into [rows, heads * N]).
GemmDesc make_desc(const Shape& s, Order oa, Order ob, Order oc, Types t, bool padded,
                   Batching batching, float alpha, float beta, Epilogue e, int64_t pad_by = 3) {
  GemmDesc d;
  d.m = s.m;
  d.n = s.n;
  d.k = s.k;
  d.order_a = oa;
  d.order_b = ob;
  d.order_c = oc;
  d.dtype = t.dtype;
  d.accum = t.accum;
  d.alpha = alpha;
  d.beta = beta;
  d.activation = e.activation;
  const int64_t pad = padded ? pad_by : 0;
  const int64_t row_a = oa == Order::kRow ? s.k : s.m;
  const int64_t row_b = ob == Order::kRow ? s.n : s.k;
  const int64_t row_c = oc == Order::kRow ? s.n : s.m;
  d.lda = padded ? row_a + pad : 0;
  d.ldb = padded ? row_b + pad : 0;
  d.ldc = padded ? row_c + pad : 0;
  if (batching == Batching::kOne) return d;
  d.batch_count = 3;
  const auto one = [](Order o, int64_t rows, int64_t cols, int64_t ld) {
    return o == Order::kRow ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
  };
  d.stride_a = one(oa, s.m, s.k, d.lda_or_packed()) + 5;
  d.stride_b = one(ob, s.k, s.n, d.ldb_or_packed()) + 5;
  if (batching == Batching::kGapped) {
    d.stride_c = one(oc, s.m, s.n, d.ldc_or_packed()) + 5;
    return d;
  }
  d.stride_a = 0;
  d.stride_c = row_c + pad;
  d.ldc = d.batch_count * (row_c + pad);
  return d;
}

void sweep(Buffers& buf, const std::vector<Shape>& shapes, bool all_scalars) {
  const Order orders[] = {Order::kRow, Order::kCol};
  const Batching batchings[] = {Batching::kOne, Batching::kGapped, Batching::kBroadcastSideBySide};
  uint64_t seed = 1;
  int rotation = 0;
  for (const Shape& s : shapes)
    for (Order oa : orders)
      for (Order ob : orders)
        for (Order oc : orders)
          for (Types t : kTypes)
            for (bool padded : {false, true})
              for (Batching batching : batchings) {
                if (g_quick && !padded) continue;
                // The full product over scalars and epilogues; or, for the extra shapes and
                // --quick, one of each in rotation.
                for (size_t si = 0; si < std::size(kScalars); ++si)
                  for (size_t ei = 0; ei < std::size(kEpilogues); ++ei) {
                    if (!all_scalars && (si + ei) % 5 != size_t(rotation % 5)) continue;
                    const auto [alpha, beta] = kScalars[si];
                    const GemmDesc d = make_desc(s, oa, ob, oc, t, padded, batching, alpha,
                                                 beta, kEpilogues[ei]);
                    run_case(buf, d, kEpilogues[ei].bias, int64_t(seed % 3), seed);
                    ++seed;
                  }
                ++rotation;
              }
}

// ---- the dispatch path ------------------------------------------------------------------------

GemmDesc plain(int64_t m, int64_t n, int64_t k, Order oa, Order ob, Order oc, hgemm::Accum acc) {
  GemmDesc d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.order_a = oa;
  d.order_b = ob;
  d.order_c = oc;
  d.accum = acc;
  return d;
}

void fill(void* p, int64_t n, uint32_t seed) {
  gpu_checks::fill_kernel<<<256, 256>>>(static_cast<__half*>(p), n, seed);
  CUDA_OK(cudaGetLastError());
}

// `rows` (M x K on the device, packed) stored column-major into `cols` (K x M, packed), through
// the host so that the copy does not use the library it tests.
void copy_column_major(const void* rows, void* cols, int64_t m, int64_t k) {
  std::vector<uint16_t> r(size_t(m * k)), c(size_t(m * k));
  CUDA_OK(cudaMemcpy(r.data(), rows, r.size() * 2, cudaMemcpyDeviceToHost));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) c[size_t(j * m + i)] = r[size_t(i * k + j)];
  CUDA_OK(cudaMemcpy(cols, c.data(), c.size() * 2, cudaMemcpyHostToDevice));
}

// Calls hgemmRun's kernels can take say so, name the kernel select_config picks for the mapped
// hgemmRun problem (an sm90 one on an H100 for shapes of 1000 and more), and give hgemmRun's bits.
void test_dispatch_path(const std::vector<Shape>& shapes, bool sm90) {
  struct Mapping {
    Order a, b, c;
    bool transposed;
    hgemm::Layout layout;
  };
  const Mapping mappings[] = {
      {Order::kRow, Order::kRow, Order::kRow, false, hgemm::Layout::kNN},
      {Order::kRow, Order::kCol, Order::kRow, false, hgemm::Layout::kTN},
      {Order::kRow, Order::kCol, Order::kCol, true, hgemm::Layout::kTN},
      {Order::kCol, Order::kCol, Order::kCol, true, hgemm::Layout::kNN},
  };
  for (const Shape& s : shapes) {
    void *a, *b, *c_run, *c_gemm;
    CUDA_OK(cudaMalloc(&a, size_t(s.m * s.k) * 2));
    CUDA_OK(cudaMalloc(&b, size_t(s.k * s.n) * 2));
    CUDA_OK(cudaMalloc(&c_run, size_t(s.m * s.n) * 2));
    CUDA_OK(cudaMalloc(&c_gemm, size_t(s.m * s.n) * 2));
    fill(a, s.m * s.k, 11);
    fill(b, s.k * s.n, 12);
    const bool need_sm90 = sm90 && s.m >= 1000 && s.n >= 1000;
    for (const Mapping& mp : mappings)
      for (auto acc : {hgemm::Accum::kF32, hgemm::Accum::kF16}) {
        const GemmDesc d = plain(s.m, s.n, s.k, mp.a, mp.b, mp.c, acc);
        // hgemmRun's view: C^T = B^T A^T swaps the operands and M with N.
        const hgemm::Problem p{mp.transposed ? s.n : s.m, mp.transposed ? s.m : s.n, s.k,
                               mp.layout, acc};
        const void* run_a = mp.transposed ? b : a;
        const void* run_b = mp.transposed ? a : b;
        try {
          const hgemm::GemmPlan plan = hgemm::explain(d, a, b, c_gemm);
          const hgemm::KernelConfig want = hgemm::select_config(p, run_a, run_b, c_run);
          check(plan.path == HGEMM_PATH_DISPATCH && plan.transposed == mp.transposed &&
                    plan.kernel == want.name() &&
                    (!need_sm90 || plan.kernel.rfind("sm90_", 0) == 0),
                d.name() + " takes hgemmRun's kernel " + want.name() + " (" + p.name() +
                    "): plan " + plan.kernel + " [" + plan.source + "] " + plan.reason);
        } catch (const hgemm::Error& e) {
          check(false, d.name() + " explain: " + e.what());
        }
        CUDA_OK(cudaMemset(c_run, 0xff, size_t(s.m * s.n) * 2));
        CUDA_OK(cudaMemset(c_gemm, 0x7f, size_t(s.m * s.n) * 2));
        const hgemmStatus_t run_status =
            hgemmRun(run_a, run_b, c_run, p.m, p.n, p.k, hgemmLayout_t(p.layout),
                     hgemmAccum_t(acc), nullptr);
        hgemmGemmDesc_t cd;
        hgemmGemmDescInit(&cd, s.m, s.n, s.k);
        cd.order_a = hgemmOrder_t(mp.a);
        cd.order_b = hgemmOrder_t(mp.b);
        cd.order_c = hgemmOrder_t(mp.c);
        cd.acc = hgemmAccum_t(acc);
        const hgemmStatus_t gemm_status = hgemmGemm(&cd, a, b, c_gemm, nullptr);
        CUDA_OK(cudaDeviceSynchronize());
        check(run_status == HGEMM_SUCCESS && gemm_status == HGEMM_SUCCESS &&
                  gpu_checks::same_bits(c_run, c_gemm, s.m, s.n),
              d.name() + ": hgemmGemm gives hgemmRun's bits (" + hgemmStatusString(gemm_status) +
                  " " + hgemmLastErrorMessage() + ")");
      }
    for (void* p : {a, b, c_run, c_gemm}) CUDA_OK(cudaFree(p));
  }
}

// The orders of A, B and C that the general call routes to the tuned kernels.
struct RoutedOrders {
  Order a, b, c;
};
constexpr RoutedOrders kRoutedOrders[] = {{Order::kRow, Order::kRow, Order::kRow},
                                          {Order::kRow, Order::kCol, Order::kRow},
                                          {Order::kRow, Order::kCol, Order::kCol},
                                          {Order::kCol, Order::kCol, Order::kCol}};

// bf16 calls that are exactly one hgemmRun run the bf16 twin of the kernel hgemmRun picks for
// the fp16 call (an sm90 or decode kernel), and match the fp64 reference within bf16's tolerance
// on fresh inputs, C's guard band untouched. Where fp16 takes the predicated sm80 kernel (TMA
// cannot read the call: column-major C of M = 1 runs as N = 1, say), which has no bf16 twin,
// bf16 takes the safety net.
void test_bf16_dispatch(Buffers& buf, const std::vector<Shape>& shapes) {
  uint64_t seed = 500;
  for (const Shape& s : shapes)
    for (const RoutedOrders& mp : kRoutedOrders) {
      GemmDesc d = plain(s.m, s.n, s.k, mp.a, mp.b, mp.c, hgemm::Accum::kF32);
      GemmDesc f16 = d;
      d.dtype = DType::kBF16;
      void *a, *b, *c;
      CUDA_OK(cudaMalloc(&a, size_t(s.m * s.k) * 2));
      CUDA_OK(cudaMalloc(&b, size_t(s.k * s.n) * 2));
      CUDA_OK(cudaMalloc(&c, size_t(s.m * s.n) * 2));
      try {
        const hgemm::GemmPlan plan = hgemm::explain(d, a, b, c);
        const hgemm::GemmPlan twin = hgemm::explain(f16, a, b, c);
        const bool predicated = twin.kernel.rfind("sm80_mma_", 0) == 0;
        if (predicated)
          check(plan.path == HGEMM_PATH_SAFETY_NET &&
                    plan.reason.find("no compiled kernel runs it") != std::string::npos,
                d.name() + " takes the safety net where fp16 runs " + twin.kernel + ": plan " +
                    plan.kernel + " [" + plan.source + "] " + plan.reason);
        else
          check(plan.path == HGEMM_PATH_DISPATCH && plan.kernel == twin.kernel + "_bf16" &&
                    plan.transposed == twin.transposed,
                d.name() + " runs the bf16 twin of " + twin.kernel + ": plan " + plan.kernel +
                    " [" + plan.source + "] " + plan.reason);
      } catch (const hgemm::Error& e) {
        check(false, d.name() + " explain: " + e.what());
      }
      for (void* p : {a, b, c}) CUDA_OK(cudaFree(p));
      run_case(buf, d, false, 0, seed++);
    }
  // A bf16 call TMA cannot read (K % 8 != 0) has no compiled kernel and takes the safety net.
  GemmDesc odd = plain(256, 256, 70, Order::kRow, Order::kCol, Order::kRow, hgemm::Accum::kF32);
  odd.dtype = DType::kBF16;
  void* p;
  CUDA_OK(cudaMalloc(&p, 3 << 20));
  char* base = static_cast<char*>(p);
  const hgemm::GemmPlan plan = hgemm::explain(odd, base, base + (1 << 20), base + (2 << 20));
  check(plan.path == HGEMM_PATH_SAFETY_NET &&
            plan.reason.find("no compiled kernel runs it") != std::string::npos,
        odd.name() + " takes the safety net: " + plan.kernel + " [" + plan.source + "] " +
            plan.reason);
  CUDA_OK(cudaFree(p));
  run_case(buf, odd, false, 0, seed++);
}

// A plain call whose N is no multiple of 8 runs its kernel on a padded copy of C
// (dispatch::padded_c), which calls with an epilogue or leading dimensions do not take: their
// kernel is not the plain call's.
bool through_padded_c(const hgemm::GemmPlan& plan) {
  return plan.reason.find("is no multiple of 8: C computed in a copy") != std::string::npos;
}

// alpha, a bias and an activation ride on the tuned kernels: the plan names the kernel the plain
// call runs (decode, sm90 with and without swap-AB, split-K, whose reduction applies them) or its
// ping-pong sibling, and the result matches the fp64 reference, C's guard band untouched. Shapes
// with N % 8 != 0 or misaligned operands, which only the predicated sm80 kernel would take, go to
// the safety net.
void test_fused_epilogue(Buffers& buf, const std::vector<Shape>& shapes) {
  const std::pair<bool, Activation> epilogues[] = {{true, Activation::kNone},
                                                   {true, Activation::kRelu},
                                                   {true, Activation::kGelu},
                                                   {false, Activation::kGeluTanh}};
  uint64_t seed = 900;
  int rotation = 0;
  for (const Shape& s : shapes)
    for (Types t : kTypes)
      for (Order ob : {Order::kRow, Order::kCol}) {
        const auto [with_bias, activation] = epilogues[rotation++ % std::size(epilogues)];
        GemmDesc d = plain(s.m, s.n, s.k, Order::kRow, ob, Order::kRow, t.accum);
        d.dtype = t.dtype;
        GemmDesc plain_call = d;
        d.alpha = 0.75f;
        d.activation = activation;
        void *a, *b, *c, *bias;
        CUDA_OK(cudaMalloc(&a, size_t(s.m * s.k) * 2));
        CUDA_OK(cudaMalloc(&b, size_t(s.k * s.n) * 2));
        CUDA_OK(cudaMalloc(&c, size_t(s.m * s.n) * 2));
        CUDA_OK(cudaMalloc(&bias, size_t(s.n) * 2));
        d.bias = with_bias ? bias : nullptr;
        try {
          const hgemm::GemmPlan plan = hgemm::explain(d, a, b, c);
          const hgemm::GemmPlan twin = hgemm::explain(plain_call, a, b, c);
          // Where the plain call runs the predicated sm80 kernel, which applies no epilogue, or
          // an sm90 kernel with fp16 accumulators, which fuse none, dispatch's rules pick among
          // the others (the decode kernels fuse at either accumulation) or the safety net takes
          // the call.
          const bool twin_fuses =
              !through_padded_c(twin) &&
              (twin.kernel.rfind("decode_", 0) == 0 ||
               (twin.kernel.rfind("sm90_", 0) == 0 && t.accum == hgemm::Accum::kF32));
          // At K <= 2048 and M x N >= 4096^2 a cooperative wide tile gives way to its ping-pong
          // sibling (dispatch's on_epilogue_tile); none of these shapes is that large.
          const bool sibling = plan.kernel.rfind("sm90_pp_128x128", 0) == 0 &&
                               plan.reason.find("ping-pong sibling") != std::string::npos;
          const bool ok = twin_fuses ? plan.path == HGEMM_PATH_DISPATCH &&
                                           (plan.kernel == twin.kernel || sibling) &&
                                           plan.reason.find("fused") != std::string::npos
                                     : plan.path == HGEMM_PATH_SAFETY_NET ||
                                           (plan.path == HGEMM_PATH_DISPATCH &&
                                            (plan.kernel.rfind("decode_", 0) == 0 ||
                                             (plan.kernel.rfind("sm80_", 0) != 0 &&
                                              t.accum == hgemm::Accum::kF32)));
          check(ok, d.name() + " beside the plain call's " + twin.kernel + ": plan " +
                        plan.kernel + " [" + plan.source + "] " + plan.reason);
        } catch (const hgemm::Error& e) {
          check(false, d.name() + " explain: " + e.what());
        }
        for (void* p : {a, b, c, bias}) CUDA_OK(cudaFree(p));
        run_case(buf, d, with_bias, 0, seed++);
      }
}

// Leading dimensions padded by 8 (16-byte row strides) ride on the tuned kernels as their row
// strides: the plan names the packed call's kernel, and every element, gaps between the rows
// included, checks out (run_case: the gaps are C's guard band). Padded by 4, TMA cannot read
// them; the safety net takes the call.
void test_strided_dispatch(Buffers& buf, const std::vector<Shape>& shapes) {
  uint64_t seed = 1300;
  int rotation = 0;
  for (const Shape& s : shapes)
    for (const RoutedOrders& mp : kRoutedOrders)
      for (int64_t pad : {8, 4}) {
        const Types t = kTypes[rotation++ % std::size(kTypes)];
        GemmDesc d = plain(s.m, s.n, s.k, mp.a, mp.b, mp.c, t.accum);
        d.dtype = t.dtype;
        const GemmDesc packed = d;
        d.lda = (mp.a == Order::kRow ? s.k : s.m) + pad;
        d.ldb = (mp.b == Order::kRow ? s.n : s.k) + pad;
        d.ldc = (mp.c == Order::kRow ? s.n : s.m) + pad;
        if (pad == 8 && rotation % 3 == 0) d.activation = Activation::kRelu;
        void* p;
        CUDA_OK(cudaMalloc(&p, size_t(3) << 26));
        char* base = static_cast<char*>(p);
        try {
          const hgemm::GemmPlan plan = hgemm::explain(d, base, base + (1 << 26), base + (2 << 26));
          const hgemm::GemmPlan twin =
              hgemm::explain(packed, base, base + (1 << 26), base + (2 << 26));
          const bool twin_strides =
              !through_padded_c(twin) && twin.kernel.rfind("sm80_", 0) != 0;
          const bool ok =
              pad == 8 && twin_strides
                  ? plan.path == HGEMM_PATH_DISPATCH && plan.kernel == twin.kernel &&
                        plan.reason.find("strided") != std::string::npos
                  : plan.path == HGEMM_PATH_SAFETY_NET ||
                        (plan.path == HGEMM_PATH_DISPATCH && pad == 8 &&
                         plan.kernel.rfind("sm80_", 0) != 0);
          check(ok, d.name() + " ld+" + std::to_string(pad) + " beside the packed call's " +
                        twin.kernel + ": plan " + plan.kernel + " [" + plan.source + "] " +
                        plan.reason);
        } catch (const hgemm::Error& e) {
          check(false, d.name() + " explain: " + e.what());
        }
        CUDA_OK(cudaFree(p));
        run_case(buf, d, false, 0, seed++);
      }
}

// Strided batches and beta on the tuned kernels: where the one-matrix call runs an sm90 kernel,
// its batched twin (gapped batches 8 elements apart, one A or B shared by every batch, or heads
// written side by side into [rows, heads * N]) and its beta call with fp32 accumulation run an
// sm90 kernel too, in one launch; every element of every batch, and every byte between them,
// checks out against the per-batch fp64 reference (run_case).
void test_batched_dispatch(Buffers& buf, const std::vector<Shape>& shapes) {
  enum class Kind { kGapped, kSharedA, kSharedB, kSideBySide, kBeta, kBetaBatched };
  const Kind kinds[] = {Kind::kGapped, Kind::kSharedA, Kind::kSharedB, Kind::kSideBySide,
                        Kind::kBeta, Kind::kBetaBatched};
  uint64_t seed = 1700;
  int rotation = 0;
  for (const Shape& s : shapes)
    for (const RoutedOrders& mp : kRoutedOrders)
      for (Kind kind : kinds) {
        const Types t = kTypes[rotation++ % std::size(kTypes)];
        GemmDesc d = plain(s.m, s.n, s.k, mp.a, mp.b, mp.c, t.accum);
        d.dtype = t.dtype;
        const GemmDesc one = d;
        const int64_t row_c = mp.c == Order::kRow ? s.n : s.m;
        // One packed matrix and 8 elements of gap: 16-byte batch strides where the rows are.
        const auto whole = [](int64_t rows, int64_t cols) { return rows * cols + 8; };
        if (kind != Kind::kBeta) {
          d.batch_count = kind == Kind::kBetaBatched ? 2 : 4;
          d.stride_a = kind == Kind::kSharedA ? 0 : whole(s.m, s.k);
          d.stride_b = kind == Kind::kSharedB ? 0 : whole(s.k, s.n);
          d.stride_c = whole(s.m, s.n);
          if (kind == Kind::kSideBySide) {
            d.stride_c = row_c;
            d.ldc = d.batch_count * row_c;
          }
        }
        if (kind == Kind::kBeta || kind == Kind::kBetaBatched) {
          d.alpha = 0.5f;
          d.beta = -0.75f;
        }
        if (!d.validate().ok()) continue;  // side by side needs C's row inside ldc's range
        // Three disjoint spans, each as long as the batched call's longest operand.
        const size_t bytes =
            2 * size_t(std::max({span(mp.a == Order::kRow, s.m, s.k, d.lda_or_packed(),
                                      d.batch_count, d.stride_a),
                                 span(mp.b == Order::kRow, s.k, s.n, d.ldb_or_packed(),
                                      d.batch_count, d.stride_b),
                                 span(mp.c == Order::kRow, s.m, s.n, d.ldc_or_packed(),
                                      d.batch_count, d.stride_c)}) +
                       256);
        const size_t stride = (bytes + 255) / 256 * 256;  // each span 256-byte aligned
        void* p;
        CUDA_OK(cudaMalloc(&p, 3 * stride));
        char* base = static_cast<char*>(p);
        try {
          const hgemm::GemmPlan plan = hgemm::explain(d, base, base + stride, base + 2 * stride);
          const hgemm::GemmPlan twin =
              hgemm::explain(one, base, base + stride, base + 2 * stride);
          const bool reads_c = d.beta != 0.0f;
          const bool expect_sm90 = twin.kernel.rfind("sm90_", 0) == 0 &&
                                   row_c % 8 == 0 && (!reads_c || t.accum == hgemm::Accum::kF32);
          const bool ok = !expect_sm90 || (plan.path == HGEMM_PATH_DISPATCH &&
                                           plan.kernel.rfind("sm90_", 0) == 0);
          check(ok, d.name() + " beside the one-matrix call's " + twin.kernel + ": plan " +
                        plan.kernel + " [" + plan.source + "] " + plan.reason);
        } catch (const hgemm::Error& e) {
          check(false, d.name() + " explain: " + e.what());
        }
        CUDA_OK(cudaFree(p));
        run_case(buf, d, false, 0, seed++);
      }
}

// The orders whose tuned kernels read their A column-major: the call's A with row-major C, its B
// (row-major) as C^T's A with column-major C. Plain, with alpha, beta and (row-major C) a bias,
// and batched. One matrix of at most 256 rows, or whose rows are no multiple of 8, is copied into
// rows and runs as the row-major call (the decode kernels among others); the sm90 kernels'
// general flavour takes the rest where TMA can read the call; every result matches the
// reference.
void test_col_major_a(Buffers& buf, const std::vector<Shape>& shapes, bool sm90) {
  int decoded = 0;
  constexpr RoutedOrders kOrders[] = {{Order::kCol, Order::kRow, Order::kRow},
                                      {Order::kCol, Order::kCol, Order::kRow},
                                      {Order::kRow, Order::kRow, Order::kCol},
                                      {Order::kCol, Order::kRow, Order::kCol}};
  enum class Kind { kPlain, kEpilogue, kBatched };
  uint64_t seed = 2900;
  int rotation = 0;
  for (const Shape& s : shapes)
    for (const RoutedOrders& mp : kOrders)
      for (Kind kind : {Kind::kPlain, Kind::kEpilogue, Kind::kBatched}) {
        const Types t = kTypes[rotation++ % std::size(kTypes)];
        GemmDesc d = plain(s.m, s.n, s.k, mp.a, mp.b, mp.c, t.accum);
        d.dtype = t.dtype;
        const bool with_bias = kind == Kind::kEpilogue && mp.c == Order::kRow;
        if (kind == Kind::kEpilogue) {
          d.alpha = 1.25f;
          d.beta = -0.5f;
          if (mp.c == Order::kRow) d.activation = Activation::kRelu;
        }
        if (kind == Kind::kBatched) {
          d.batch_count = 3;
          d.stride_a = s.m * s.k + 8;
          d.stride_b = s.k * s.n + 8;
          d.stride_c = s.m * s.n + 8;
        }
        const bool fused = kind != Kind::kEpilogue || t.accum == hgemm::Accum::kF32;
        // The kernels' M and N (column-major C runs as C^T). Their column-major A's rows need
        // not be a multiple of 8 for one matrix: it runs from a copy whose rows are
        // (sm90_stages_a).
        const int64_t kernel_m = mp.c == Order::kRow ? s.m : s.n;
        const int64_t kernel_n = mp.c == Order::kRow ? s.n : s.m;
        const bool expect_sm90 = sm90 && kernel_n % 8 == 0 && s.k % 8 == 0 && fused &&
                                 (kernel_m % 8 == 0 || kind != Kind::kBatched);
        const bool may_decode = sm90 && s.m <= 16 && mp.c == Order::kRow &&
                                kind != Kind::kBatched && s.k % 8 == 0;
        // The kernels' A is packed here: its rows are kernel_m apart. One row (its leading
        // dimension 1) is read as that row, batched or not.
        const bool one_row = kernel_m == 1;
        const bool expect_rows = kind != Kind::kBatched && !one_row &&
                                 (kernel_m <= hgemm::dispatch::kARowsFirstMaxM || kernel_m % 8 != 0);
        void* p;
        // Three disjoint spans, each as long as the longest operand over 3 batches.
        const size_t bytes =
            (2 * size_t(3 * std::max({s.m * s.k, s.k * s.n, s.m * s.n}) + 64) + 511) / 256 * 256;
        CUDA_OK(cudaMalloc(&p, 3 * bytes));
        char* base = static_cast<char*>(p);
        try {
          const hgemm::GemmPlan plan = hgemm::explain(d, base, base + bytes, base + 2 * bytes);
          const bool rows = plan.path == HGEMM_PATH_DISPATCH &&
                            plan.reason.find("copied to rows first") != std::string::npos;
          const bool general = plan.path == HGEMM_PATH_DISPATCH &&
                               plan.kernel.rfind("sm90_", 0) == 0 &&
                               plan.reason.find("M-major") != std::string::npos;
          const bool decode =
              plan.path == HGEMM_PATH_DISPATCH && plan.kernel.rfind("decode_", 0) == 0;
          decoded += decode;
          const bool as_row = plan.path == HGEMM_PATH_DISPATCH &&
                              plan.reason.find("one row: read as that row") != std::string::npos;
          const bool runs = one_row       ? as_row || !expect_sm90
                            : expect_rows ? rows || !expect_sm90
                                          : (decode ? may_decode : !expect_sm90 || general);
          check(runs && (!decode || may_decode),
                d.name() +
                    (one_row       ? " runs as the row-major call on its one row: plan "
                     : expect_rows ? " runs as the row-major call from a copy in rows: plan "
                                   : " runs on the sm90 kernels' general flavour: plan ") +
                    plan.kernel + " [" + plan.source + "] " + plan.reason);
        } catch (const hgemm::Error& e) {
          check(false, d.name() + " explain: " + e.what());
        }
        CUDA_OK(cudaFree(p));
        run_case(buf, d, with_bias, 0, seed++);
      }
  const bool small = std::any_of(shapes.begin(), shapes.end(), [](const Shape& s) {
    return s.m <= 16 && s.k % 8 == 0;
  });
  check(!sm90 || !small || decoded > 0,
        "a column-major A of at most 16 rows ran on the decode kernels (" +
            std::to_string(decoded) + " calls)");
}

// A column-major A of at most 16 rows where the row-major call runs a decode kernel, or below 12
// tokens in TN the decode rule's 8-token swap-AB tile: a decode kernel reads it as it is (columns
// copied a lane each, read back through ldmatrix .trans), no copy into rows. Rows that are no
// multiple of 8 (zero-filled pieces), gaps between the columns (random values there must not leak
// in), K with a partial last round, both accumulations, bf16, a bias with the tanh GELU; and a B
// of either order (NN's row-major pick is a swap-AB tile, whose flavour for such an A reads it
// where it is 16 tokens wide, else the copy). Every result matches the reference.
void test_decode_col_major_a(Buffers& buf) {
  struct Case {
    int64_t m, n, k, lda;
    Order b;
    Types t;
    bool bias_gelu;
  };
  const std::vector<Case> cases =
      g_quick ? std::vector<Case>{{3, 256, 1000, 8, Order::kCol, kTypes[0], false}}
              : std::vector<Case>{{3, 1024, 1000, 8, Order::kCol, kTypes[0], false},
                                  {8, 2048, 4096, 0, Order::kCol, kTypes[1], false},
                                  {5, 512, 4104, 8, Order::kCol, kTypes[2], true},
                                  {11, 1536, 1000, 16, Order::kCol, kTypes[0], true},
                                  {16, 1024, 2048, 24, Order::kCol, kTypes[1], false},
                                  {1, 4096, 512, 8, Order::kCol, kTypes[0], false},
                                  {7, 8192, 2048, 8, Order::kCol, kTypes[0], false},
                                  {9, 2048, 1000, 16, Order::kRow, kTypes[0], false}};
  int uncopied = 0;
  uint64_t seed = 3300;
  for (const Case& c : cases) {
    GemmDesc d = plain(c.m, c.n, c.k, Order::kCol, c.b, Order::kRow, c.t.accum);
    d.dtype = c.t.dtype;
    d.lda = c.lda;
    if (c.bias_gelu) d.activation = Activation::kGeluTanh;
    run_case(buf, d, c.bias_gelu, 0, seed++);  // first: it sizes the buffers explain is given
    try {
      const hgemm::GemmPlan plan = hgemm::explain(d, buf.a, buf.b, buf.c);
      const bool decode = plan.kernel.rfind("decode_", 0) == 0;
      const bool swap = plan.kernel.find("_swap") != std::string::npos;
      const bool not_copied = plan.reason.find("not copied after all") != std::string::npos;
      uncopied += decode && not_copied;
      // TN below 12 tokens: the row-major call's decode kernel, or the one that reads the A in
      // place of its 8-token swap-AB tile (dispatch::decode_rule_tile_in_tn). A 16-token tile
      // (NN) reads it through its own flavour.
      const bool must = c.b == Order::kCol && c.m < 12;
      check((!decode || not_copied) && (!not_copied || decode || swap) && (!must || decode),
            d.name() + ": a decode kernel (or a swap-AB tile's flavour) reads the column-major "
                       "A uncopied: plan " +
                plan.kernel + " [" + plan.source + "] " + plan.reason);
    } catch (const hgemm::Error& e) {
      check(false, d.name() + " explain: " + e.what());
    }
  }
  check(uncopied > 0, "the decode kernels read a column-major A uncopied (" +
                          std::to_string(uncopied) + " calls)");
}

// Inside dispatch's ping-pong rule (a fused epilogue, fp32 accumulation, K <= 2048, M x N >=
// 4096^2): where the plain call's pick is a cooperative tile of 128 rows and 192 or more
// columns, the call with bias + GELU runs the ping-pong 128x128 and matches the reference.
void test_epilogue_ping_pong(Buffers& buf) {
  int taken = 0;
  uint64_t seed = 1900;
  for (DType dtype : {DType::kF16, DType::kBF16})
    for (Order ob : {Order::kRow, Order::kCol}) {
      GemmDesc d = plain(4096, 4096, 1024, Order::kRow, ob, Order::kRow, hgemm::Accum::kF32);
      d.dtype = dtype;
      const GemmDesc plain_call = d;
      d.activation = Activation::kGeluTanh;
      void *a, *b, *c, *bias;
      CUDA_OK(cudaMalloc(&a, size_t(d.m * d.k) * 2));
      CUDA_OK(cudaMalloc(&b, size_t(d.k * d.n) * 2));
      CUDA_OK(cudaMalloc(&c, size_t(d.m * d.n) * 2));
      CUDA_OK(cudaMalloc(&bias, size_t(d.n) * 2));
      d.bias = bias;
      const hgemm::GemmPlan plan = hgemm::explain(d, a, b, c);
      const hgemm::GemmPlan twin = hgemm::explain(plain_call, a, b, c);
      for (void* p : {a, b, c, bias}) CUDA_OK(cudaFree(p));
      const auto pick = hgemm::KernelConfig::parse(twin.kernel);
      const bool wide_cooperative = pick && pick->family == hgemm::Family::kSm90Ws &&
                                    pick->schedule == hgemm::Schedule::kCooperative &&
                                    pick->block_m == 128 && pick->block_n >= 192 &&
                                    !pick->swap_ab && pick->split_k == 1;
      const bool sibling = plan.kernel.rfind("sm90_pp_128x128", 0) == 0 &&
                           plan.reason.find("ping-pong sibling") != std::string::npos;
      taken += sibling;
      check(wide_cooperative ? sibling : plan.kernel == twin.kernel,
            d.name() + " beside the plain call's " + twin.kernel + ": plan " + plan.kernel +
                " [" + plan.source + "] " + plan.reason);
      // A bias 2-byte but not 4-byte aligned too: the kernels read an aligned one as 32-bit
      // pairs before the epilogue (sm90_ws.cuh, load_bias_words), this one element by element.
      run_case(buf, d, true, 0, seed++);
      run_case(buf, d, true, 0, seed++, 1);
    }
  check(taken > 0, "the ping-pong rule took " + std::to_string(taken) +
                       " of 4 calls at 4096x4096x1024 (the tables pick 128x256 there)");
}

// The tanh GELU at the ends of its range, on the sm90 kernels, which apply it to C's rounded
// pairs (kernels::gelu_tanh_pair), and on a three-warpgroup tile, which applies it to the fp32
// sums (kernels::gelu_tanh_approx): A is all ones and each column of B one value, so column j's x
// is K * B(j) + bias(j), one of nine cases. Beyond fp16's range on either side (the rounded x is
// -inf or +inf), x^2 past it (|x| = 300), NaN, values where the tanh is not saturated, and -inf
// itself (B's column -inf): 0 in fp16, NaN in bf16 (hgemm.h). The saturated cases must be exact
// (0, +inf, 300, NaN); elsewhere the error is bounded by half |x|
// times two ulps of the tanh near 1 (2^-9 in fp16, 2^-6 in bf16) plus two ulps of the result:
// the cancellation in 1 + tanh for negative x is what the paired arithmetic can lose.
void test_gelu_range() {
  const int64_t k = 64;
  const double x_values[9] = {-70000, 70000, -300, 300, NAN, -3, 0.5, 0, -INFINITY};
  int cases = 0;
  // Held here: runs keeps pointers into it, and sm90_instances() returns by value.
  const std::vector<hgemm::KernelInstance> instances = hgemm::sm90_instances();
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    // Dispatch's picks at two shapes, then the first three-warpgroup TN tile of this type.
    std::vector<std::pair<Shape, const hgemm::KernelInstance*>> runs = {
        {Shape{256, 256, k}, nullptr}, {Shape{40, 1024, k}, nullptr}};
    for (const hgemm::KernelInstance& inst : instances)
      if (inst.config.num_consumer_wgs == 3 && inst.config.accum == hgemm::Accum::kF32 &&
          inst.config.dtype == dtype && inst.config.layout == hgemm::Layout::kTN) {
        runs.push_back({Shape{256, 256, k}, &inst});
        break;
      }
    for (const auto& [s, inst] : runs) {
      GemmDesc d = plain(s.m, s.n, s.k, Order::kRow, Order::kCol, Order::kRow,
                         hgemm::Accum::kF32);
      d.dtype = dtype;
      d.activation = Activation::kGeluTanh;
      std::vector<uint16_t> ha(size_t(s.m * k), to_bits(1.0f, dtype));
      std::vector<uint16_t> hb(size_t(s.n * k)), hbias(size_t(s.n));
      for (int64_t j = 0; j < s.n; ++j) {
        const double x = x_values[j % std::size(x_values)];
        // The bias carries x up to +-60000 (an fp16 and a bf16 value); B the rest, over K terms.
        const double from_bias = std::isnan(x) ? 0 : std::fabs(x) > 60000 ? std::copysign(60000, x)
                                                                           : x;
        const float b = std::isnan(x) ? NAN : float((x - from_bias) / double(k));
        hbias[size_t(j)] = to_bits(float(from_bias), dtype);
        for (int64_t l = 0; l < k; ++l) hb[size_t(j * k + l)] = to_bits(b, dtype);
      }
      void *a, *b, *c, *bias;
      CUDA_OK(cudaMalloc(&a, ha.size() * 2));
      CUDA_OK(cudaMalloc(&b, hb.size() * 2));
      CUDA_OK(cudaMalloc(&c, size_t(s.m * s.n) * 2));
      CUDA_OK(cudaMalloc(&bias, hbias.size() * 2));
      CUDA_OK(cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemcpy(bias, hbias.data(), hbias.size() * 2, cudaMemcpyHostToDevice));
      d.bias = bias;
      std::string failure;
      try {
        if (inst) {
          launch_on(*inst, d, a, b, c);
        } else {
          const hgemm::GemmPlan plan = hgemm::explain(d, a, b, c);
          check(plan.kernel.rfind("sm90_", 0) == 0,
                d.name() + " GELU range: runs on the sm90 kernels: " + plan.kernel);
          hgemm::gemm(d, a, b, c, nullptr);
        }
        CUDA_OK(cudaDeviceSynchronize());
        std::vector<uint16_t> hc(size_t(s.m * s.n));
        CUDA_OK(cudaMemcpy(hc.data(), c, hc.size() * 2, cudaMemcpyDeviceToHost));
        const double tanh_error = dtype == DType::kF16 ? std::ldexp(1.0, -9) : std::ldexp(1.0, -6);
        for (int64_t i = 0; i < s.m && failure.empty(); ++i)
          for (int64_t j = 0; j < s.n && failure.empty(); ++j) {
            const double bj = from_bits(hb[size_t(j * k)], dtype);
            const double x = double(k) * bj + from_bits(hbias[size_t(j)], dtype);
            const double ref = reference_activation(x, Activation::kGeluTanh);
            // GELU(x) rounded; below fp16's range the exact value is a tiny negative, 0 here.
            const int kind = int(j % std::size(x_values));
            const double want = kind == 8 ? (dtype == DType::kF16 ? 0 : NAN)
                                : std::isnan(x) ? NAN
                                                : from_bits(to_bits(float(ref), dtype), dtype);
            const double got = from_bits(hc[size_t(i * s.n + j)], dtype);
            const bool saturated = kind <= 4 || kind >= 7;
            const bool ok =
                std::isnan(want) ? std::isnan(got)
                : saturated      ? got == want || (want == 0 && got == 0)
                                 : std::fabs(got - want) <=
                                  0.5 * std::fabs(x) * tanh_error +
                                      2 * std::fabs(want) * (dtype == DType::kF16
                                                                 ? std::ldexp(1.0, -10)
                                                                 : std::ldexp(1.0, -7));
            if (!ok)
              failure = "(" + std::to_string(i) + "," + std::to_string(j) + ") x " +
                        std::to_string(x) + ": got " + std::to_string(got) + ", want " +
                        std::to_string(want);
          }
      } catch (const hgemm::Error& e) {
        failure = e.what();
      }
      for (void* p : {a, b, c, bias}) CUDA_OK(cudaFree(p));
      check(failure.empty(), d.name() + " GELU range" +
                                 (inst ? " on " + inst->config.name() : std::string()) +
                                 (failure.empty() ? "" : ": " + failure));
      ++cases;
    }
  }
  // Two calls per type through dispatch, one on a three-warpgroup tile.
  check(cases == 6, "GELU range: " + std::to_string(cases) + " of 6 calls");
}

// Calls the tuned kernels cannot take name the safety net and why.
void test_safety_net_plan() {
  void *a, *b, *c;
  CUDA_OK(cudaMalloc(&a, 1 << 20));
  CUDA_OK(cudaMalloc(&b, 1 << 20));
  CUDA_OK(cudaMalloc(&c, 1 << 20));
  hgemmGemmDesc_t cd;
  hgemmGemmDescInit(&cd, 128, 128, 128);
  hgemmGemmPlan_t plan;
  // beta with fp16 accumulators beyond decode's M: the sm90 kernels fuse no epilogue there.
  cd.beta = 0.5f;
  cd.acc = HGEMM_ACC_F16;
  const hgemmStatus_t s = hgemmGemmExplain(&cd, a, b, c, &plan);
  check(s == HGEMM_SUCCESS && plan.path == HGEMM_PATH_SAFETY_NET &&
            std::string(plan.kernel) == "sm80_general_64x64x32_f16_f16" &&
            std::string(plan.reason).find("beta") != std::string::npos,
        std::string("beta != 0 with fp16 accumulation takes the safety net: ") + plan.kernel +
            " [" + plan.source + "] " + plan.reason + " " + hgemmLastErrorMessage());
  // Three column-major A whose rows TMA cannot step (M % 8 != 0): no kernel reads batches of
  // them, and the plan says what the kernels refused; one matrix is copied into rows and runs as
  // the row-major call, unless the copy would pass the scratch limit.
  hgemmGemmDescInit(&cd, 100, 128, 128);
  cd.order_a = HGEMM_ORDER_COL;
  cd.batch_count = 3;
  cd.stride_a = 100 * 128;
  cd.stride_b = 128 * 128;
  cd.stride_c = 100 * 128;
  const hgemmStatus_t s2 = hgemmGemmExplain(&cd, a, b, c, &plan);
  check(s2 == HGEMM_SUCCESS && plan.path == HGEMM_PATH_SAFETY_NET &&
            std::string(plan.reason).find("lda=100") != std::string::npos,
        std::string("3 column-major A of M = 100 take the safety net: ") + plan.reason);
  hgemmGemmDescInit(&cd, 100, 128, 128);
  cd.order_a = HGEMM_ORDER_COL;
  const hgemmStatus_t s3 = hgemmGemmExplain(&cd, a, b, c, &plan);
  check(s3 == HGEMM_SUCCESS && plan.path == HGEMM_PATH_DISPATCH &&
            std::string(plan.reason).find("copied to rows first") != std::string::npos,
        std::string("one column-major A of M = 100 runs from a copy in rows: ") + plan.kernel +
            " [" + plan.source + "] " + plan.reason);
  // A (34 MB) and B (4 MB) need their own allocations: ranges past the 1 MiB buffers could
  // overlap C, which the call refuses.
  void *big_a, *big_b;
  CUDA_OK(cudaMalloc(&big_a, size_t(1008) * (16384 + 512) * 2 + 256));
  CUDA_OK(cudaMalloc(&big_b, size_t(128) * (16384 + 512) * 2));
  hgemmGemmDescInit(&cd, 1001, 128, 16384 + 512);
  cd.order_a = HGEMM_ORDER_COL;
  plan = hgemmGemmPlan_t{};
  const hgemmStatus_t s4 = hgemmGemmExplain(&cd, big_a, big_b, c, &plan);
  check(s4 == HGEMM_SUCCESS && plan.path == HGEMM_PATH_DISPATCH &&
            std::string(plan.reason).find("in blocks of 896 rows") != std::string::npos,
        std::string("a column-major A of odd rows whose copy passes 32 MiB runs in blocks: ") +
            hgemmStatusString(s4) + " / " + plan.reason + " " + hgemmLastErrorMessage());
  // Rows of 16 bytes from a base that is not 16-byte aligned: the sm90 kernels would read it
  // from a copy (launch/sm90_launch.cu), which passes 32 MiB here, so nothing compiled runs it.
  hgemmGemmDescInit(&cd, 1008, 128, 16384 + 512);
  cd.order_a = HGEMM_ORDER_COL;
  plan = hgemmGemmPlan_t{};
  const hgemmStatus_t s5 =
      hgemmGemmExplain(&cd, static_cast<char*>(big_a) + 2, big_b, c, &plan);
  check(s5 == HGEMM_SUCCESS && plan.path == HGEMM_PATH_SAFETY_NET &&
            std::string(plan.reason).find("copy") != std::string::npos,
        std::string("a misaligned column-major A whose copy passes 32 MiB takes the safety net: ") +
            hgemmStatusString(s5) + " / " + plan.reason + " " + hgemmLastErrorMessage());
  for (void* p : {a, b, c, big_a, big_b}) CUDA_OK(cudaFree(p));
}

// Refusals that need the device: pointers it cannot read.
void test_device_refusals() {
  void* dev;
  CUDA_OK(cudaMalloc(&dev, 3 * 64 * 64 * 2));
  char* base = static_cast<char*>(dev);
  std::vector<uint16_t> host(64 * 64);
  hgemmGemmDesc_t d;
  hgemmGemmDescInit(&d, 64, 64, 64);
  d.dtype = HGEMM_DTYPE_BF16;
  hgemmStatus_t s = hgemmGemm(&d, host.data(), base + 8192, base + 16384, nullptr);
  check(s == HGEMM_ERROR_INVALID_POINTER &&
            std::string(hgemmLastErrorMessage()).find("A") != std::string::npos,
        std::string("host A is refused: ") + hgemmStatusString(s) + " / " + hgemmLastErrorMessage());
  d.bias = host.data();
  s = hgemmGemm(&d, base, base + 8192, base + 16384, nullptr);
  check(s == HGEMM_ERROR_INVALID_BIAS,
        std::string("host bias is refused: ") + hgemmStatusString(s) + " / " + hgemmLastErrorMessage());
  d.bias = nullptr;
  s = hgemmGemm(&d, base, base + 8192, base + 16384, nullptr);
  check(s == HGEMM_SUCCESS && cudaDeviceSynchronize() == cudaSuccess,
        "a valid call succeeds after refused ones");
  CUDA_OK(cudaFree(dev));
}

size_t mem_alloc_nodes(cudaGraph_t graph) {
  size_t count = 0;
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CUDA_OK(cudaGraphGetNodes(graph, nodes.data(), &count));
  size_t allocs = 0;
  for (cudaGraphNode_t n : nodes) {
    cudaGraphNodeType type;
    CUDA_OK(cudaGraphNodeGetType(n, &type));
    if (type == cudaGraphNodeTypeMemAlloc) ++allocs;
  }
  return allocs;
}

// A split-K call with the caller's workspace allocates nothing: captured into a graph, it has no
// allocation node where hgemmRun's (pooled scratch) has one, and it gives hgemmRun's bits. With
// `col_major_a` the call's A is the column-major copy of hgemmRun's (at most 256 rows: copied
// into rows in the workspace, then split in the rest of it): the same bits.
void test_workspace(int64_t m, int64_t n, int64_t k, bool col_major_a) {
  void *a, *a_gemm, *b, *c_run, *c_gemm, *workspace;
  CUDA_OK(cudaMalloc(&a, size_t(m * k) * 2));
  CUDA_OK(cudaMalloc(&b, size_t(k * n) * 2));
  CUDA_OK(cudaMalloc(&c_run, size_t(m * n) * 2));
  CUDA_OK(cudaMalloc(&c_gemm, size_t(m * n) * 2));
  fill(a, m * k, 21);
  fill(b, k * n, 22);
  a_gemm = a;
  if (col_major_a) {
    CUDA_OK(cudaMalloc(&a_gemm, size_t(m * k) * 2));
    copy_column_major(a, a_gemm, m, k);
  }
  // Work on the legacy stream does not order with the non-blocking stream below.
  CUDA_OK(cudaDeviceSynchronize());
  hgemmGemmDesc_t d;
  hgemmGemmDescInit(&d, m, n, k);
  d.order_b = HGEMM_ORDER_COL;  // TN
  if (col_major_a) d.order_a = HGEMM_ORDER_COL;
  const std::string what = std::string(col_major_a ? "a column-major-A " : "a plain ") +
                           std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  size_t bytes = 0;
  check(hgemmGemmWorkspaceSize(&d, &bytes) == HGEMM_SUCCESS && bytes > 0,
        what + " call may use " + std::to_string(bytes) + " workspace bytes");
  CUDA_OK(cudaMalloc(&workspace, std::max<size_t>(bytes, 16)));
  d.workspace = workspace;
  d.workspace_size = bytes;

  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto capture = [&](auto&& call, size_t* allocs) {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const hgemmStatus_t s = call();
    CUDA_OK(cudaStreamEndCapture(stream, &graph));
    *allocs = mem_alloc_nodes(graph);
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_OK(cudaGraphLaunch(exec, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
    return s;
  };
  // Eager calls first: the first call of a shape loads tables and configures kernels, which
  // belongs outside a capture.
  check(hgemmRun(a, b, c_run, m, n, k, HGEMM_LAYOUT_TN, HGEMM_ACC_F32, stream) == HGEMM_SUCCESS &&
            hgemmGemm(&d, a_gemm, b, c_gemm, stream) == HGEMM_SUCCESS &&
            cudaStreamSynchronize(stream) == cudaSuccess,
        what + ": eager calls with and without a workspace " + hgemmLastErrorMessage());
  CUDA_OK(cudaMemset(c_run, 0xff, size_t(m * n) * 2));
  CUDA_OK(cudaMemset(c_gemm, 0x7f, size_t(m * n) * 2));
  CUDA_OK(cudaDeviceSynchronize());
  size_t run_allocs = 0, gemm_allocs = 0;
  const hgemmStatus_t run_status = capture(
      [&] { return hgemmRun(a, b, c_run, m, n, k, HGEMM_LAYOUT_TN, HGEMM_ACC_F32, stream); },
      &run_allocs);
  const hgemmStatus_t gemm_status =
      capture([&] { return hgemmGemm(&d, a_gemm, b, c_gemm, stream); }, &gemm_allocs);
  check(run_status == HGEMM_SUCCESS && run_allocs > 0,
        "hgemmRun splits K here and takes pooled scratch (" + std::to_string(run_allocs) +
            " allocation nodes); otherwise this test proves nothing");
  check(gemm_status == HGEMM_SUCCESS && gemm_allocs == 0,
        what + ": with a workspace the call allocates nothing (" +
            std::to_string(gemm_allocs) + " allocation nodes) " + hgemmLastErrorMessage());
  check(gpu_checks::same_bits(c_run, c_gemm, m, n), what + ": with a workspace, hgemmRun's bits");
  d.workspace_size = bytes - 1;
  const hgemmStatus_t small = hgemmGemm(&d, a_gemm, b, c_gemm, stream);
  check(small == HGEMM_ERROR_WORKSPACE_TOO_SMALL,
        what + ": a workspace one byte short is refused: " + hgemmStatusString(small));
  CUDA_OK(cudaStreamDestroy(stream));
  if (a_gemm != a) CUDA_OK(cudaFree(a_gemm));
  for (void* p : {a, b, c_run, c_gemm, workspace}) CUDA_OK(cudaFree(p));
}

// A column-major A of odd rows whose copy into rows would take more than kMaxWorkspaceBytes
// (2500 x 8192: 41 MB) runs in blocks of rows (GemmRoute::a_rows_block): each block is copied and
// run as the row-major call on its rows of C, so every block gives the bits of that row-major
// call (same problem, same kernel), with alpha, beta and a bias fused. With a caller's workspace
// the call allocates nothing in a graph; a block that wrote the wrong rows of C, or read a copy
// the next block had overwritten, shows as changed bits.
void test_rows_blocks() {
  const int64_t m = 2500, n = 256, k = 8192;
  void *a_rows, *a_cols, *b, *bias, *c_ref, *c_gemm, *workspace;
  CUDA_OK(cudaMalloc(&a_rows, size_t(m * k) * 2));
  CUDA_OK(cudaMalloc(&a_cols, size_t(m * k) * 2));
  CUDA_OK(cudaMalloc(&b, size_t(k * n) * 2));
  CUDA_OK(cudaMalloc(&bias, size_t(n) * 2));
  CUDA_OK(cudaMalloc(&c_ref, size_t(m * n) * 2));
  CUDA_OK(cudaMalloc(&c_gemm, size_t(m * n) * 2));
  fill(a_rows, m * k, 31);
  fill(b, k * n, 32);
  fill(bias, n, 33);
  copy_column_major(a_rows, a_cols, m, k);
  auto desc = [&](int64_t rows, Order oa) {
    GemmDesc d = plain(rows, n, k, oa, Order::kCol, Order::kRow, hgemm::Accum::kF32);  // TN
    d.alpha = 0.75f;
    d.beta = -0.5f;
    d.bias = bias;
    return d;
  };
  GemmDesc d = desc(m, Order::kCol);
  const hgemm::dispatch::GemmRoute route = hgemm::dispatch::route(d);
  const int64_t block = route.a_rows_block;
  check(route.a_rows_first && block > 0 && block < m && block % 128 == 0,
        "2500 x 8192 column-major A is copied into rows in blocks of " + std::to_string(block) +
            " rows: " + route.reason);
  if (!(block > 0 && block < m)) return;
  try {
    const hgemm::GemmPlan plan = hgemm::explain(d, a_cols, b, c_gemm);
    check(plan.path == HGEMM_PATH_DISPATCH && plan.reason.find("blocks") != std::string::npos,
          "the blocked call runs on dispatch's kernels: " + plan.kernel + " " + plan.reason);
  } catch (const hgemm::Error& e) {
    check(false, std::string("explain the blocked call: ") + e.what());
  }
  // The reference: the row-major call on each block of rows, from the same C (beta reads it).
  auto reference = [&] {
    fill(c_ref, m * n, 34);
    CUDA_OK(cudaMemcpy(c_gemm, c_ref, size_t(m * n) * 2, cudaMemcpyDeviceToDevice));
    for (int64_t m0 = 0; m0 < m; m0 += block) {
      try {
        hgemm::gemm(desc(std::min(block, m - m0), Order::kRow),
                    static_cast<uint16_t*>(a_rows) + m0 * k, b,
                    static_cast<uint16_t*>(c_ref) + m0 * n, nullptr);
      } catch (const hgemm::Error& e) {
        check(false, "row-major block at row " + std::to_string(m0) + ": " + e.what());
      }
    }
    CUDA_OK(cudaDeviceSynchronize());
  };
  reference();
  try {
    hgemm::gemm(d, a_cols, b, c_gemm, nullptr);
    CUDA_OK(cudaDeviceSynchronize());
    check(gpu_checks::same_bits(c_ref, c_gemm, m, n),
          "the blocked column-major-A call gives the row-major blocks' bits (pooled scratch)");
  } catch (const hgemm::Error& e) {
    check(false, std::string("the blocked column-major-A call, pooled scratch: ") + e.what());
  }

  // Again with the caller's workspace, captured: no allocation node, the same bits.
  const size_t bytes = hgemm::workspace_size(d);
  check(bytes >= hgemm::a_rows_bytes(block, k) && bytes <= 2 * hgemm::kMaxWorkspaceBytes,
        "the blocked call may use " + std::to_string(bytes) + " workspace bytes");
  CUDA_OK(cudaMalloc(&workspace, bytes));
  d.workspace = workspace;
  d.workspace_bytes = bytes;
  reference();
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  std::string failed;
  try {
    hgemm::gemm(d, a_cols, b, c_gemm, stream);
  } catch (const hgemm::Error& e) {
    failed = e.what();
  }
  CUDA_OK(cudaStreamEndCapture(stream, &graph));
  const size_t allocs = mem_alloc_nodes(graph);
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_OK(cudaGraphLaunch(exec, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  check(failed.empty() && allocs == 0,
        "the blocked call with a workspace, captured, allocates nothing (" +
            std::to_string(allocs) + " allocation nodes) " + failed);
  check(gpu_checks::same_bits(c_ref, c_gemm, m, n),
        "the blocked column-major-A call gives the row-major blocks' bits (caller's workspace)");
  CUDA_OK(cudaStreamDestroy(stream));
  for (void* p : {a_rows, a_cols, b, bias, c_ref, c_gemm, workspace}) CUDA_OK(cudaFree(p));
}

// Column-major A's copied into rows, back to back on one stream with no wait between: two calls
// of each shape with different A's, the second's copy where the pool reuses the first's freed
// memory, so that its copy kernel must wait for the GEMM ahead of it (still reading the other A's
// copy) before writing, and its GEMM for its copy before reading. Swap-AB and plain tiles, both
// B layouts. Every result has the row-major call's bits.
void test_rows_copy_in_turn() {
  struct Case {
    int64_t m, n, k;
    Order b;  // kCol: B is N x K (TN)
  };
  const Case cases[] = {{77, 4096, 4096, Order::kCol},  // a swap-AB tile: B is its A
                        {12, 4096, 2048, Order::kRow},  // NN's swap-AB decode tile
                        {40, 28672, 1024, Order::kCol},  // a 64-row tile: B is its B
                        {200, 2048, 2048, Order::kRow}};
  constexpr int kTurns = 2;
  struct Call {
    GemmDesc d;
    void *a_rows, *a_cols, *b, *c_ref, *c_gemm;
    std::string plan;
  };
  std::vector<Call> calls;
  uint32_t seed = 4100;
  for (const Case& cs : cases)
    for (int turn = 0; turn < kTurns; ++turn) {
      Call call{plain(cs.m, cs.n, cs.k, Order::kCol, cs.b, Order::kRow, hgemm::Accum::kF32)};
      const int64_t m = cs.m, n = cs.n, k = cs.k;
      CUDA_OK(cudaMalloc(&call.a_rows, size_t(m * k) * 2));
      CUDA_OK(cudaMalloc(&call.a_cols, size_t(m * k) * 2));
      CUDA_OK(cudaMalloc(&call.b, size_t(k * n) * 2));
      CUDA_OK(cudaMalloc(&call.c_ref, size_t(m * n) * 2));
      CUDA_OK(cudaMalloc(&call.c_gemm, size_t(m * n) * 2));
      fill(call.a_rows, m * k, seed++);
      fill(call.b, k * n, seed++);
      copy_column_major(call.a_rows, call.a_cols, m, k);
      try {
        const hgemm::GemmPlan plan = hgemm::explain(call.d, call.a_cols, call.b, call.c_gemm);
        call.plan = plan.kernel + " " + plan.reason;
        check(plan.path == HGEMM_PATH_DISPATCH && plan.kernel.rfind("sm90_", 0) == 0 &&
                  plan.reason.find("copied to rows first") != std::string::npos,
              call.d.name() + " runs an sm90 kernel on a copy in rows: " + call.plan);
        GemmDesc row_major = call.d;
        row_major.order_a = Order::kRow;
        hgemm::gemm(row_major, call.a_rows, call.b, call.c_ref, nullptr);
      } catch (const hgemm::Error& e) {
        check(false, call.d.name() + ": " + e.what());
      }
      calls.push_back(call);
    }
  CUDA_OK(cudaDeviceSynchronize());
  for (const Call& call : calls) {
    try {
      hgemm::gemm(call.d, call.a_cols, call.b, call.c_gemm, nullptr);
    } catch (const hgemm::Error& e) {
      check(false, call.d.name() + " from rows: " + e.what());
    }
  }
  CUDA_OK(cudaDeviceSynchronize());
  for (const Call& call : calls) {
    check(gpu_checks::same_bits(call.c_ref, call.c_gemm, call.d.m, call.d.n),
          call.d.name() + " from its copy in rows, calls back to back, gives the row-major "
                          "call's bits: " + call.plan);
    for (void* p : {call.a_rows, call.a_cols, call.b, call.c_ref, call.c_gemm})
      CUDA_OK(cudaFree(p));
  }
}

// A safety-net call captured in a graph and replayed equals an eager call, bitwise.
// `batches` > 1: strided batches that the sm90 kernels run (one launch), one B for all.
void test_graph_replay(int64_t batches) {
  const int64_t m = batches > 1 ? 96 : 77, n = batches > 1 ? 128 : 130, k = batches > 1 ? 64 : 99;
  const char* what = batches > 1 ? "batched dispatch" : "safety-net";
  void *a, *b, *c_graph, *c_eager, *bias;
  CUDA_OK(cudaMalloc(&a, size_t(batches * m * k) * 2));
  CUDA_OK(cudaMalloc(&b, size_t(k * n) * 2));
  CUDA_OK(cudaMalloc(&c_graph, size_t(batches * m * n) * 2));
  CUDA_OK(cudaMalloc(&c_eager, size_t(batches * m * n) * 2));
  CUDA_OK(cudaMalloc(&bias, size_t(n) * 2));
  fill(a, batches * m * k, 31);
  fill(b, k * n, 32);
  fill(bias, n, 33);
  CUDA_OK(cudaDeviceSynchronize());  // the calls below run on a non-blocking stream
  hgemmGemmDesc_t d;
  hgemmGemmDescInit(&d, m, n, k);
  d.alpha = 0.5f;
  d.activation = HGEMM_ACTIVATION_GELU;
  if (batches > 1) {
    d.batch_count = batches;
    d.stride_a = m * k;
    d.stride_c = m * n;
    d.bias = bias;
  } else {
    d.order_a = HGEMM_ORDER_COL;
    d.order_c = HGEMM_ORDER_COL;
    d.bias = bias;
  }
  hgemmGemmPlan_t plan{};
  // Explained before the check: its message reads the plan.
  const hgemmStatus_t explained = hgemmGemmExplain(&d, a, b, c_graph, &plan);
  check(explained == HGEMM_SUCCESS &&
            (batches > 1) == (plan.path == HGEMM_PATH_DISPATCH),
        std::string(what) + " graph case takes its path: " + plan.kernel + " " + plan.reason);
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const hgemmStatus_t captured = hgemmGemm(&d, a, b, c_graph, stream);
  CUDA_OK(cudaStreamEndCapture(stream, &graph));
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  bool same = captured == HGEMM_SUCCESS;
  for (uint32_t replay = 0; replay < 3 && same; ++replay) {
    gpu_checks::fill_kernel<<<256, 256, 0, stream>>>(static_cast<__half*>(a), batches * m * k,
                                                     40 + replay);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaGraphLaunch(exec, stream));
    same = hgemmGemm(&d, a, b, c_eager, stream) == HGEMM_SUCCESS &&
           cudaStreamSynchronize(stream) == cudaSuccess &&
           gpu_checks::same_bits(c_graph, c_eager, batches * m, n);
  }
  check(same, std::string("a ") + what + " call replayed from a graph equals an eager call");
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  CUDA_OK(cudaStreamDestroy(stream));
  for (void* p : {a, b, c_graph, c_eager, bias}) CUDA_OK(cudaFree(p));
}

}  // namespace

// Every compiled general flavour on its own (dispatch reaches each only for shapes whose pick it
// is): a column-major A (with alpha, beta, a bias and GELU where the accumulation is fp32), and
// strided batches (with beta) sharing one B. M is past kARowsFirstMaxM and a multiple of 8, as
// dispatch sends a column-major A to this flavour; N and K leave partial tiles.
void test_general_flavours(Buffers& buf) {
  int ran = 0;
  uint64_t seed = 5100;
  for (const hgemm::KernelInstance& inst : hgemm::sm90_instances()) {
    const hgemm::KernelConfig& c = inst.config;
    if (!hgemm::sm90::has_general_flavour(hgemm::sm90_variant(c))) continue;
    ++ran;
    const Order ob = c.layout == hgemm::Layout::kTN ? Order::kCol : Order::kRow;
    const Types t{c.dtype, c.accum};
    // The kernels fuse alpha, beta and a bias with fp32 accumulation only.
    const bool fused = c.accum == hgemm::Accum::kF32;
    GemmDesc acol = make_desc({264, 1000, 520}, Order::kCol, ob, Order::kRow, t, false,
                              Batching::kOne, fused ? 1.25f : 1.0f, fused ? -0.5f : 0.0f,
                              {fused, fused ? Activation::kGelu : Activation::kNone});
    run_case(buf, acol, fused, 0, seed++, 0, &inst);
    // Three batches of A sharing one B (heads against one weight), C side by side in its rows;
    // strides that TMA can step (multiples of 8 elements).
    GemmDesc batched = make_desc({136, 264, 200}, Order::kRow, ob, Order::kRow, t, false,
                                 Batching::kOne, 1.0f, fused ? 0.5f : 0.0f,
                                 {false, Activation::kNone});
    batched.batch_count = 3;
    batched.stride_a = batched.m * batched.k + 8;
    batched.stride_b = 0;
    batched.stride_c = batched.n;
    batched.ldc = 3 * batched.n;
    run_case(buf, batched, false, 0, seed++, 0, &inst);
  }
  // Ten catalog rows compile the flavour, each in fp16 (both accumulations) and bf16, TN and NN.
  check(ran == 10 * 6, "general flavours verified one by one: " + std::to_string(ran) +
                           " instances, 60 expected");
}

// Every swap-AB row's flavour for a column-major A on its own (CatalogRow::with_column_major_a;
// dispatch reaches each only where it is a call's pick): one whole tile of tokens and a partial
// one, whose columns past M TMA fills with zeros, N and K with partial tiles, a bias and GELU
// where the accumulation is fp32; and the same A at a leading dimension 16 elements past M, so
// that columns are not packed. --quick: the fp16 instances with fp32 accumulation, packed.
void test_swap_column_major_flavours(Buffers& buf) {
  int ran = 0;
  uint64_t seed = 5300;
  for (const hgemm::KernelInstance& inst : hgemm::sm90_instances()) {
    const hgemm::KernelConfig& c = inst.config;
    if (!c.swap_ab || !hgemm::sm90::has_column_major_flavour(hgemm::sm90_variant(c))) continue;
    if (g_quick && (c.dtype != DType::kF16 || c.accum != hgemm::Accum::kF32)) continue;
    ++ran;
    const Order ob = c.layout == hgemm::Layout::kTN ? Order::kCol : Order::kRow;
    const Types t{c.dtype, c.accum};
    const bool fused = c.accum == hgemm::Accum::kF32;
    // The config's block_m is its width in tokens (the problem's M); the flavour takes columns
    // 32 bytes apart.
    GemmDesc acol = make_desc({c.block_m + 16, 200, 520}, Order::kCol, ob, Order::kRow, t, false,
                              Batching::kOne, 1.0f, 0.0f,
                              {fused, fused ? Activation::kGelu : Activation::kNone});
    run_case(buf, acol, fused, 0, seed++, 0, &inst);
    if (g_quick) continue;
    acol.lda = acol.m + 16;
    run_case(buf, acol, false, 0, seed++, 0, &inst);
  }
  // Eight swap-AB rows compile the flavour, each in fp16 (both accumulations) and bf16, TN and
  // NN.
  const int expected = g_quick ? 8 * 2 : 8 * 6;
  check(ran == expected, "swap-AB flavours for a column-major A verified one by one: " +
                             std::to_string(ran) + " instances, " + std::to_string(expected) +
                             " expected");
}

// The three-warpgroup tiles apply the tanh GELU to their fp32 accumulators
// (kernels::gelu_tanh_approx), where the rounded pairs' GELU the other tiles take spilled: each
// such instance once, with a bias, over partial tiles on every side and a partial k-block.
void test_three_warpgroup_tanh_gelu(Buffers& buf) {
  int ran = 0, expected = 0;
  uint64_t seed = 5400;
  for (const hgemm::Sm90Variant& v : hgemm::sm90::kCatalog)
    if (v.num_consumer_wgs == 3 && v.accum == hgemm::Accum::kF32 &&
        (!g_quick || v.dtype == DType::kF16))
      ++expected;
  for (const hgemm::KernelInstance& inst : hgemm::sm90_instances()) {
    const hgemm::KernelConfig& c = inst.config;
    if (c.num_consumer_wgs != 3 || c.accum != hgemm::Accum::kF32) continue;
    if (g_quick && c.dtype != DType::kF16) continue;
    ++ran;
    const Order ob = c.layout == hgemm::Layout::kTN ? Order::kCol : Order::kRow;
    const GemmDesc d = make_desc({c.block_m + 40, c.block_n + 24, 520}, Order::kRow, ob,
                                 Order::kRow, {c.dtype, c.accum}, false, Batching::kOne, 1.0f,
                                 0.0f, {true, Activation::kGeluTanh});
    run_case(buf, d, true, 0, seed++, 0, &inst);
  }
  check(ran == expected && ran > 0,
        "three-warpgroup tiles with the tanh GELU verified one by one: " + std::to_string(ran) +
            " instances, " + std::to_string(expected) + " in the catalog");
}

// Calls drawn at random, each through hgemmGemm's dispatch against the reference. The sweeps
// above fix their shapes; the routes that tuned tables, the rules and the cost model choose
// between (decode kernels, swap-AB widths, split-K, the copy of a column-major A into rows, a
// padded C, the safety net) depend on the shape, so these draw shapes from the range models call,
// with the call's options drawn beside them. The draw is seeded: a failure names its call, and
// the same seed and count draw it again. Each product is capped at 2^31 multiply-adds (2^24 under
// --quick, which memcheck runs) to keep the fp64 reference short. Each line names the kernel
// dispatch ran and the rule that chose it.
void test_random_calls(Buffers& buf, int count, uint64_t seed) {
  Rng rng{seed};
  const auto draw = [&rng](uint64_t bound) { return rng.below(bound); };
  // Log-uniform in [lo, hi].
  const auto dim = [&](int64_t lo, int64_t hi) {
    const double u = double(draw(1u << 20)) / double(1u << 20);
    return std::llround(std::exp(std::log(double(lo)) + u * std::log(double(hi) / double(lo))));
  };
  // A model's width from 256 on: a multiple of 128 half the time, of 8 a third; a sixth any
  // width from 1 (rows off 16-byte alignment, which the TMA kernels leave to others).
  const auto width = [&]() -> int64_t {
    const uint64_t kind = draw(6);
    if (kind == 0) return dim(1, 8192);
    const int64_t v = dim(256, 8192);
    return kind < 4 ? (v + 127) / 128 * 128 : (v + 7) / 8 * 8;
  };
  const int64_t cap = g_quick ? int64_t(1) << 24 : int64_t(1) << 31;
  for (int i = 0; i < count; ++i) {
    // Token counts: up to 16 (decode) a quarter of the time, else 17 to 4096.
    Shape s{draw(4) == 0 ? dim(1, 16) : dim(17, 4096), width(), width()};
    while (s.m * s.n * s.k > cap) {
      int64_t& largest = s.m >= s.n && s.m >= s.k ? s.m : (s.n >= s.k ? s.n : s.k);
      largest = largest % 16 == 0 ? largest / 2 : (largest + 1) / 2;  // keeps 16-byte rows
    }
    const Order oa = draw(3) == 0 ? Order::kCol : Order::kRow;
    const Order ob = draw(2) == 0 ? Order::kCol : Order::kRow;
    const Order oc = draw(6) == 0 ? Order::kCol : Order::kRow;
    const Types t = kTypes[draw(5) < 3 ? 0 : 1 + draw(2)];
    // Leading dimensions past the row: aligned (a slice of a wider buffer) or odd.
    const uint64_t pad_kind = draw(8);
    const bool padded = pad_kind < 2;
    const int64_t pad_by = pad_kind == 0 ? 64 : 3;
    const Batching batching = 3 * s.m * s.n * s.k > cap ? Batching::kOne
                              : draw(5) > 0             ? Batching::kOne
                              : draw(2) == 0            ? Batching::kGapped
                                                        : Batching::kBroadcastSideBySide;
    const auto [alpha, beta] = kScalars[draw(10) < 7 ? 0 : 1 + draw(2)];
    const Epilogue e = kEpilogues[draw(5) < 3 ? 0 : 1 + draw(4)];
    const GemmDesc d = make_desc(s, oa, ob, oc, t, padded, batching, alpha, beta, e, pad_by);
    // Pointers one or two elements off alignment a sixth of the time.
    const int64_t offset = draw(6) == 0 ? 1 + int64_t(draw(2)) : 0;
    run_case(buf, d, e.bias, offset, seed + uint64_t(i), 0, nullptr, /*name_plan=*/true);
  }
}

int main(int argc, char** argv) {
  g_quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  if (!gpu_checks::device_present("GPU tests never skip")) return 1;
  const bool sm90 = hgemm::current_device().is_sm90();
  Buffers buf;
  // Residues of 8 and of the 64 x 64 x 32 tile, and one shape of whole tiles.
  sweep(buf, g_quick ? std::vector<Shape>{{37, 45, 71}}
                     : std::vector<Shape>{{37, 45, 71}, {128, 64, 96}, {130, 67, 33}},
        /*all_scalars=*/!g_quick);
  // Degenerate and larger shapes, one scalar/epilogue pair per combination. The last has more
  // tiles than the grid, so CTAs loop.
  sweep(buf, g_quick ? std::vector<Shape>{{1, 1, 1}, {65, 1, 130}}
                     : std::vector<Shape>{{1, 1, 1}, {1, 77, 5}, {65, 1, 130}, {200, 130, 1},
                                          {300, 500, 700}},
        /*all_scalars=*/false);
  if (!g_quick) {
    GemmDesc big = make_desc({4096, 2048, 40}, Order::kRow, Order::kCol, Order::kCol,
                             {DType::kBF16, hgemm::Accum::kF32}, true, Batching::kGapped, 0.75f,
                             -0.5f, {true, Activation::kGelu});
    run_case(buf, big, true, 1, 99);
  }
  test_dispatch_path(g_quick ? std::vector<Shape>{{17, 33, 65}, {512, 256, 384}}
                             : std::vector<Shape>{{17, 33, 65}, {8, 4096, 4096},
                                                  {1000, 1000, 1000}, {2048, 2048, 2048},
                                                  {256, 128, 16384}},
                     sm90);
  if (!sm90)
    check(false, hgemm::current_device().name +
                     " is not sm_90: the dispatch path's kernels were not checked to be sm90's");
  // The tuned kernels' families on the general call's paths: decode (M <= 16), swap-AB (odd M),
  // split-K, sm90 tiles, and N % 8 != 0 (the predicated sm80 kernel, or the safety net).
  const std::vector<Shape> tuned_shapes =
      g_quick ? std::vector<Shape>{{1, 256, 512}, {300, 512, 256}, {256, 384, 128}}
              : std::vector<Shape>{{1, 4096, 4096},   {16, 2048, 1024},  {77, 1024, 2048},
                                   {300, 512, 256},   {1000, 1000, 1000}, {256, 128, 16384},
                                   {2048, 2048, 512}, {129, 300, 64}};
  test_bf16_dispatch(buf, tuned_shapes);
  test_fused_epilogue(buf, tuned_shapes);
  test_strided_dispatch(buf, tuned_shapes);
  std::vector<Shape> batched_shapes = tuned_shapes;
  batched_shapes.push_back({128, 128, 64});  // a head of attention
  test_batched_dispatch(buf, batched_shapes);
  test_col_major_a(buf, tuned_shapes, sm90);
  if (sm90) test_decode_col_major_a(buf);
  if (sm90) test_rows_copy_in_turn();
  if (sm90 && !g_quick) test_general_flavours(buf);
  if (sm90) test_swap_column_major_flavours(buf);
  if (sm90) test_three_warpgroup_tanh_gelu(buf);
  if (!g_quick) test_epilogue_ping_pong(buf);
  if (sm90) test_gelu_range();
  test_safety_net_plan();
  test_device_refusals();
  if (!g_quick) {
    test_workspace(256, 128, 16384, false);
    test_workspace(256, 128, 16384, true);
    test_rows_blocks();
  }
  test_graph_replay(1);
  test_graph_replay(6);
  test_random_calls(buf, g_quick ? 12 : 160, 20261202);
  return gpu_checks::summary();
}
