// The verifier: every kernel passes it before it is timed. Tests, `hgemm verify`, the benchmark
// harness and the tuner all call it. A check never aborts the process: failures come back as a
// disposition with a reason and the worst element.
//
// Inputs, C and the reference's inputs are all of the problem's element type (fp16 or bf16), so
// the reference multiplies exactly the values the GEMM under test sees.
//
// Checks (each can be switched off in Options):
//   random_normal   N(0,1) inputs against a reference accumulating in fp32 (cuBLAS COMPUTE_32F,
//                   fp32 output); relative Frobenius and max-abs error against tolerances derived
//                   from K, the accumulation type and C's rounding (fp16 or bf16). In fp16
//                   accumulation mode the tolerance is also no worse than cuBLAS COMPUTE_16F on
//                   the same inputs.
//   small_integer   inputs in {-1,0,1}: exact match wherever the exact result is representable
//                   (|ref| <= 2048 in fp16, <= 256 in bf16).
//   precision_probe fp32 mode only: a large partial sum followed by many small contributions that
//                   a 16-bit accumulator drops; exact match required.
//   guard_bands     C sits inside a larger buffer poisoned with a NaN pattern; every element of C
//                   must be written and every byte around it left untouched (run with every check).
//   nonfinite       NaN and Inf in A and B must propagate to the rows/columns they touch.
//
// Epilogue (Options::epilogue): a GEMM under test that computes C = act(alpha * A*B + bias) is
// judged against the reference with the same alpha, bias and activation applied in fp64 to its
// fp32 product (and to cuBLAS COMPUTE_16F's output, which widens fp16 accumulation's tolerance).
// The verifier writes the bias itself, as it writes A and B: N(0,1) x max(1, sqrt(K) / 4), so
// that a bias left out, misindexed or added after the activation moves C by a quarter of its
// own magnitude or more at any K (values of O(1) would vanish below bf16's tolerance from
// K ~ 20000 on), while from K = 16 on the sum's spread, where the activation is applied, stays
// within 3% of the product's.
// random_normal keeps its tolerances: the epilogue adds one fp32 evaluation before C's one
// rounding, ReLU and both GELUs have slopes of at most 1.13, so an error in the product leaves at
// most that error in C, and the relative Frobenius error's floor (half the expected norm of the
// product) still holds after an activation that zeroes about half of C. What the other checks
// need is not always there, so they report "not applicable" rather than fail correct code:
//   small_integer, precision_probe  exact comparisons: only where the epilogue is exact for every
//                   implementation (Epilogue::exact(): alpha 1, no bias, no activation or ReLU).
//                   A bias makes the fp32 sum inexact, so a GEMM that rounds C before adding it
//                   (the unfused benchmark path) rounds twice and differs legitimately; GELU's
//                   tanh and erf differ by an ulp between implementations.
//   nonfinite       only without an activation and with alpha > 0 (Epilogue::keeps_nonfinite()):
//                   ReLU may map NaN to 0 (max(NaN, 0) is 0 in IEEE maxNum), and GELU's tanh or
//                   erf at +Inf may be computed as Inf/Inf; neither is specified by cuBLASLt.
//   guard_bands     unchanged: the epilogue writes C only.
//
// Strided batches (Options::batch, as hgemm.h's general call with batch_count > 1): the GEMM under
// test computes every batch in one call, and each batch is checked as one problem of its own.
// Every batch gets its own inputs (its own random streams; the nonfinite check's NaN row and Inf
// column move with the batch index), so that a GEMM that computes one batch for all, swaps two or
// reads another's operands differs from the reference; the precision probe alone has the same
// inputs in every batch (its expected values differ by less than C's rounding from column to
// column, so no shift of its pattern could tell batches apart), and judges each batch's
// accumulation, leaving which batch is which to the other checks. Each batch is
// compared element by element with its own reference (cuBLAS, one call per batch) under its own
// tolerances, so that one wrong batch among many cannot hide in an aggregate norm, and a check
// fails when any batch fails it, its report naming the worst batch (CheckResult::batch). The guard
// bands surround all batches, and where the strides leave gaps between batches those are guard
// band too (for C) or hold the poison NaN (for A and B, so a GEMM reading them computes NaN).
// Batch 0 gets the inputs an unbatched check gets.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "hgemm/hgemm.hpp"

namespace hgemm::verify {

enum class Disposition { kPassed, kIncorrect, kLaunchFailed };
const char* to_string(Disposition d);

struct CheckResult {
  std::string check;  // "random_normal", "small_integer", "precision_probe", "guard_bands", ...
  Disposition disposition = Disposition::kPassed;
  std::string reason;  // empty when passed
  double rel_fro_error = 0;
  double max_abs_error = 0;
  double tol_rel_fro = 0;
  double tol_max_abs = 0;
  int64_t worst_row = -1;  // the worst element, when there is one
  int64_t worst_col = -1;
  double worst_got = 0;
  double worst_want = 0;
  int64_t batch = -1;  // batched problems: the batch of the worst element and of the errors above
};

struct Report {
  Disposition disposition = Disposition::kPassed;  // the worst over all checks
  std::vector<CheckResult> checks;
  bool passed() const { return disposition == Disposition::kPassed; }
  // One line: "PASSED" or "INCORRECT random_normal: rel_fro 3.1e-03 > tol 6.0e-04 at (12,40) ..."
  std::string summary() const;
};

// The GEMM under test. It must run C = A*B (with Options::epilogue applied) for `problem` on
// `stream`, for every batch of Options::batch, and may throw hgemm::Error (reported as
// kLaunchFailed). A, B, C are device pointers laid out as the C API says (the first batch's, with
// the others at Options::batch's strides).
using GemmFn = std::function<void(const Problem& problem, const void* a, const void* b, void* c,
                                  cudaStream_t stream)>;

// What the GEMM under test applies to the product before C's one rounding, as hgemm.h's general
// call with beta 0: C = act(alpha * A*B + bias), the bias one element per column of C.
struct Epilogue {
  float alpha = 1.0f;  // finite and nonzero: the tolerances scale with it
  // Device memory for N elements of the problem's type, or none. check() fills it with its own
  // values before it runs the GEMM, which must read its bias from there (a GemmFn has no bias
  // argument, so it closes over this pointer); what the caller left in it is overwritten.
  void* bias = nullptr;
  Activation activation = Activation::kNone;

  bool empty() const {
    return alpha == 1.0f && bias == nullptr && activation == Activation::kNone;
  }
  // Whether the epilogue maps an exactly computed product to the same bits in every
  // implementation, as the exact checks need (see the top of this file).
  bool exact() const {
    return alpha == 1.0f && bias == nullptr &&
           (activation == Activation::kNone || activation == Activation::kRelu);
  }
  // Whether NaN stays NaN and +Inf stays +Inf in every implementation, as nonfinite needs.
  bool keeps_nonfinite() const { return alpha > 0.0f && activation == Activation::kNone; }
};

// Strided batches, as hgemm.h's general call runs them: `count` products in one call, batch i
// reading A at a + i * stride_a and B at b + i * stride_b and writing C at c + i * stride_c
// (strides in elements), each matrix packed inside its batch as a single GEMM's. The verifier
// needs batches that do not overlap (each stride at least one matrix's elements; no broadcast),
// and refuses others. A GemmFn has no batch argument, so it closes over the same values.
struct Batch {
  int64_t count = 1;  // 1: a single GEMM, the strides unused
  int64_t stride_a = 0;
  int64_t stride_b = 0;
  int64_t stride_c = 0;

  // `count` matrices back to back: stride_a = M*K, stride_b = K*N (NN and TN alike), stride_c
  // = M*N, as `hgemm bench --batch` lays them out.
  static Batch packed(const Problem& problem, int64_t count);
  bool batched() const { return count > 1; }
};

struct Options {
  bool random_normal = true;
  bool small_integer = true;
  bool precision_probe = true;
  bool nonfinite = true;
  uint64_t seed = 0x5eed;
  // Misaligns A, B and C by this many elements (2-byte, not 16-byte aligned when odd), to test
  // the unaligned path.
  int misalign_elements = 0;
  Epilogue epilogue;
  // What the GEMM under test computes per call: one product (the default) or strided batches,
  // every check applied to each batch (see the top of this file).
  Batch batch;
};

// Owns device workspace (grown on demand, reused across shapes) and a cuBLAS handle.
// Not thread-safe; use one per thread.
class Verifier {
 public:
  Verifier();
  ~Verifier();
  Verifier(const Verifier&) = delete;
  Verifier& operator=(const Verifier&) = delete;

  Report check(const Problem& problem, const GemmFn& gemm, const Options& options = {});

  // Tolerances used by random_normal, exposed for tests and docs.
  static double tol_rel_fro(const Problem& problem);
  // `alpha`: the epilogue's, which scales the accumulation error (the output rounding follows
  // max_abs_ref, which already includes it).
  static double tol_max_abs(const Problem& problem, double max_abs_ref, double alpha = 1.0);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace hgemm::verify
