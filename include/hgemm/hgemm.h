/*
 * hgemm C API. hgemmRun: C = A * B with fp16 inputs and output, contiguous row-major matrices.
 * hgemmGemm (below): the general call, C = act(alpha * A * B + beta * C + bias), any storage
 * order, leading dimensions, strided batches, fp16 or bf16.
 *
 * hgemmRun: A is M x K row-major and C is M x N row-major. With HGEMM_LAYOUT_NN, B is K x N
 * row-major; with HGEMM_LAYOUT_TN, B is stored N x K row-major (the nn.Linear weight layout).
 * All pointers are device pointers to __half. The call is thread-safe, can be captured into a
 * CUDA graph, and after the first call for a shape on a device it neither allocates nor
 * synchronizes. A TN call of more than 16 rows whose N is no multiple of 8 computes C in a copy
 * with padded rows, from the library's stream-ordered pool (at most 32 MiB, in blocks of rows
 * beyond that), and copies the rows into C.
 */
#ifndef HGEMM_HGEMM_H_
#define HGEMM_HGEMM_H_

#include <stddef.h>
#include <stdint.h>

/* CUDA's headers use anonymous unions, which C99 lacks: without this, a C99 program built with
 * -pedantic -Werror and the toolkit on a plain -I path could not include hgemm.h. */
#if defined(__GNUC__) && !defined(__cplusplus)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <cuda_runtime_api.h>
#if defined(__GNUC__) && !defined(__cplusplus)
#pragma GCC diagnostic pop
#endif

#include "hgemm/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  HGEMM_SUCCESS = 0,
  HGEMM_ERROR_NULL_POINTER = 1,        /* A, B or C is NULL */
  HGEMM_ERROR_INVALID_SIZE = 2,        /* M, N or K is zero or negative */
  HGEMM_ERROR_SIZE_OVERFLOW = 3,       /* a matrix's element count or byte size overflows */
  HGEMM_ERROR_ALIASING = 4,            /* C overlaps A or B */
  HGEMM_ERROR_INVALID_ENUM = 5,        /* layout or accumulation is not a known value */
  HGEMM_ERROR_NO_DEVICE = 6,           /* no CUDA device is visible */
  HGEMM_ERROR_ARCH_UNSUPPORTED = 7,    /* the device's compute capability is below 8.0 */
  HGEMM_ERROR_NOT_SUPPORTED = 8,       /* the requested kernel cannot run this problem */
  HGEMM_ERROR_INVALID_POINTER = 9,     /* a pointer is not device-accessible memory */
  HGEMM_ERROR_CUDA = 10,               /* a CUDA runtime or driver call failed */
  HGEMM_ERROR_LAUNCH_FAILED = 11,      /* the kernel launch was rejected */
  HGEMM_ERROR_INTERNAL = 12,
  /* Values from here on are returned by hgemmGemm and its companions only. */
  HGEMM_ERROR_INVALID_LEADING_DIM = 13, /* lda, ldb or ldc is negative or shorter than its row */
  HGEMM_ERROR_INVALID_BATCH_COUNT = 14, /* batch_count is zero, negative or above 2^31-1 */
  HGEMM_ERROR_INVALID_STRIDE = 15,      /* a batch stride is negative */
  HGEMM_ERROR_BATCH_OVERLAP = 16,       /* two batches of C share memory */
  HGEMM_ERROR_DTYPE_ACCUM = 17,         /* bf16 asks for fp16 accumulation */
  HGEMM_ERROR_INVALID_BIAS = 18,        /* bias is misaligned, overlaps C, or not device memory */
  HGEMM_ERROR_WORKSPACE_TOO_SMALL = 19, /* workspace_size is below hgemmGemmWorkspaceSize() */
  HGEMM_ERROR_INVALID_DESCRIPTOR = 20   /* struct_size is not one this library reads */
} hgemmStatus_t;

typedef enum { HGEMM_LAYOUT_NN = 0, HGEMM_LAYOUT_TN = 1 } hgemmLayout_t;
typedef enum { HGEMM_ACC_F32 = 0, HGEMM_ACC_F16 = 1 } hgemmAccum_t;

hgemmStatus_t hgemmRun(const void* A, const void* B, void* C, int64_t M, int64_t N, int64_t K,
                       hgemmLayout_t layout, hgemmAccum_t acc, cudaStream_t stream);

/* A static string naming the status. Never NULL. */
const char* hgemmStatusString(hgemmStatus_t status);

/* The detailed message of the last failed call on this thread ("" when none). */
const char* hgemmLastErrorMessage(void);

/* HGEMM_VERSION of the library that was loaded, which can differ from the header's. */
int hgemmGetVersion(void);

/* The tuning table dispatch uses on the current device for one accumulation. Strings are
 * NUL-terminated and truncated to fit. */
typedef struct {
  char table_path[1024];   /* the shipped (or HGEMM_DB) table; "" when none was found */
  char tuned_gpu[128];     /* the GPU the table was tuned on; "" when none was read */
  int tuned_sm_count;      /* its SM count; 0 when none was read */
  int entries;             /* tuned shapes in the table (both layouts) */
  int matches_device;      /* 1 when the table is used on this device: tuned on it, or on another
                              GPU of the same architecture and SM count (tuned_gpu then differs
                              from device_gpu, and status says so) */
  char status[512];        /* "loaded", "loaded: tuned on ..." for another GPU's table, or why
                              the table is not used */
  char user_table_path[1024]; /* where the user table is (or would be) read; "" when none */
  int user_entries;        /* tuned shapes in the user table; 0 when it is absent or not used */
  char user_status[512];   /* "loaded", "" when there is no user table, or why it is not used */
  char device_gpu[128];    /* the current device */
  int device_sm_count;
} hgemmDispatchInfo_t;

/* Fills *info for the current device and `acc`, loading the tables if no call has yet.
 * HGEMM_ERROR_NULL_POINTER for a NULL info, HGEMM_ERROR_INVALID_ENUM for an unknown acc,
 * HGEMM_ERROR_NO_DEVICE without a device. */
hgemmStatus_t hgemmGetDispatchInfo(hgemmAccum_t acc, hgemmDispatchInfo_t* info);

/* The kernel hgemmRun would run for one problem on the current device, for pointers aligned as
 * cudaMalloc's are, the rule that chose it and why. Strings are NUL-terminated and truncated to
 * fit. Fails as hgemmRun does for bad sizes and enums, and with HGEMM_ERROR_NULL_POINTER for a
 * NULL out, HGEMM_ERROR_NO_DEVICE without a device. */
typedef struct {
  char config[128];   /* the kernel config's name, e.g. sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn */
  char rule[64];      /* "user table", "shipped table", "neighbours", "heuristic", "safety net",
                         "decode rule" */
  char reason[1024];  /* why, in one line */
} hgemmExplanation_t;
hgemmStatus_t hgemmExplain(int64_t M, int64_t N, int64_t K, hgemmLayout_t layout, hgemmAccum_t acc,
                           hgemmExplanation_t* out);

/* Reads the dispatch tables again on the next call: a process that was running when `hgemm tune`
 * wrote the user table sees it only after this. Safe while other threads call hgemmRun. */
void hgemmReloadTables(void);

/* The user table dispatch reads (its entries win over the shipped table's) instead of
 * $HGEMM_USER_TABLE or the default in the cache directory; NULL or "" restores those. Reloads
 * the tables. The file need not exist yet: hgemmGetDispatchInfo says whether it was used. */
hgemmStatus_t hgemmSetUserTable(const char* path);

/* ---- The general call --------------------------------------------------------------------
 *
 * For each batch b in [0, batch_count):
 *   C_b = act(alpha * A_b * B_b + beta * C_b + bias)
 * with A_b = A + b * stride_a (M x K), B_b = B + b * stride_b (K x N), C_b = C + b * stride_c
 * (M x N), strides and leading dimensions in elements. Each matrix is stored row-major (element
 * (i, j) at i * ld + j) or column-major (at j * ld + i); ld 0 means packed (the row length: K, N
 * and N for row-major A, B, C; M, K and M for column-major). alpha and beta are fp32 and the
 * epilogue computes in fp32 before one rounding to the element type. With beta == 0, C is only
 * written (NaN or Inf in it do not reach the result). bias, when not NULL, is N elements of the
 * element type, one per column of C, shared by every batch. A, B, C and bias are device pointers
 * to the element type.
 *
 * Element types: fp16 with fp32 or fp16 accumulation, bf16 with fp32 accumulation.
 * Activations: ReLU max(x, 0); GELU the exact erf form x/2 (1 + erf(x / sqrt 2)), as PyTorch's
 * default nn.GELU(); GELU_TANH PyTorch's approximate='tanh' form. The sm90 kernels apply
 * GELU_TANH to the rounded sum in the element type's own arithmetic (a second rounding); over
 * random inputs C's relative error stays at the rounding's own (2.1e-4 in fp16, 1.7e-3 in bf16).
 * A sum of -inf gives NaN, as in PyTorch, except GELU_TANH in fp16 on the sm90 kernels: there a
 * sum below -65504 gives GELU's 0 although it rounds to -inf first, and so -inf gives 0 too.
 *
 * Limits:
 *   M, N, K in [1, 2^31-1]; batch_count in [1, 2^31-1]; every matrix's span over all batches,
 *   (batch_count - 1) * stride + its last element, below 2^62 bytes.
 *   Pointers 2-byte aligned (bias too); a workspace 16-byte aligned.
 *   C's bytes, first to last element over all batches, must not overlap A's or B's, nor bias's
 *   (HGEMM_ERROR_ALIASING, HGEMM_ERROR_INVALID_BIAS); a layout that interleaves C with A or B
 *   in one allocation is refused even where no element is shared.
 *   Batches of C must not overlap: refused unless each batch lies beyond the previous one
 *   (stride_c >= the span of one C) or the batches interleave inside each row (stride_c >= the
 *   row length and (batch_count - 1) * stride_c + the row length <= ldc), e.g. heads written
 *   side by side into [rows, heads * N]. A and B batches may overlap (stride 0 broadcasts).
 *
 * Paths (hgemmGemmExplain names the one a call takes and why):
 *   dispatch    the tuned kernels of hgemmRun, chosen as hgemmRun chooses them, for a call
 *               with row-major C and B of either order (B row-major: NN; column-major: TN),
 *               or column-major C, run as C^T = B^T A^T (A row-major: TN; column-major: NN).
 *               Where hgemmRun's A is row-major (A with row-major C, B column-major with
 *               column-major C) these are hgemmRun's kernels and speed; otherwise (the NT and
 *               TT products) that A is first copied into rows, and the call runs as the
 *               row-major one, where it has at most 256 rows or its rows are not 16-byte
 *               strides (one matrix; a copy over 32 MiB runs in blocks of rows: see
 *               Workspace); the kernels' general flavour reads any other such A M-major. Not
 *               copied: one row with a leading dimension of 1 (it is that row), and up to 16
 *               rows whose columns are 16-byte strides where the row-major call runs a decode
 *               kernel (those read a column-major A as it is). Leading
 *               dimensions become their row strides; alpha, beta, a bias (row-major C only)
 *               and an activation are fused into their epilogue (by the sm90 kernels with fp32
 *               accumulation, by the decode kernels, M <= 16, with either). Strided batches run
 *               on the sm90 kernels in one launch (without split-K), the kernel chosen by the
 *               cost model over every batch's tiles (the tables hold single-matrix winners).
 *               Batches, beta != 0 and an M-major A run on the seven sm90 tiles built with a
 *               general flavour (128x256, 256x128, 128x128, 128x64, 64x256, 64x128, 64x64): a
 *               call whose tuned kernel is another one takes that tile at another depth where
 *               one is built, else the best of the seven, and an M-major A never splits K. Its
 *               rows (M, or N for column-major C) must be a multiple of 8 apart from a 16-byte
 *               aligned base; batches that are not take the safety net, one matrix runs from a
 *               copy (see Workspace).
 *               Its sm90 kernels need A, B and C 16-byte aligned, and K, C's row (N, or M for
 *               column-major C), any leading dimension and any batch stride multiples of 8,
 *               except that a packed TN call of one batch, no epilogue and more than 16 rows
 *               whose C row alone is not (GPT-2's 50257 columns) runs them on a padded copy of
 *               C from the library's pool and copies the rows into C after (with workspace
 *               NULL only: see Workspace); the other packed fp16 calls with one batch and without an epilogue run on its
 *               predicated sm80 kernel, as hgemmRun's do. bf16 runs the bf16 twins of the
 *               kernels fp16 would run (the shipped tables hold fp16 winners). A bf16,
 *               strided, batched or epilogue call that none of the sm90 and decode kernels can
 *               run (alignment, fp16 accumulation with beta or a bias beyond M = 16, or a
 *               device without them) takes the safety net: the predicated sm80 kernel is fp16
 *               only, packed only, one batch only, and applies no epilogue.
 *   safety net  every other legal call: a tiled mma.sync kernel (sm_80 and later) that handles
 *               every combination, any alignment, in one launch for all batches; correct, not
 *               tuned.
 *
 * Workspace: split-K on the dispatch path needs scratch (its partial sums: at most 32 MiB), and
 * so does one matrix of column-major A that is copied into rows (see Paths: M rows of K rounded
 * up to 8 elements, times 2 bytes, rounded up to 256), the copy first and the row-major call's
 * partial sums after it. Where all M rows would take over 32 MiB, the copy holds a block of the
 * most multiples of 128 rows that fit, and the call runs block by block, each block copied and
 * then run as its own row-major call on those rows of C (where not even 128 rows fit, K over
 * 131072, an A whose rows are not 16-byte strides takes the safety net). One other matrix of M-major A whose base is not 16-byte
 * aligned runs the sm90 kernels from a copy with rows of M rounded up to 8 elements (that times
 * K times 2 bytes, rounded up to 256); a copy over 32 MiB is not made, and the call takes the
 * safety net. A padded copy of C (see Paths) holds up to 32 MiB, M rows or a block of them
 * (multiples of 128, or of 16 past 131064 columns), and is taken only with workspace NULL: with
 * a workspace given, such a call keeps the sm80 kernel. With workspace NULL it comes from a
 * library-owned stream-ordered pool (allocated on
 * first use, then reused); with a workspace given, the call uses it and allocates nothing.
 * workspace_size must then be at least hgemmGemmWorkspaceSize() for the descriptor (0 for
 * safety-net and batched calls and a column-major A read M-major; at most 64 MiB). The size
 * query cannot see the pointers: an A whose base alone is misaligned needs the copy's bytes
 * beyond it, or takes the safety net. Nor does it count the last round's split, which dispatch
 * gives some fp16 calls of two to four rounds of long tiles (scratch of at most 32 MiB, sized
 * by the device's SM count): it uses a given workspace that holds it, and otherwise runs whole
 * tiles (correct, on the split's kernel).
 */
typedef enum { HGEMM_ORDER_ROW = 0, HGEMM_ORDER_COL = 1 } hgemmOrder_t;
typedef enum { HGEMM_DTYPE_F16 = 0, HGEMM_DTYPE_BF16 = 1 } hgemmDataType_t;
typedef enum {
  HGEMM_ACTIVATION_NONE = 0,
  HGEMM_ACTIVATION_RELU = 1,
  HGEMM_ACTIVATION_GELU = 2,     /* erf form (PyTorch's default) */
  HGEMM_ACTIVATION_GELU_TANH = 3 /* tanh approximation */
} hgemmActivation_t;

/* Fields are only ever appended. struct_size tells the library which fields the caller's header
 * had: those it lacks take their defaults, and a newer caller's fields this library does not
 * know must hold their defaults (zero bytes) or the call is HGEMM_ERROR_INVALID_DESCRIPTOR.
 * Always start from hgemmGemmDescInit. */
typedef struct {
  size_t struct_size;            /* sizeof(hgemmGemmDesc_t) as the caller compiled it */
  int64_t m, n, k;
  int64_t lda, ldb, ldc;         /* 0: packed */
  int64_t batch_count;           /* default 1 */
  int64_t stride_a, stride_b, stride_c; /* elements between batches, >= 0; unused for one */
  const void* bias;              /* NULL: none */
  void* workspace;               /* NULL: the library's pool */
  size_t workspace_size;         /* bytes at workspace */
  float alpha;                   /* default 1 */
  float beta;                    /* default 0 */
  hgemmOrder_t order_a, order_b, order_c; /* default row-major */
  hgemmDataType_t dtype;         /* default fp16 */
  hgemmAccum_t acc;              /* default fp32 */
  hgemmActivation_t activation;  /* default none */
} hgemmGemmDesc_t;

/* Fills the first struct_size bytes of *desc with the defaults for an M x N x K product:
 * row-major packed matrices, fp16 with fp32 accumulation, alpha 1, beta 0, one batch, no bias,
 * no activation, no workspace. Use hgemmGemmDescInit, which passes the caller's sizeof. */
hgemmStatus_t hgemmGemmDescInitSized(hgemmGemmDesc_t* desc, size_t struct_size, int64_t M,
                                     int64_t N, int64_t K);
static inline hgemmStatus_t hgemmGemmDescInit(hgemmGemmDesc_t* desc, int64_t M, int64_t N,
                                              int64_t K) {
  return hgemmGemmDescInitSized(desc, sizeof(hgemmGemmDesc_t), M, N, K);
}

/* Runs the call the descriptor describes on `stream`. Thread-safe and graph-capturable as
 * hgemmRun. Every argument is checked first; a refused call touches no memory. */
hgemmStatus_t hgemmGemm(const hgemmGemmDesc_t* desc, const void* A, const void* B, void* C,
                        cudaStream_t stream);

/* The workspace bytes a call with this descriptor may use (see Workspace above). Needs no device
 * and no pointers; checks the descriptor as hgemmGemm does. */
hgemmStatus_t hgemmGemmWorkspaceSize(const hgemmGemmDesc_t* desc, size_t* bytes);

typedef enum { HGEMM_PATH_DISPATCH = 0, HGEMM_PATH_SAFETY_NET = 1 } hgemmPath_t;

/* Which path and kernel a call runs, and why. Strings are NUL-terminated and truncated to fit. */
typedef struct {
  hgemmPath_t path;
  int transposed;     /* 1 when run as C^T = B^T A^T */
  char kernel[128];   /* the kernel's config name */
  char source[32];    /* dispatch's rule ("shipped table", "heuristic", ...) or "safety net" */
  char reason[1024];
} hgemmGemmPlan_t;

/* What hgemmGemm would run for these arguments on the current device, without running it.
 * Checks the arguments as hgemmGemm does. */
hgemmStatus_t hgemmGemmExplain(const hgemmGemmDesc_t* desc, const void* A, const void* B,
                               const void* C, hgemmGemmPlan_t* plan);

#ifdef __cplusplus
}
#endif

#endif /* HGEMM_HGEMM_H_ */
