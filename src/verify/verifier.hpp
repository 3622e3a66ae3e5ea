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
};

struct Report {
  Disposition disposition = Disposition::kPassed;  // the worst over all checks
  std::vector<CheckResult> checks;
  bool passed() const { return disposition == Disposition::kPassed; }
  // One line: "PASSED" or "INCORRECT random_normal: rel_fro 3.1e-03 > tol 6.0e-04 at (12,40) ..."
  std::string summary() const;
};

// The GEMM under test. It must run C = A*B for `problem` on `stream` and may throw hgemm::Error
// (reported as kLaunchFailed). A, B, C are device pointers laid out as the C API says.
using GemmFn = std::function<void(const Problem& problem, const void* a, const void* b, void* c,
                                  cudaStream_t stream)>;

struct Options {
  bool random_normal = true;
  bool small_integer = true;
  bool precision_probe = true;
  bool nonfinite = true;
  uint64_t seed = 0x5eed;
  // Misaligns A, B and C by this many elements (2-byte, not 16-byte aligned when odd), to test
  // the unaligned path.
  int misalign_elements = 0;
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
  static double tol_max_abs(const Problem& problem, double max_abs_ref);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace hgemm::verify
