// hgemmGemm's refusals that come before any device access, its descriptor's ABI rules, and the
// route rule (which calls run as hgemmRun). These run on the CPU-only CI machine: every refused
// call here fails before touching CUDA, and the legal ones are checked through the pure
// GemmDesc::validate / validate_pointers and dispatch::route.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>

#include "dispatch/gemm_route.hpp"
#include "hgemm/hgemm.h"
#include "hgemm/hgemm.hpp"
#include "launch/launch.hpp"
#include "launch/workspace.hpp"

namespace {

using hgemm::Activation;
using hgemm::DType;
using hgemm::GemmDesc;
using hgemm::Order;

// Stand-in addresses, never dereferenced: 1 MiB apart, so the small matrices below never
// overlap unless a test places them so.
const void* kA = reinterpret_cast<const void*>(uintptr_t(0x1000000));
const void* kB = reinterpret_cast<const void*>(uintptr_t(0x2000000));
void* const kC = reinterpret_cast<void*>(uintptr_t(0x3000000));

hgemmGemmDesc_t desc_of(int64_t m, int64_t n, int64_t k) {
  hgemmGemmDesc_t d;
  EXPECT_EQ(hgemmGemmDescInit(&d, m, n, k), HGEMM_SUCCESS);
  return d;
}

void expect_refused(const hgemmGemmDesc_t& d, hgemmStatus_t want, const char* needle,
                    const void* a = kA, const void* b = kB, void* c = kC) {
  const hgemmStatus_t got = hgemmGemm(&d, a, b, c, nullptr);
  EXPECT_EQ(got, want) << hgemmStatusString(got) << " / " << hgemmLastErrorMessage();
  EXPECT_NE(std::string(hgemmLastErrorMessage()).find(needle), std::string::npos)
      << "wanted '" << needle << "' in: " << hgemmLastErrorMessage();
}

void expect_status(const hgemm::Status& s, hgemmStatus_t want, const char* needle) {
  EXPECT_EQ(s.code, want) << hgemmStatusString(s.code) << " / " << s.message;
  EXPECT_NE(s.message.find(needle), std::string::npos) << "wanted '" << needle << "' in: "
                                                       << s.message;
}

GemmDesc plain(int64_t m, int64_t n, int64_t k) {
  GemmDesc d;
  d.m = m;
  d.n = n;
  d.k = k;
  return d;
}

}  // namespace

TEST(GemmDesc, InitFillsTheDefaults) {
  hgemmGemmDesc_t d;
  std::memset(&d, 0xab, sizeof d);
  ASSERT_EQ(hgemmGemmDescInit(&d, 3, 4, 5), HGEMM_SUCCESS);
  EXPECT_EQ(d.struct_size, sizeof(hgemmGemmDesc_t));
  EXPECT_EQ(d.m, 3);
  EXPECT_EQ(d.n, 4);
  EXPECT_EQ(d.k, 5);
  EXPECT_EQ(d.lda, 0);
  EXPECT_EQ(d.ldb, 0);
  EXPECT_EQ(d.ldc, 0);
  EXPECT_EQ(d.batch_count, 1);
  EXPECT_EQ(d.stride_a, 0);
  EXPECT_EQ(d.stride_c, 0);
  EXPECT_EQ(d.bias, nullptr);
  EXPECT_EQ(d.workspace, nullptr);
  EXPECT_EQ(d.workspace_size, 0u);
  EXPECT_EQ(d.alpha, 1.0f);
  EXPECT_EQ(d.beta, 0.0f);
  EXPECT_EQ(d.order_a, HGEMM_ORDER_ROW);
  EXPECT_EQ(d.order_c, HGEMM_ORDER_ROW);
  EXPECT_EQ(d.dtype, HGEMM_DTYPE_F16);
  EXPECT_EQ(d.acc, HGEMM_ACC_F32);
  EXPECT_EQ(d.activation, HGEMM_ACTIVATION_NONE);
  // The C++ descriptor has the same defaults.
  const GemmDesc cxx;
  EXPECT_EQ(cxx.batch_count, 1);
  EXPECT_EQ(cxx.alpha, 1.0f);
  EXPECT_EQ(cxx.beta, 0.0f);
  EXPECT_EQ(cxx.order_b, Order::kRow);
  EXPECT_EQ(cxx.dtype, DType::kF16);
  EXPECT_EQ(cxx.accum, hgemm::Accum::kF32);
}

TEST(GemmDescRefusals, NullDescriptorAndPointers) {
  EXPECT_EQ(hgemmGemm(nullptr, kA, kB, kC, nullptr), HGEMM_ERROR_NULL_POINTER);
  EXPECT_NE(std::string(hgemmLastErrorMessage()).find("desc"), std::string::npos);
  expect_refused(desc_of(8, 8, 8), HGEMM_ERROR_NULL_POINTER, "A", nullptr, kB, kC);
  expect_refused(desc_of(8, 8, 8), HGEMM_ERROR_NULL_POINTER, "C", kA, kB, nullptr);
}

TEST(GemmDescRefusals, StructSize) {
  EXPECT_EQ(hgemmGemmDescInit(nullptr, 8, 8, 8), HGEMM_ERROR_NULL_POINTER);
  hgemmGemmDesc_t d = desc_of(8, 8, 8);
  d.struct_size = sizeof(hgemmGemmDesc_t) - 8;
  expect_refused(d, HGEMM_ERROR_INVALID_DESCRIPTOR, "hgemmGemmDescInit");
  d.struct_size = size_t(1) << 40;  // an uninitialized struct, not a newer header
  expect_refused(d, HGEMM_ERROR_INVALID_DESCRIPTOR, "struct_size");
  EXPECT_EQ(hgemmGemmDescInitSized(&d, 16, 8, 8, 8), HGEMM_ERROR_INVALID_DESCRIPTOR);

  // A newer header's descriptor: fields past this library's are accepted at their defaults
  // (zero bytes) and refused when set.
  struct Newer {
    hgemmGemmDesc_t known;
    int64_t later_field;
  } newer;
  ASSERT_EQ(hgemmGemmDescInitSized(&newer.known, sizeof newer, 8, 8, 8), HGEMM_SUCCESS);
  EXPECT_EQ(newer.known.struct_size, sizeof newer);
  EXPECT_EQ(newer.later_field, 0);
  newer.known.m = -1;  // refused later, so the size check is seen to pass
  EXPECT_EQ(hgemmGemm(&newer.known, kA, kB, kC, nullptr), HGEMM_ERROR_INVALID_SIZE)
      << hgemmLastErrorMessage();
  newer.known.m = 8;
  newer.later_field = 7;
  EXPECT_EQ(hgemmGemm(&newer.known, kA, kB, kC, nullptr), HGEMM_ERROR_INVALID_DESCRIPTOR);
  EXPECT_NE(std::string(hgemmLastErrorMessage()).find("past the"), std::string::npos)
      << hgemmLastErrorMessage();
}

TEST(GemmDescRefusals, UnknownEnums) {
  const std::tuple<void (*)(hgemmGemmDesc_t&), const char*> cases[] = {
      {[](hgemmGemmDesc_t& d) { d.order_a = static_cast<hgemmOrder_t>(2); }, "order_a"},
      {[](hgemmGemmDesc_t& d) { d.order_b = static_cast<hgemmOrder_t>(-1); }, "order_b"},
      {[](hgemmGemmDesc_t& d) { d.order_c = static_cast<hgemmOrder_t>(9); }, "order_c"},
      {[](hgemmGemmDesc_t& d) { d.dtype = static_cast<hgemmDataType_t>(2); }, "dtype"},
      {[](hgemmGemmDesc_t& d) { d.acc = static_cast<hgemmAccum_t>(5); }, "accumulation"},
      {[](hgemmGemmDesc_t& d) { d.activation = static_cast<hgemmActivation_t>(4); },
       "activation"},
  };
  for (auto [mutate, needle] : cases) {
    hgemmGemmDesc_t d = desc_of(8, 8, 8);
    mutate(d);
    expect_refused(d, HGEMM_ERROR_INVALID_ENUM, needle);
  }
  // A C++ caller can static_cast too.
  GemmDesc d = plain(8, 8, 8);
  d.activation = static_cast<Activation>(77);
  expect_status(d.validate(), HGEMM_ERROR_INVALID_ENUM, "activation");
}

TEST(GemmDescRefusals, Sizes) {
  for (auto [m, n, k] : {std::tuple{0, 8, 8}, std::tuple{8, -1, 8}, std::tuple{8, 8, 0}})
    expect_refused(desc_of(m, n, k), HGEMM_ERROR_INVALID_SIZE, "positive");
  expect_refused(desc_of(int64_t(1) << 31, 8, 8), HGEMM_ERROR_SIZE_OVERFLOW, "2^31-1");
  // Each dimension fits, the span does not.
  hgemmGemmDesc_t d = desc_of(1 << 30, 8, 8);
  d.lda = int64_t(1) << 40;
  expect_refused(d, HGEMM_ERROR_SIZE_OVERFLOW, "A spans");
}

TEST(GemmDescRefusals, BfloatWithHalfAccumulation) {
  hgemmGemmDesc_t d = desc_of(8, 8, 8);
  d.dtype = HGEMM_DTYPE_BF16;
  d.acc = HGEMM_ACC_F16;
  expect_refused(d, HGEMM_ERROR_DTYPE_ACCUM, "bf16");
}

TEST(GemmDescRefusals, LeadingDimensions) {
  // M = 16, N = 24, K = 40: rows of row-major A, B, C are K, N, N long; of column-major ones
  // M, K, M.
  struct Case {
    hgemmOrder_t a, b, c;
    int64_t lda, ldb, ldc;
    const char* needle;
  };
  const Case cases[] = {
      {HGEMM_ORDER_ROW, HGEMM_ORDER_ROW, HGEMM_ORDER_ROW, 39, 0, 0, "lda = 39"},
      {HGEMM_ORDER_COL, HGEMM_ORDER_ROW, HGEMM_ORDER_ROW, 15, 0, 0, "lda = 15"},
      {HGEMM_ORDER_ROW, HGEMM_ORDER_ROW, HGEMM_ORDER_ROW, 0, 23, 0, "ldb = 23"},
      {HGEMM_ORDER_ROW, HGEMM_ORDER_COL, HGEMM_ORDER_ROW, 0, 39, 0, "ldb = 39"},
      {HGEMM_ORDER_ROW, HGEMM_ORDER_ROW, HGEMM_ORDER_ROW, 0, 0, 23, "ldc = 23"},
      {HGEMM_ORDER_ROW, HGEMM_ORDER_ROW, HGEMM_ORDER_COL, 0, 0, 15, "ldc = 15"},
      {HGEMM_ORDER_ROW, HGEMM_ORDER_ROW, HGEMM_ORDER_ROW, -40, 0, 0, "negative"},
  };
  for (const Case& c : cases) {
    hgemmGemmDesc_t d = desc_of(16, 24, 40);
    d.order_a = c.a;
    d.order_b = c.b;
    d.order_c = c.c;
    d.lda = c.lda;
    d.ldb = c.ldb;
    d.ldc = c.ldc;
    expect_refused(d, HGEMM_ERROR_INVALID_LEADING_DIM, c.needle);
  }
  // The shortest legal ones pass, as do longer ones.
  GemmDesc d = plain(16, 24, 40);
  d.order_a = Order::kCol;
  d.lda = 16;
  d.ldb = 24;
  d.ldc = 100;
  EXPECT_TRUE(d.validate().ok()) << d.validate().message;
}

TEST(GemmDescRefusals, BatchCountAndStrides) {
  for (int64_t count : {int64_t(0), int64_t(-3), int64_t(1) << 31}) {
    hgemmGemmDesc_t d = desc_of(8, 8, 8);
    d.batch_count = count;
    expect_refused(d, HGEMM_ERROR_INVALID_BATCH_COUNT, "batch_count");
  }
  for (int which = 0; which < 3; ++which) {
    hgemmGemmDesc_t d = desc_of(8, 8, 8);
    d.batch_count = 2;
    d.stride_a = d.stride_b = d.stride_c = 64;
    (which == 0 ? d.stride_a : which == 1 ? d.stride_b : d.stride_c) = -64;
    expect_refused(d, HGEMM_ERROR_INVALID_STRIDE,
                   which == 0 ? "stride_a" : which == 1 ? "stride_b" : "stride_c");
  }
}

TEST(GemmDescRefusals, OverlappingBatchesOfC) {
  hgemmGemmDesc_t d = desc_of(8, 16, 8);
  d.batch_count = 3;
  d.stride_a = 64;
  d.stride_b = 128;
  d.stride_c = 0;
  expect_refused(d, HGEMM_ERROR_BATCH_OVERLAP, "batches of C overlap");
  d.stride_c = 127;  // one C spans 8 x 16 = 128 elements
  expect_refused(d, HGEMM_ERROR_BATCH_OVERLAP, "stride_c = 127");
  d.ldc = 40;  // side by side needs 2 * 16 + 16 <= ldc
  d.stride_c = 16;
  expect_refused(d, HGEMM_ERROR_BATCH_OVERLAP, "ldc = 40");

  // Legal: packed batches, batches side by side within rows, broadcast A and B.
  GemmDesc ok = plain(8, 16, 8);
  ok.batch_count = 3;
  ok.stride_c = 128;
  EXPECT_TRUE(ok.validate().ok()) << ok.validate().message;
  ok.ldc = 48;
  ok.stride_c = 16;
  EXPECT_TRUE(ok.validate().ok()) << ok.validate().message;
  ok.order_c = Order::kCol;  // columns of 8: side by side within each column
  ok.ldc = 24;
  ok.stride_c = 8;
  EXPECT_TRUE(ok.validate().ok()) << ok.validate().message;
  // One batch ignores stride_c, zero included.
  GemmDesc one = plain(8, 16, 8);
  one.stride_c = 0;
  EXPECT_TRUE(one.validate().ok());
}

TEST(GemmDescRefusals, CAliasingAOrB) {
  hgemmGemmDesc_t d = desc_of(64, 64, 64);  // 8 KiB each
  const auto* a = static_cast<const char*>(kA);
  expect_refused(d, HGEMM_ERROR_ALIASING, "C overlaps A", kA, kB,
                 const_cast<char*>(a) + 4096);
  d.beta = 0.5f;
  expect_refused(d, HGEMM_ERROR_ALIASING, "beta", kA, kB, const_cast<char*>(a) + 4096);
  expect_refused(d, HGEMM_ERROR_ALIASING, "C overlaps B", kA, kB,
                 const_cast<char*>(static_cast<const char*>(kB)) - 100);
  // Batches widen the ranges: the third batch of C reaches A.
  hgemmGemmDesc_t batched = desc_of(64, 64, 64);
  batched.batch_count = 3;
  batched.stride_c = 1 << 20;  // elements: 2 MiB per batch
  expect_refused(batched, HGEMM_ERROR_ALIASING, "C overlaps", kA, kB,
                 const_cast<char*>(a) - (4 << 20) + 16);
}

TEST(GemmDescRefusals, Bias) {
  hgemmGemmDesc_t d = desc_of(64, 64, 64);
  d.bias = reinterpret_cast<const void*>(uintptr_t(0x4000001));
  expect_refused(d, HGEMM_ERROR_INVALID_BIAS, "2-byte aligned");
  d.bias = static_cast<const char*>(kC) + 64;
  expect_refused(d, HGEMM_ERROR_INVALID_BIAS, "bias overlaps C");
}

TEST(GemmDescRefusals, Workspace) {
  hgemmGemmDesc_t d = desc_of(64, 64, 64);
  d.workspace_size = 4096;
  expect_refused(d, HGEMM_ERROR_NULL_POINTER, "workspace is NULL");
  d.workspace = reinterpret_cast<void*>(uintptr_t(0x5000008));
  expect_refused(d, HGEMM_ERROR_INVALID_POINTER, "16-byte aligned");
  d.workspace = static_cast<char*>(kC) + 4096;
  expect_refused(d, HGEMM_ERROR_ALIASING, "workspace overlaps C");

  // A plain fp16 call goes to hgemmRun's kernels, whose split-K needs scratch.
  hgemmGemmDesc_t big = desc_of(256, 256, 65536);
  size_t needed = 0;
  ASSERT_EQ(hgemmGemmWorkspaceSize(&big, &needed), HGEMM_SUCCESS) << hgemmLastErrorMessage();
  EXPECT_GT(needed, 0u);
  EXPECT_LE(needed, hgemm::kMaxWorkspaceBytes);
  big.workspace = reinterpret_cast<void*>(uintptr_t(0x40000000));
  big.workspace_size = needed - 1;
  expect_refused(big, HGEMM_ERROR_WORKSPACE_TOO_SMALL, "workspace_size",
                 reinterpret_cast<const void*>(uintptr_t(0x10000000)),
                 reinterpret_cast<const void*>(uintptr_t(0x20000000)),
                 reinterpret_cast<void*>(uintptr_t(0x30000000)));

  // bf16 takes the same route, so it may need as much.
  big.dtype = HGEMM_DTYPE_BF16;
  size_t needed_bf16 = 0;
  ASSERT_EQ(hgemmGemmWorkspaceSize(&big, &needed_bf16), HGEMM_SUCCESS);
  EXPECT_EQ(needed_bf16, needed);
  // beta rides on the same kernels and split; batches never split; the safety net needs none.
  big.beta = 1.0f;
  ASSERT_EQ(hgemmGemmWorkspaceSize(&big, &needed_bf16), HGEMM_SUCCESS);
  EXPECT_EQ(needed_bf16, needed);
  big.batch_count = 2;
  big.stride_c = big.m * big.n;
  ASSERT_EQ(hgemmGemmWorkspaceSize(&big, &needed), HGEMM_SUCCESS);
  EXPECT_EQ(needed, 0u);
  big.batch_count = 1;
  // A column-major A of at most kARowsFirstMaxM rows, or whose rows are not 16-byte strides, is
  // copied to rows first, and the call then runs (and splits) as the row-major one: the copy,
  // then that call's partial sums.
  auto with_col_major_a = [&](hgemmGemmDesc_t d) {
    size_t row_major = 0, col_major = 0;
    EXPECT_EQ(hgemmGemmWorkspaceSize(&d, &row_major), HGEMM_SUCCESS);
    d.order_a = HGEMM_ORDER_COL;
    EXPECT_EQ(hgemmGemmWorkspaceSize(&d, &col_major), HGEMM_SUCCESS);
    return std::pair(row_major, col_major);
  };
  const auto [big_rows, big_cols] = with_col_major_a(big);  // 256 x 65536: a 32 MiB copy
  EXPECT_GT(big_rows, 0u);
  EXPECT_EQ(big_cols, hgemm::a_rows_bytes(256, 65536) + big_rows);
  hgemmGemmDesc_t tokens = desc_of(333, 8192, 28672);  // M = 333: rows of 666 bytes
  const auto [tokens_rows, tokens_cols] = with_col_major_a(tokens);
  EXPECT_EQ(tokens_cols, hgemm::a_rows_bytes(333, 28672) + tokens_rows);
  EXPECT_GE(tokens_cols, size_t(333) * 28672 * 2);
  // Beyond kARowsFirstMaxM rows with 16-byte rows, the general flavour reads A M-major: unsplit,
  // no scratch.
  tokens.order_a = HGEMM_ORDER_COL;
  tokens.lda = 336;
  ASSERT_EQ(hgemmGemmWorkspaceSize(&tokens, &needed), HGEMM_SUCCESS);
  EXPECT_EQ(needed, 0u);
  tokens.lda = 0;
  tokens.m = 1001;
  tokens.k = 16384 + 512;  // a 34 MB copy: blocks of 896 rows, and the last block's split
  ASSERT_EQ(hgemmGemmWorkspaceSize(&tokens, &needed), HGEMM_SUCCESS);
  hgemmGemmDesc_t last_block = tokens;
  last_block.order_a = HGEMM_ORDER_ROW;
  last_block.m = 1001 - 896;
  size_t last_split = 0;
  ASSERT_EQ(hgemmGemmWorkspaceSize(&last_block, &last_split), HGEMM_SUCCESS);
  EXPECT_GT(last_split, 0u);
  EXPECT_EQ(needed, hgemm::a_rows_bytes(896, 16384 + 512) + last_split);
  EXPECT_LE(hgemm::a_rows_bytes(896, 16384 + 512), hgemm::kMaxWorkspaceBytes);
  // Decode sizes too: the row copy, then the row-major call's split (the decode kernels take
  // none, but the swap-AB tiles that NN runs may split).
  const auto [skinny_rows, skinny_cols] = with_col_major_a(desc_of(16, 4096, 5000));
  EXPECT_EQ(skinny_cols, hgemm::a_rows_bytes(16, 5000) + skinny_rows);
  EXPECT_GE(skinny_cols, size_t(16) * 5000 * 2);
  EXPECT_EQ(hgemmGemmWorkspaceSize(&big, nullptr), HGEMM_ERROR_NULL_POINTER);
  big.k = 0;
  EXPECT_EQ(hgemmGemmWorkspaceSize(&big, &needed), HGEMM_ERROR_INVALID_SIZE);
}

TEST(GemmDescRefusals, ExplainChecksAsGemmDoes) {
  hgemmGemmDesc_t d = desc_of(8, 8, 8);
  hgemmGemmPlan_t plan;
  EXPECT_EQ(hgemmGemmExplain(&d, kA, kB, kC, nullptr), HGEMM_ERROR_NULL_POINTER);
  d.batch_count = 0;
  EXPECT_EQ(hgemmGemmExplain(&d, kA, kB, kC, &plan), HGEMM_ERROR_INVALID_BATCH_COUNT);
}

TEST(GemmDescPointers, LegalCallsPassThePureChecks) {
  GemmDesc d = plain(64, 64, 64);
  d.beta = 1.0f;
  d.bias = reinterpret_cast<const void*>(uintptr_t(0x4000002));
  d.workspace = reinterpret_cast<void*>(uintptr_t(0x5000010));
  d.workspace_bytes = 256;
  EXPECT_TRUE(d.validate_pointers(kA, kB, kC).ok()) << d.validate_pointers(kA, kB, kC).message;
  // Odd addresses are legal elements: the safety net takes any 2-byte alignment.
  EXPECT_TRUE(d.validate_pointers(static_cast<const char*>(kA) + 2, kB, kC).ok());
  expect_status(d.validate_pointers(static_cast<const char*>(kA) + 1, kB, kC),
                HGEMM_ERROR_INVALID_POINTER, "A is not 2-byte aligned");
}

TEST(GemmRoute, PlainCallsRunAsHgemmRun) {
  using hgemm::Layout;
  // Every order runs on the tuned kernels; the kernels' A is column-major where the call's A is
  // (row-major C) or its B is row-major (column-major C, as C^T = B^T A^T).
  struct Case {
    Order a, b, c;
    bool transposed;
    Layout layout;
    bool a_col_major;
  };
  const Case cases[] = {
      {Order::kRow, Order::kRow, Order::kRow, false, Layout::kNN, false},
      {Order::kRow, Order::kCol, Order::kRow, false, Layout::kTN, false},
      {Order::kRow, Order::kCol, Order::kCol, true, Layout::kTN, false},
      {Order::kCol, Order::kCol, Order::kCol, true, Layout::kNN, false},
      {Order::kCol, Order::kRow, Order::kRow, false, Layout::kNN, true},
      {Order::kCol, Order::kCol, Order::kRow, false, Layout::kTN, true},
      {Order::kRow, Order::kRow, Order::kCol, true, Layout::kTN, true},
      {Order::kCol, Order::kRow, Order::kCol, true, Layout::kNN, true},
  };
  // bf16 (fp32 accumulation only) routes as fp16 does, its problem carrying the element type.
  const std::pair<DType, hgemm::Accum> types[] = {{DType::kF16, hgemm::Accum::kF32},
                                                  {DType::kF16, hgemm::Accum::kF16},
                                                  {DType::kBF16, hgemm::Accum::kF32}};
  for (const Case& c : cases) {
    for (auto [dtype, accum] : types) {
      GemmDesc d = plain(100, 300, 70);
      d.order_a = c.a;
      d.order_b = c.b;
      d.order_c = c.c;
      d.dtype = dtype;
      d.accum = accum;
      const auto r = hgemm::dispatch::route(d);
      ASSERT_TRUE(r.dispatch) << d.name() << ": " << r.reason;
      EXPECT_EQ(r.transposed, c.transposed) << d.name();
      EXPECT_EQ(r.a_col_major, c.a_col_major) << d.name();
      // 100 rows, or with C^T rows of B 300 elements apart: copied to rows first.
      EXPECT_EQ(r.a_rows_first, c.a_col_major) << d.name();
      EXPECT_EQ(r.reason.find("copied to rows first") != std::string::npos, c.a_col_major)
          << r.reason;
      // The kernels' A's row stride: the call's A, or with C^T its B, each as stored.
      EXPECT_EQ(r.lda, c.transposed ? d.ldb_or_packed() : d.lda_or_packed()) << d.name();
      EXPECT_EQ(r.problem.layout, c.layout) << d.name();
      EXPECT_EQ(r.problem.accum, accum);
      EXPECT_EQ(r.problem.dtype, dtype);
      EXPECT_EQ(r.problem.m, c.transposed ? 300 : 100) << d.name();
      EXPECT_EQ(r.problem.n, c.transposed ? 100 : 300) << d.name();
      EXPECT_EQ(r.problem.k, 70);
      // Leading dimensions spelled out at their packed values are still packed.
      d.lda = d.lda_or_packed();
      d.ldb = d.ldb_or_packed();
      d.ldc = d.ldc_or_packed();
      EXPECT_TRUE(hgemm::dispatch::route(d).dispatch) << d.name();
    }
  }
}

TEST(GemmRoute, AnEpilogueRidesAlongWithTheTunedKernels) {
  // alpha, a bias and an activation are fused; the route says so. A bias needs row-major C.
  for (Order oc : {Order::kRow, Order::kCol}) {
    GemmDesc d = plain(100, 300, 72);
    d.order_b = Order::kCol;
    d.order_c = oc;
    d.alpha = 0.5f;
    d.activation = Activation::kGelu;
    auto r = hgemm::dispatch::route(d);
    EXPECT_TRUE(r.dispatch) << r.reason;
    EXPECT_EQ(r.transposed, oc == Order::kCol);
    EXPECT_NE(r.reason.find("alpha, gelu fused"), std::string::npos) << r.reason;
    d.bias = reinterpret_cast<const void*>(uintptr_t(0x4000000));
    r = hgemm::dispatch::route(d);
    EXPECT_EQ(r.dispatch, oc == Order::kRow) << r.reason;
    EXPECT_NE(r.reason.find(oc == Order::kRow ? "alpha, bias, gelu fused" : "column-major C"),
              std::string::npos)
        << r.reason;
  }
}

TEST(GemmRoute, LeadingDimensionsRideAlongAsTheRowStrides) {
  // Row-major C: the call's own; column-major C runs as C^T = B^T A^T, whose A is the call's B.
  GemmDesc d = plain(100, 300, 72);
  d.order_b = Order::kCol;
  d.lda = 80;
  d.ldb = 88;
  d.ldc = 304;
  auto r = hgemm::dispatch::route(d);
  ASSERT_TRUE(r.dispatch) << r.reason;
  EXPECT_EQ(r.problem.layout, hgemm::Layout::kTN);
  EXPECT_EQ(r.lda, 80);
  EXPECT_EQ(r.ldb, 88);
  EXPECT_EQ(r.ldc, 304);
  EXPECT_NE(r.reason.find("strided"), std::string::npos) << r.reason;
  d.order_c = Order::kCol;
  d.ldc = 104;
  r = hgemm::dispatch::route(d);
  ASSERT_TRUE(r.dispatch && r.transposed) << r.reason;
  EXPECT_EQ(r.lda, 88);
  EXPECT_EQ(r.ldb, 80);
  EXPECT_EQ(r.ldc, 104);
  // Packed, spelled out or not: no "strided".
  const GemmDesc packed = plain(100, 300, 72);
  r = hgemm::dispatch::route(packed);
  EXPECT_EQ(r.lda, 72);
  EXPECT_EQ(r.ldb, 300);
  EXPECT_EQ(r.ldc, 300);
  EXPECT_EQ(r.reason.find("strided"), std::string::npos) << r.reason;
}

// A column-major A goes through a copy in rows where it is small (M <= kARowsFirstMaxM) or
// copied anyway (rows not 16-byte strides), one matrix, the copy within the scratch limit;
// otherwise the general flavour reads it M-major.
TEST(GemmRoute, AColumnMajorAGoesThroughRowsWhereThatPays) {
  auto route_of = [](int64_t m, int64_t k, int64_t lda, int64_t batches) {
    GemmDesc d = plain(m, 4096, k);
    d.order_a = Order::kCol;
    d.lda = lda;
    d.batch_count = batches;
    if (batches > 1) {
      d.stride_a = d.lda_or_packed() * k;
      d.stride_b = k * 4096;
      d.stride_c = m * 4096;
    }
    return hgemm::dispatch::route(d);
  };
  const int64_t most = hgemm::dispatch::kARowsFirstMaxM;
  struct Case {
    int64_t m, k, lda, batches;
    bool rows_first;
    const char* why;
  };
  const Case cases[] = {
      {most, 4096, 0, 1, true, "M <= 256"},
      {1, 4096, 8, 1, true, "M <= 256"},  // one row, its elements 8 apart
      {most + 8, 4096, 0, 1, false, "read M-major"},
      {most + 4, 4096, 0, 1, true, "leading dimension is no multiple of 8"},
      {4096, 4096, 4100, 1, true, "leading dimension is no multiple of 8"},
      // A copy over 32 MiB is made and run in blocks of whole 128-row tiles.
      {1001, 16384 + 512, 0, 1, true, "in blocks of 896 rows"},
      {2500, 8192, 0, 1, true, "in blocks of 2048 rows"},
      // Rows of 16 bytes: the copy fits 32 MiB but not the copy kernel's grid (65535 x 32 rows).
      {2097150, 8, 0, 1, true, "in blocks of 2097024 rows"},
      // Not even 128 rows of the copy fit: rows of 16 bytes are read in place.
      {most, 131072 + 8, 0, 1, false, "read M-major"},
      {64, 4096, 0, 4, false, "read M-major"},            // batches keep their strides
  };
  for (const Case& c : cases) {
    const auto r = route_of(c.m, c.k, c.lda, c.batches);
    ASSERT_TRUE(r.dispatch) << r.reason;
    EXPECT_TRUE(r.a_col_major);
    EXPECT_EQ(r.a_rows_first, c.rows_first) << c.m << "x" << c.k << " lda " << c.lda;
    EXPECT_NE(r.reason.find(c.why), std::string::npos) << r.reason;
    if (!r.a_rows_first) continue;
    // One copy of all M, or blocks of whole 128-row tiles, each copy within the scratch limit.
    EXPECT_LE(hgemm::a_rows_bytes(r.a_rows_block, c.k), hgemm::kMaxWorkspaceBytes);
    EXPECT_TRUE(r.a_rows_block == c.m ||
                (r.a_rows_block < c.m && r.a_rows_block % hgemm::dispatch::kARowsBlockAlign == 0))
        << r.a_rows_block;
  }
}

// One row of column-major A with a leading dimension of 1 is a contiguous row: the row-major
// call runs on it as stored, batches included, and so does column-major C's B^T of one column.
TEST(GemmRoute, OneColumnMajorRowIsReadAsARow) {
  for (Order oc : {Order::kRow, Order::kCol}) {
    for (int64_t batches : {1, 3}) {
      GemmDesc d = oc == Order::kRow ? plain(1, 4096, 1001) : plain(4096, 1, 1001);
      d.order_b = Order::kCol;
      d.order_c = oc;
      if (oc == Order::kRow) d.order_a = Order::kCol;
      else d.order_b = Order::kRow;  // column-major C: B^T, the kernels' A, is column-major
      d.batch_count = batches;
      if (batches > 1) {
        d.stride_a = d.m * d.k;
        d.stride_b = d.k * d.n;
        d.stride_c = d.m * d.n;
      }
      const auto r = hgemm::dispatch::route(d);
      ASSERT_TRUE(r.dispatch) << r.reason;
      EXPECT_EQ(r.transposed, oc == Order::kCol);
      EXPECT_EQ(r.problem.m, 1);
      EXPECT_FALSE(r.a_col_major) << r.reason;
      EXPECT_FALSE(r.a_rows_first) << r.reason;
      EXPECT_EQ(r.lda, 1008);  // K in 16-byte strides: never stepped with one row
      EXPECT_EQ(r.stride_a, oc == Order::kRow ? d.stride_a : d.stride_b);
      EXPECT_NE(r.reason.find("one row: read as that row"), std::string::npos) << r.reason;
      EXPECT_EQ(r.reason.find("exactly"), std::string::npos) << r.reason;
      const hgemm::GemmArgs args = hgemm::dispatch::route_args(d, r, nullptr, nullptr, nullptr, nullptr);
      EXPECT_FALSE(args.a_col_major);
      EXPECT_EQ(args.lda, 1008);
    }
  }
  // Its elements apart (a leading dimension past 1), or two rows: column-major as stored.
  GemmDesc d = plain(1, 4096, 1001);
  d.order_a = Order::kCol;
  d.order_b = Order::kCol;
  d.lda = 2;
  EXPECT_TRUE(hgemm::dispatch::route(d).a_col_major);
  d = plain(2, 4096, 1001);
  d.order_a = Order::kCol;
  d.order_b = Order::kCol;
  EXPECT_TRUE(hgemm::dispatch::route(d).a_col_major);
}

TEST(GemmRoute, BetaAndBatchesRideAlong) {
  // beta is part of the fused epilogue; batches keep their strides, exchanged with A and B for
  // column-major C (C^T = B^T A^T), and never split K, so they need no workspace.
  GemmDesc d = plain(100, 300, 72);
  d.beta = 0.5f;
  auto r = hgemm::dispatch::route(d);
  ASSERT_TRUE(r.dispatch) << r.reason;
  EXPECT_NE(r.reason.find("beta fused"), std::string::npos) << r.reason;
  d.beta = 0.0f;
  d.batch_count = 3;
  d.stride_a = 100 * 72;
  d.stride_b = 0;
  d.stride_c = 100 * 300;
  ASSERT_TRUE(d.validate().ok()) << d.validate().message;
  r = hgemm::dispatch::route(d);
  ASSERT_TRUE(r.dispatch) << r.reason;
  EXPECT_EQ(r.batch_count, 3);
  EXPECT_EQ(r.stride_a, 100 * 72);
  EXPECT_EQ(r.stride_b, 0);
  EXPECT_EQ(r.stride_c, 100 * 300);
  EXPECT_NE(r.reason.find("3 batches"), std::string::npos) << r.reason;
  EXPECT_EQ(hgemm::dispatch::workspace_bytes(r), 0u);
  d.order_b = Order::kCol;
  d.order_c = Order::kCol;
  ASSERT_TRUE(d.validate().ok()) << d.validate().message;
  r = hgemm::dispatch::route(d);
  ASSERT_TRUE(r.dispatch && r.transposed) << r.reason;
  EXPECT_EQ(r.stride_a, 0);
  EXPECT_EQ(r.stride_b, 100 * 72);
  EXPECT_EQ(r.stride_c, 100 * 300);
}

TEST(GemmRoute, AnythingElseTakesTheSafetyNet) {
  // A bias with column-major C would run along the rows of C^T.
  GemmDesc d = plain(100, 300, 72);
  d.order_b = Order::kCol;
  d.order_c = Order::kCol;
  d.bias = reinterpret_cast<const void*>(uintptr_t(0x1000));
  const auto r = hgemm::dispatch::route(d);
  EXPECT_FALSE(r.dispatch) << d.name();
  EXPECT_NE(r.reason.find("bias"), std::string::npos) << r.reason;
}

TEST(GemmRoute, WorkspaceCoversEverySplitPlan) {
  // One split's partial sums of a 256 x 256 output are 256 KiB: 64 splits fit in 32 MiB.
  auto r = hgemm::dispatch::route(plain(256, 256, 65536));
  EXPECT_EQ(hgemm::dispatch::workspace_bytes(r), size_t(64) * 256 * 256 * 4);
  // 4096 x 4096: 64 MiB per split, so no split fits and none is needed.
  r = hgemm::dispatch::route(plain(4096, 4096, 4096));
  EXPECT_EQ(hgemm::dispatch::workspace_bytes(r), 0u);
  // Column-major C runs as N x M: the partial rows are padded along M.
  GemmDesc t = plain(7, 256, 4096);
  t.order_b = Order::kCol;
  t.order_c = Order::kCol;
  r = hgemm::dispatch::route(t);
  ASSERT_TRUE(r.transposed);
  EXPECT_EQ(hgemm::dispatch::workspace_bytes(r), size_t(64) * 256 * 8 * 4);
}

TEST(GemmDescName, NamesTheCall) {
  GemmDesc d = plain(96, 80, 40);
  EXPECT_EQ(d.name(), "96x80x40_rrr_f16_f32");
  d.order_b = Order::kCol;
  d.dtype = DType::kBF16;
  d.batch_count = 4;
  d.stride_c = 96 * 80;
  d.activation = Activation::kGeluTanh;
  EXPECT_EQ(d.name(), "96x80x40_rcr_bf16_f32_b4_gelu_tanh");
}
