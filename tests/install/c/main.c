/* Links the installed libhgemm from C99 and checks the calls that need no GPU: the version, and
 * refusals of bad arguments with a status and a message instead of a crash. */
#include <stdio.h>
#include <string.h>

#include <hgemm/hgemm.h>

static int failures = 0;

#define CHECK(cond)                                                       \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

int main(void) {
  hgemmStatus_t s;
  short host[64];

  CHECK(hgemmGetVersion() == HGEMM_VERSION);
  CHECK(HGEMM_VERSION ==
        HGEMM_VERSION_MAJOR * 10000 + HGEMM_VERSION_MINOR * 100 + HGEMM_VERSION_PATCH);

  /* A C caller can pass any integer as an enum. */
  s = hgemmRun(host, host, host + 32, 4, 4, 4, (hgemmLayout_t)7, HGEMM_ACC_F32, NULL);
  CHECK(s == HGEMM_ERROR_INVALID_ENUM);
  CHECK(strstr(hgemmLastErrorMessage(), "layout") != NULL);
  CHECK(strncmp(hgemmStatusString(s), "HGEMM_ERROR_INVALID_ENUM", 24) == 0);

  s = hgemmRun(NULL, NULL, NULL, 64, 64, 64, HGEMM_LAYOUT_TN, HGEMM_ACC_F32, NULL);
  CHECK(s == HGEMM_ERROR_NULL_POINTER);

  s = hgemmRun(host, host, host + 32, -1, 4, 4, HGEMM_LAYOUT_NN, HGEMM_ACC_F16, NULL);
  CHECK(s == HGEMM_ERROR_INVALID_SIZE);

  /* The general call: a descriptor from hgemmGemmDescInit, refused before any device access. */
  {
    hgemmGemmDesc_t desc;
    size_t workspace = 1;
    CHECK(hgemmGemmDescInit(&desc, 16, 24, 40) == HGEMM_SUCCESS);
    CHECK(desc.struct_size == sizeof desc && desc.batch_count == 1 && desc.alpha == 1.0f);
    desc.order_a = HGEMM_ORDER_COL;
    desc.lda = 15; /* a column of A holds M = 16 */
    CHECK(hgemmGemm(&desc, host, host + 16, host + 32, NULL) == HGEMM_ERROR_INVALID_LEADING_DIM);
    CHECK(strstr(hgemmLastErrorMessage(), "lda") != NULL);
    desc.lda = 0;
    desc.dtype = HGEMM_DTYPE_BF16;
    desc.acc = HGEMM_ACC_F16;
    CHECK(hgemmGemm(&desc, host, host + 16, host + 32, NULL) == HGEMM_ERROR_DTYPE_ACCUM);
    desc.acc = HGEMM_ACC_F32;
    /* A column-major A of 16 rows: a packed copy of its rows (M * K * 2 bytes), then the
       row-major call's split-K partial sums (at most 64 splits of M * N fp32). */
    CHECK(hgemmGemmWorkspaceSize(&desc, &workspace) == HGEMM_SUCCESS &&
          workspace == 16 * 40 * 2 + 64 * 16 * 24 * 4);
    desc.struct_size = 8;
    CHECK(hgemmGemm(&desc, host, host + 16, host + 32, NULL) == HGEMM_ERROR_INVALID_DESCRIPTOR);
  }

  /* Host memory: "no CUDA device" without a GPU, "not device memory" with one. */
  s = hgemmRun(host, host + 16, host + 32, 4, 4, 4, HGEMM_LAYOUT_TN, HGEMM_ACC_F32, NULL);
  CHECK(s != HGEMM_SUCCESS);
  CHECK(hgemmLastErrorMessage()[0] != '\0');
  printf("hgemm %d.%d.%d (library %d); host pointers: %s: %s\n", HGEMM_VERSION_MAJOR,
         HGEMM_VERSION_MINOR, HGEMM_VERSION_PATCH, hgemmGetVersion(), hgemmStatusString(s),
         hgemmLastErrorMessage());
  return failures ? 1 : 0;
}
