// The C API's argument checks that come before any device access, and the status strings.
// These run on the CPU-only CI machine: every call here must fail before touching CUDA.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <tuple>

#include "hgemm/hgemm.h"

namespace {

// Stand-in addresses: never dereferenced, since validation rejects every call below first.
const void* ptr(uintptr_t address) { return reinterpret_cast<const void*>(address); }
void* mptr(uintptr_t address) { return reinterpret_cast<void*>(address); }

void expect_status(hgemmStatus_t got, hgemmStatus_t want, const char* needle) {
  EXPECT_EQ(got, want) << hgemmStatusString(got) << " / " << hgemmLastErrorMessage();
  EXPECT_NE(std::string(hgemmLastErrorMessage()).find(needle), std::string::npos)
      << hgemmLastErrorMessage();
}

}  // namespace

TEST(CApi, NullPointers) {
  expect_status(hgemmRun(nullptr, ptr(0x10000), mptr(0x20000), 8, 8, 8, HGEMM_LAYOUT_NN,
                         HGEMM_ACC_F32, nullptr),
                HGEMM_ERROR_NULL_POINTER, "A");
  expect_status(hgemmRun(ptr(0x10000), ptr(0x20000), nullptr, 8, 8, 8, HGEMM_LAYOUT_TN,
                         HGEMM_ACC_F32, nullptr),
                HGEMM_ERROR_NULL_POINTER, "C");
}

TEST(CApi, NonPositiveSizes) {
  for (auto [m, n, k] : {std::tuple{0, 8, 8}, std::tuple{8, 0, 8}, std::tuple{8, 8, 0},
                         std::tuple{-1, 8, 8}, std::tuple{8, 8, -64}}) {
    expect_status(hgemmRun(ptr(0x10000), ptr(0x20000), mptr(0x30000), m, n, k, HGEMM_LAYOUT_NN,
                           HGEMM_ACC_F32, nullptr),
                  HGEMM_ERROR_INVALID_SIZE, "positive");
  }
}

TEST(CApi, OverflowingSizes) {
  expect_status(hgemmRun(ptr(0x10000), ptr(0x20000), mptr(0x30000), int64_t(1) << 40,
                         int64_t(1) << 40, 8, HGEMM_LAYOUT_NN, HGEMM_ACC_F32, nullptr),
                HGEMM_ERROR_SIZE_OVERFLOW, "2^31");
  expect_status(hgemmRun(ptr(0x10000), ptr(0x20000), mptr(0x30000), INT64_MAX, 2, 2,
                         HGEMM_LAYOUT_TN, HGEMM_ACC_F16, nullptr),
                HGEMM_ERROR_SIZE_OVERFLOW, "");
}

TEST(CApi, UnknownEnums) {
  expect_status(hgemmRun(ptr(0x10000), ptr(0x20000), mptr(0x30000), 8, 8, 8,
                         static_cast<hgemmLayout_t>(2), HGEMM_ACC_F32, nullptr),
                HGEMM_ERROR_INVALID_ENUM, "layout");
  expect_status(hgemmRun(ptr(0x10000), ptr(0x20000), mptr(0x30000), 8, 8, 8, HGEMM_LAYOUT_NN,
                         static_cast<hgemmAccum_t>(-1), nullptr),
                HGEMM_ERROR_INVALID_ENUM, "accumulation");
}

TEST(CApi, COverlappingAOrB) {
  // 64x64 fp16 matrices are 8 KiB each.
  expect_status(hgemmRun(ptr(0x100000), ptr(0x200000), mptr(0x100000 + 4096), 64, 64, 64,
                         HGEMM_LAYOUT_NN, HGEMM_ACC_F32, nullptr),
                HGEMM_ERROR_ALIASING, "C overlaps A");
  expect_status(hgemmRun(ptr(0x100000), ptr(0x200000), mptr(0x200000 - 100), 64, 64, 64,
                         HGEMM_LAYOUT_TN, HGEMM_ACC_F32, nullptr),
                HGEMM_ERROR_ALIASING, "C overlaps B");
}

TEST(CApi, StatusStringsAreDistinctAndNamed) {
  std::set<std::string> seen;
  for (int s = HGEMM_SUCCESS; s <= HGEMM_ERROR_INVALID_DESCRIPTOR; ++s) {
    const char* text = hgemmStatusString(static_cast<hgemmStatus_t>(s));
    ASSERT_NE(text, nullptr);
    EXPECT_EQ(std::strncmp(text, "HGEMM_", 6), 0) << text;
    EXPECT_TRUE(seen.insert(text).second) << text;
  }
  EXPECT_STREQ(hgemmStatusString(HGEMM_SUCCESS), "HGEMM_SUCCESS");
  EXPECT_NE(std::string(hgemmStatusString(static_cast<hgemmStatus_t>(999))).find("UNKNOWN"),
            std::string::npos);
}

TEST(CApi, ExplainRefusesBadArgumentsBeforeTheDevice) {
  hgemmExplanation_t e;
  expect_status(hgemmExplain(8, 8, 8, HGEMM_LAYOUT_TN, HGEMM_ACC_F32, nullptr),
                HGEMM_ERROR_NULL_POINTER, "out");
  expect_status(hgemmExplain(8, 0, 8, HGEMM_LAYOUT_TN, HGEMM_ACC_F32, &e),
                HGEMM_ERROR_INVALID_SIZE, "positive");
  expect_status(hgemmExplain(8, 8, 8, static_cast<hgemmLayout_t>(7), HGEMM_ACC_F32, &e),
                HGEMM_ERROR_INVALID_ENUM, "layout");
  expect_status(hgemmExplain(8, 8, 8, HGEMM_LAYOUT_NN, static_cast<hgemmAccum_t>(3), &e),
                HGEMM_ERROR_INVALID_ENUM, "accumulation");
}
