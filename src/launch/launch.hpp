// The interface between the registry and each kernel family's host launcher.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm {

// What a call applies beyond the product: C = act(alpha * A * B + beta * C + bias), in fp32
// before the one rounding to the element type. C is read only where beta != 0. bias: N elements
// of the problem's element type, one per column of C, or nullptr. The default is the plain
// product.
struct EpilogueArgs {
  float alpha = 1.0f;
  float beta = 0.0f;
  const void* bias = nullptr;
  Activation activation = Activation::kNone;

  bool plain() const {
    return alpha == 1.0f && beta == 0.0f && !bias && activation == Activation::kNone;
  }
};

// One GEMM call: C(m x n) = A(m x k) * B, row-major, B as the problem's layout says, each with
// its row stride (leading dimension) in elements: 0 is packed (A: k; B: k in TN, n in NN; C: n).
struct GemmArgs {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  cudaStream_t stream = nullptr;
  // The caller's scratch (hgemmGemm's workspace): split-K takes its partial sums from here
  // instead of the library's pool, so the call allocates nothing. nullptr: the pool.
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  EpilogueArgs epilogue{};  // the sm90 and decode families fuse it; the sm80 catalog refuses it
  int64_t lda = 0;  // the sm90 and decode families take strided matrices; the sm80 catalog not
  int64_t ldb = 0;
  int64_t ldc = 0;
  // Strided batches: batch_count products, each matrix stride_* elements after the previous one
  // (0: one A or B shared by every batch). The sm90 family runs them in one launch; the decode
  // family and the sm80 catalog refuse more than one.
  int64_t batch_count = 1;
  int64_t stride_a = 0;
  int64_t stride_b = 0;
  int64_t stride_c = 0;
  // A stored column-major, K x M with row stride lda (0: packed, m), instead of M x K: the sm90
  // kernels' general flavour reads it M-major; the decode family and the sm80 catalog refuse it
  // (hgemmGemm copies one into rows first where it may: GemmRoute::a_rows_first).
  bool a_col_major = false;
  // C is the library's padded copy (dispatch::padded_c): its rows may be written up to their
  // next multiple of 8 columns, so the sm90 kernels may run an N that is no multiple of 8 (their
  // stores write 8 columns, or a pair, at a time). Never set on a caller's C.
  bool c_rows_padded = false;

  int64_t row_stride_a() const { return lda ? lda : a_col_major ? m : k; }
  int64_t row_stride_b(Layout layout) const { return ldb ? ldb : layout == Layout::kTN ? k : n; }
  int64_t row_stride_c() const { return ldc ? ldc : n; }
  // Whether every matrix is packed (the leading dimensions 0 or their packed values).
  bool packed(Layout layout) const {
    return row_stride_a() == (a_col_major ? m : k) && row_stride_b(layout) == (layout == Layout::kTN ? k : n) &&
           row_stride_c() == n;
  }
};

// `problem`'s call with 256-byte aligned stand-ins for its matrices, never dereferenced: what
// dispatch decides for buffers as aligned as cudaMalloc's (it looks only at their alignment), in
// explanations, tuning and the tests.
inline GemmArgs stand_in_args(const Problem& problem) {
  return {reinterpret_cast<const void*>(uintptr_t(0x10000)),
          reinterpret_cast<const void*>(uintptr_t(0x20000)),
          reinterpret_cast<void*>(uintptr_t(0x30000)), problem.m, problem.n, problem.k, nullptr};
}

// Why `config` cannot run `problem` for its layout, accumulation or element type (every kernel
// is compiled for one of each), or empty when it can. The families' can_implement and dispatch's
// rules say it in these words.
inline std::string layout_accum_mismatch(const Problem& problem, const KernelConfig& config) {
  if (config.layout == problem.layout && config.accum == problem.accum &&
      config.dtype == problem.dtype)
    return {};
  return config.name() + " is built for " + std::string(to_string(config.layout)) + "/" +
         std::string(to_string(config.accum)) + "/" + std::string(to_string(config.dtype)) +
         ", the problem is " + problem.name();
}

// sm80 split-K partial sums, one buffer per split: fp32, rows padded to an even number of
// columns so that each thread's column pair stores as one float2. The launcher sizes its scratch
// with these and dispatch its candidates, so both agree on what fits the workspace.
// Dispatch and the tuner split K only where every split keeps at least this much of K: below
// it the partial-sum traffic outweighs the extra parallelism (bench/results/2026-11-22-h100-split-k).
inline constexpr int64_t kMinKPerSplit = 256;
inline int64_t splitk_partial_ld(int64_t n) { return (n + 1) / 2 * 2; }
// The size of the last of the blocks of `block` that cover `total` (block itself where it divides
// total): a copy made in blocks of rows, of A (GemmRoute::a_rows_block) or of C
// (dispatch::padded_c).
inline int64_t last_block_size(int64_t total, int64_t block) {
  return total - (total - 1) / block * block;
}
// A column-major A copied to M x K rows in scratch (kernels/common/transpose_rows.cuh,
// launch_a_to_rows), where dispatch::route sends a general call through rows
// (GemmRoute::a_rows_first): rows of K rounded up to 8 elements (16-byte strides), this many
// bytes.
inline int64_t a_rows_ld(int64_t k) { return (k + 7) / 8 * 8; }
inline size_t a_rows_bytes(int64_t m, int64_t k) {
  return (size_t(m) * size_t(a_rows_ld(k)) * 2 + 255) / 256 * 256;
}
// The copy kernel's blocks are this many elements square (kernels::kTransposeTile); its grid
// takes at most 65535 blocks of M, so one copy holds at most kARowsMaxRows rows.
inline constexpr int64_t kARowsTile = 32;
inline constexpr int64_t kARowsMaxRows = 65535 * kARowsTile;
inline bool a_rows_grid_fits(int64_t m, int64_t k) {
  return m <= kARowsMaxRows && (k + kARowsTile - 1) / kARowsTile <= INT32_MAX;
}
// Launches that copy of call's A (call.a, row stride call.row_stride_a()) into `out`, row stride
// a_rows_ld(call.k), on call.stream; with programmatic dependent launch where `programmatic`.
void launch_a_to_rows(GemmArgs const& call, void* out, bool programmatic);
// TMA steps rows in multiples of 16 bytes from a 16-byte aligned base. A column-major A whose
// leading dimension or base is not so runs the sm90 kernels' general flavour from a copy with
// its leading dimension rounded up to 8 elements, in the caller's workspace or the pool, up to
// kMaxWorkspaceBytes (launch/sm90_launch.cu; docs/notes/2026-11-28-staged-col-major-a.md). Through
// hgemmGemm that is left to a base the route cannot see, or a copy into rows over the limit: the
// route copies a leading dimension that is no multiple of 8 into rows instead
// (GemmRoute::a_rows_first). One matrix only: batches keep their strides.
inline int64_t sm90_staged_a_ld(int64_t m) { return (m + 7) / 8 * 8; }
inline size_t sm90_staged_a_bytes(int64_t m, int64_t k) {
  return (size_t(sm90_staged_a_ld(m)) * size_t(k) * 2 + 255) / 256 * 256;
}
// Whether a call with a column-major A (row stride lda, the kernel's) runs from the copy.
inline bool sm90_stages_a(int64_t lda, const void* a, int64_t batch_count) {
  return batch_count == 1 && (lda % 8 != 0 || (reinterpret_cast<uintptr_t>(a) & 15) != 0);
}
// A C whose rows TMA and 16-byte stores cannot stride (N % 8 != 0) computed into a copy with rows
// of N rounded up to 8 (dispatch::padded_c), this many bytes for `rows` rows, then copied into C
// by launch_compact_c_rows.
inline int64_t padded_c_ld(int64_t n) { return (n + 7) / 8 * 8; }
inline size_t padded_c_bytes(int64_t rows, int64_t n) {
  return (size_t(rows) * size_t(padded_c_ld(n)) * 2 + 255) / 256 * 256;
}
// Copies `rows` x `n` elements from `src` (row stride padded_c_ld(n)) into `dst` (row stride
// ld_dst, any 2-byte alignment) on `stream`; with programmatic dependent launch where
// `programmatic`.
void launch_compact_c_rows(const void* src, void* dst, int64_t ld_dst, int64_t rows, int64_t n,
                           cudaStream_t stream, bool programmatic);
inline size_t splitk_partial_bytes(int64_t m, int64_t n) {
  return size_t(m) * size_t(splitk_partial_ld(n)) * sizeof(float);
}

// Programmatic dependent launch: the sm90 GEMM and the split-K reduction are launched so that
// they may start (prologue: barrier init, descriptor prefetch) while the kernel ahead of them in
// the stream finishes, and each waits for that kernel before its first global-memory access; they
// also let the kernel after them start early. Back-to-back calls then overlap one kernel's launch
// and prologue with the previous one's tail. Only on compute capability 9.0 and later. On by
// default; HGEMM_PDL=0 in the environment, or set_programmatic_launch(false), turns it off.
// set_programmatic_launch returns the previous setting, so that a caller can restore it.
bool set_programmatic_launch(bool enabled);
bool programmatic_launch(const DeviceInfo& device);

// The launch attribute that allows a kernel to start before the one ahead of it in the stream
// finishes (cudaLaunchKernelEx); the kernel must wait (griddepcontrol.wait) before it touches
// memory.
inline cudaLaunchAttribute programmatic_launch_attribute() {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  return attr;
}

// Launches one compiled instantiation. Throws hgemm::Error on a rejected launch. Never syncs.
using LaunchFn = void (*)(const KernelConfig& config, const GemmArgs& args);

struct KernelInstance {
  KernelConfig config;
  LaunchFn launch = nullptr;
};

// Each family exposes its compiled instances and a can_implement that names its reason.
std::vector<KernelInstance> sm80_instances();
Status sm80_can_implement(const Problem& problem, const KernelConfig& config, const GemmArgs& args,
                          const DeviceInfo& device);

std::vector<KernelInstance> sm90_instances();
// The promoted source rewrites compiled into this build, one per row of
// src/kernels/sm90/variants/promoted.list (cmake/promoted_catalog.cmake generates it).
std::vector<KernelInstance> sm90_promoted_instances();
Status sm90_can_implement(const Problem& problem, const KernelConfig& config, const GemmArgs& args,
                          const DeviceInfo& device);

// M <= 16 (launch/sm80_decode_launch.cu).
std::vector<KernelInstance> decode_instances();
Status decode_can_implement(const Problem& problem, const KernelConfig& config,
                            const GemmArgs& args, const DeviceInfo& device);

}  // namespace hgemm
