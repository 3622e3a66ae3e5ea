// hgemm C++ API. The same operation as hgemm.h, with errors thrown as hgemm::Error and an entry
// point that runs one explicit KernelConfig (what the tuner, the benchmarks and tests use).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hgemm/hgemm.h"

namespace hgemm {

enum class Layout : uint8_t { kNN = HGEMM_LAYOUT_NN, kTN = HGEMM_LAYOUT_TN };
enum class Accum : uint8_t { kF32 = HGEMM_ACC_F32, kF16 = HGEMM_ACC_F16 };
// The element type of A, B and C (and the bias). bf16 accumulates in fp32 only.
enum class DType : uint8_t { kF16 = HGEMM_DTYPE_F16, kBF16 = HGEMM_DTYPE_BF16 };

std::string_view to_string(Layout layout);
std::string_view to_string(Accum accum);
std::string_view to_string(DType dtype);  // "f16", "bf16"
std::optional<Layout> parse_layout(std::string_view text);
std::optional<Accum> parse_accum(std::string_view text);
std::optional<DType> parse_dtype(std::string_view text);

// The thing thrown by every C++ entry point. `what()` reads
// "<message> [<expression> at <file>:<line>]" so a log line alone locates the failure.
class Error : public std::runtime_error {
 public:
  Error(hgemmStatus_t status, std::string message, std::string expression = {},
        std::string file = {}, int line = 0);
  hgemmStatus_t status() const noexcept { return status_; }
  const std::string& message() const noexcept { return message_; }
  const std::string& expression() const noexcept { return expression_; }
  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }

 private:
  hgemmStatus_t status_;
  std::string message_;
  std::string expression_;
  std::string file_;
  int line_;
};

// A status with a reason, for checks that refuse without throwing (validation, can_implement).
struct Status {
  hgemmStatus_t code = HGEMM_SUCCESS;
  std::string message;
  bool ok() const noexcept { return code == HGEMM_SUCCESS; }
  static Status success() { return {}; }
  static Status failure(hgemmStatus_t code, std::string message) {
    return {code, std::move(message)};
  }
};

struct Problem {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  Layout layout = Layout::kTN;
  Accum accum = Accum::kF32;
  DType dtype = DType::kF16;

  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  // "4096x4096x4096_tn_f32", and "_bf16" after it for bf16 elements
  std::string name() const;
  // Size, enum and overflow checks that need no device and no pointers.
  Status validate() const;
};

enum class Family : uint8_t {
  kSm80Mma = 0,  // cp.async + ldmatrix + mma.sync; predicated, runs any shape (the safety net)
  kSm90Ws = 1,   // TMA + WGMMA, warp-specialized, persistent
  kDecode = 2,   // M <= 16: mma.sync over a cp.async stream of B, K split across warps
};

enum class Raster : uint8_t { kAlongM = 0, kAlongN = 1 };
// sm90: how the two consumer warpgroups share work. Cooperative: both compute one tile, each a
// band of its rows. Ping-pong: each computes whole tiles of its own, alternating, so that one's
// epilogue runs while the other's mainloop has the tensor cores.
enum class Schedule : uint8_t { kCooperative = 0, kPingPong = 1 };
enum class Epilogue : uint8_t { kDirect = 0, kTmaStore = 1 };

// The source a kernel is built from: empty for its family's own header, else the name of a
// source rewrite promoted into this build (`hgemm variants promote`: the file
// src/kernels/sm90/variants/NAME.cuh and its row of promoted.list). A name is lower-case letters,
// digits and '_', starting with a letter, at most kMaxLength characters. A fixed array rather
// than a std::string, so that KernelConfig stays a trivially copyable value and the kernels'
// variant, a template argument, can carry it (core/kernel_variant.hpp).
struct SourceName {
  static constexpr int kMaxLength = 64;
  char text[kMaxLength + 1] = {};

  constexpr std::string_view view() const {
    std::size_t n = 0;
    while (n < std::size_t(kMaxLength) && text[n] != '\0') ++n;
    return std::string_view(text, n);
  }
  constexpr bool empty() const { return text[0] == '\0'; }
  // The name as a SourceName; nullopt when it is not one (empty gives the family header).
  static constexpr std::optional<SourceName> from(std::string_view name) {
    if (name.size() > std::size_t(kMaxLength)) return std::nullopt;
    SourceName s;
    for (std::size_t i = 0; i < name.size(); ++i) {
      const char c = name[i];
      const bool lower = c >= 'a' && c <= 'z';
      if (!lower && !(i > 0 && ((c >= '0' && c <= '9') || c == '_'))) return std::nullopt;
      s.text[i] = c;
    }
    return s;
  }
  constexpr bool operator==(const SourceName& o) const { return view() == o.view(); }
  constexpr bool operator!=(const SourceName& o) const { return !(*this == o); }
};

// The single source of truth for a kernel variant. A plain value: it validates, names itself
// reversibly (name() / parse()), hashes, and compares. Derived quantities (threads, shared
// memory) are functions, never stored fields.
//
// Names, every field present:
//   sm80_mma_128x128x32_s3_w2x2_sk1_f32_tn
//   sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn   (cooperative)
//   sm90_pp_64x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn    (ping-pong: each warpgroup a 64x256 tile)
//   decode_n32_k64_s4_w4_f32_tn   (M <= 16: columns per CTA, K per warp and stage, stages, warps)
//   sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk1_f32_tn_swap   (swap-AB: the kernel computes
//       C^T = B^T A^T, so the tile's 80 rows of M are wgmma's N and its 128 columns of N are
//       wgmma's M; block_m and block_n, cluster and raster still name M and N of the problem)
//   sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn_bf16   (bf16 elements: "_bf16"; fp16,
//       the default, adds nothing, so the names in the shipped tables keep their meaning)
//   sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn_src-rw_good   (built from the promoted source
//       rewrite rw_good: "_src-NAME" last; the family's own header adds nothing)
// The most K-splits a config may ask for.
inline constexpr int kMaxSplitK = 64;

struct KernelConfig {
  Family family = Family::kSm80Mma;
  int block_m = 128;
  int block_n = 128;
  int block_k = 32;
  int num_stages = 3;
  int warps_m = 2;           // sm80: warp grid inside the block
  int warps_n = 2;           // decode: the warps that split K (warps_m = 1)
  int num_consumer_wgs = 1;  // sm90: consumer warpgroups (a producer warpgroup comes on top)
  Schedule schedule = Schedule::kCooperative;  // sm90 with two consumer warpgroups
  int cluster_m = 1;         // sm90: CTAs per cluster along M and N
  int cluster_n = 1;
  Raster raster = Raster::kAlongM;  // sm90 persistent scheduler: raster direction and group
  int group_size = 8;
  Epilogue epilogue = Epilogue::kDirect;
  // 1..kMaxSplitK K-splits, reduced in a second kernel; sm90 also 0: whole tiles in the grid's
  // full rounds, and the tiles left over each cut into 2-4 k-aligned pieces by the CTAs that
  // would idle, reduced in the kernel (where the kernel compiles it; otherwise whole tiles).
  int split_k = 1;
  Layout layout = Layout::kTN;
  Accum accum = Accum::kF32;
  bool swap_ab = false;  // sm90 TN: M on wgmma's N (16..256 in steps of 16), N on its M
  DType dtype = DType::kF16;  // sm90 and decode; bf16 with fp32 accumulation only
  SourceName source{};  // sm90: empty for the family header, else a promoted rewrite's name

  std::string name() const;
  static std::optional<KernelConfig> parse(std::string_view name);
  // Structural legality, independent of any problem: tile steps, register and smem budgets, and
  // a source this build has (a promoted rewrite it does not know is refused by name).
  Status validate() const;
  uint64_t hash() const;
  int num_threads() const;
  int smem_bytes() const;
  // The compiled instantiation this config runs on: raster, group size and split-K are launch
  // arguments, so they are reset to their defaults. Two configs share a kernel iff their
  // instance()s are equal.
  KernelConfig instance() const;

  // Spelled out rather than defaulted so that C++17 code can include this header.
  // tests/unit/test_public_api.cpp counts the fields, so one added here and not compared fails.
  bool operator==(const KernelConfig& o) const {
    return family == o.family && block_m == o.block_m && block_n == o.block_n &&
           block_k == o.block_k && num_stages == o.num_stages && warps_m == o.warps_m &&
           warps_n == o.warps_n && num_consumer_wgs == o.num_consumer_wgs &&
           schedule == o.schedule && cluster_m == o.cluster_m && cluster_n == o.cluster_n &&
           raster == o.raster && group_size == o.group_size && epilogue == o.epilogue &&
           split_k == o.split_k && layout == o.layout && accum == o.accum &&
           swap_ab == o.swap_ab && dtype == o.dtype && source == o.source;
  }
  bool operator!=(const KernelConfig& o) const { return !(*this == o); }
};

// Runs the kernel that dispatch chooses for this problem; a bf16 call that no compiled kernel
// runs (NN, or N or K no multiple of 8) runs the safety net (hgemmGemm's general kernel).
// Throws hgemm::Error.
void run(const Problem& problem, const void* a, const void* b, void* c, cudaStream_t stream);

// Runs one explicit config. Throws hgemm::Error with HGEMM_ERROR_NOT_SUPPORTED (and the reason)
// when the config is not in this build's catalog or cannot implement the problem.
void run(const Problem& problem, const KernelConfig& config, const void* a, const void* b, void* c,
         cudaStream_t stream);

// The config that run(problem, ...) would use for these pointers on the current device. Throws
// HGEMM_ERROR_NOT_SUPPORTED where run() takes the safety net, which no KernelConfig names.
KernelConfig select_config(const Problem& problem, const void* a, const void* b, const void* c);

// Reads the dispatch tables again on the next call: tables load once per process, so a process
// running when `hgemm tune` wrote the user table sees it only after this (a new process sees it
// at once). Safe while other threads call run(); each reload keeps the earlier tables' memory.
void reload_tables();

// What hgemmExplain reports: the config run(problem, ...) would use for pointers aligned as
// cudaMalloc's are, on the current device, the rule that chose it and why; where run() takes the
// safety net, rule "safety net", a default config and the general kernel's name in the reason.
// Throws hgemm::Error.
struct Explanation {
  KernelConfig config;
  std::string rule;
  std::string reason;
};
Explanation explain(const Problem& problem);

// The user table dispatch reads instead of $HGEMM_USER_TABLE or the default; "" restores those.
// Reloads the tables (reload_tables()).
void set_user_table(const std::string& path);

// ---- The general call (hgemm.h's hgemmGemm: the operation, limits and paths are documented
// there). The C++ descriptor is a plain struct with the C defaults; its C++ enums carry the C
// values.

enum class Order : uint8_t { kRow = HGEMM_ORDER_ROW, kCol = HGEMM_ORDER_COL };
enum class Activation : uint8_t {
  kNone = HGEMM_ACTIVATION_NONE,
  kRelu = HGEMM_ACTIVATION_RELU,
  kGelu = HGEMM_ACTIVATION_GELU,
  kGeluTanh = HGEMM_ACTIVATION_GELU_TANH,
};
std::string_view to_string(Order order);          // "row", "col"
std::string_view to_string(Activation activation);  // "none", "relu", "gelu", "gelu_tanh"

struct GemmDesc {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  Order order_a = Order::kRow;
  Order order_b = Order::kRow;
  Order order_c = Order::kRow;
  int64_t lda = 0;  // 0: packed
  int64_t ldb = 0;
  int64_t ldc = 0;
  DType dtype = DType::kF16;
  Accum accum = Accum::kF32;
  float alpha = 1.0f;
  float beta = 0.0f;
  int64_t batch_count = 1;
  int64_t stride_a = 0;  // elements between batches
  int64_t stride_b = 0;
  int64_t stride_c = 0;
  const void* bias = nullptr;  // N elements of dtype, or nullptr
  Activation activation = Activation::kNone;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;

  // The leading dimensions in effect: the given ones, or the packed row length for 0.
  int64_t lda_or_packed() const;
  int64_t ldb_or_packed() const;
  int64_t ldc_or_packed() const;
  // "96x80x40_rcr_bf16_f32" (orders of A, B, C), then "_b4" for batches, "_a" / "_ab" for
  // alpha != 1 / beta != 0, "_bias", "_relu" and so on: for messages and test names.
  std::string name() const;
  // The checks that need neither a device nor pointers: enums, sizes, leading dimensions, batch
  // count and strides, C batches overlapping, dtype and accumulation. (The workspace's size
  // depends on the path; gemm() checks it against workspace_size().)
  Status validate() const;
  // The pointer checks that need no device: NULL, alignment, C aliasing A, B or bias, and the
  // workspace (NULL with a size, alignment, overlap).
  Status validate_pointers(const void* a, const void* b, const void* c) const;
};

// Which path runs a call and why (hgemm.h's hgemmGemmPlan_t).
struct GemmPlan {
  hgemmPath_t path = HGEMM_PATH_SAFETY_NET;
  bool transposed = false;
  std::string kernel;
  std::string source;
  std::string reason;
};

// Runs the call. Throws hgemm::Error with the status hgemmGemm returns.
void gemm(const GemmDesc& desc, const void* a, const void* b, void* c, cudaStream_t stream);
// The path and kernel gemm() would run, without running it.
GemmPlan explain(const GemmDesc& desc, const void* a, const void* b, const void* c);
// The workspace bytes a call with this descriptor may use; needs no device.
size_t workspace_size(const GemmDesc& desc);

// Every config compiled into this build.
std::vector<KernelConfig> catalog();

// Whether `config` can run `problem` with these pointers on the current device, and why not.
Status can_implement(const Problem& problem, const KernelConfig& config, const void* a,
                     const void* b, const void* c);

}  // namespace hgemm
