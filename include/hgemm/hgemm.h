/*
 * hgemm C API: C = A * B with fp16 inputs and output.
 *
 * A is M x K row-major and C is M x N row-major. With HGEMM_LAYOUT_NN, B is K x N row-major;
 * with HGEMM_LAYOUT_TN, B is stored N x K row-major (the nn.Linear weight layout).
 * All pointers are device pointers to __half. The call is thread-safe, can be captured into a
 * CUDA graph, and after the first call for a shape on a device it neither allocates nor
 * synchronizes.
 */
#ifndef HGEMM_HGEMM_H_
#define HGEMM_HGEMM_H_

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
  HGEMM_ERROR_INTERNAL = 12
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
  int matches_device;      /* 1 when the table's GPU and SM count are this device's, so it is used */
  char status[512];        /* "loaded", or why the table is not used */
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

#ifdef __cplusplus
}
#endif

#endif /* HGEMM_HGEMM_H_ */
