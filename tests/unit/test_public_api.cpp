// The public headers' promises that the compiler cannot keep by itself: hgemm.hpp spells out
// KernelConfig's comparison (C++17 has no defaulted operator==), and the version has two sources.
#include <gtest/gtest.h>

#include "hgemm/hgemm.hpp"

namespace {

// Converts to any field type, so that T{AnyField{}, ...} compiles iff T has that many fields
// or more.
struct AnyField {
  template <class U>
  constexpr operator U() const;
};

template <class T, class... Fields>
constexpr int num_fields() {
  if constexpr (requires { T{Fields{}..., AnyField{}}; })
    return num_fields<T, Fields..., AnyField>();
  else
    return sizeof...(Fields);
}

static_assert(num_fields<hgemm::KernelConfig>() == 20,
              "KernelConfig's fields changed: compare the new one in operator== (hgemm.hpp), then "
              "update this count");

TEST(PublicApi, KernelConfigEqualityComparesEveryField) {
  using hgemm::KernelConfig;
  const KernelConfig base;
  std::vector<KernelConfig> changed(20, base);
  changed[0].family = hgemm::Family::kSm90Ws;
  changed[1].block_m += 1;
  changed[2].block_n += 1;
  changed[3].block_k += 1;
  changed[4].num_stages += 1;
  changed[5].warps_m += 1;
  changed[6].warps_n += 1;
  changed[7].num_consumer_wgs += 1;
  changed[8].schedule = hgemm::Schedule::kPingPong;
  changed[9].cluster_m += 1;
  changed[10].cluster_n += 1;
  changed[11].raster = hgemm::Raster::kAlongN;
  changed[12].group_size += 1;
  changed[13].epilogue = hgemm::Epilogue::kTmaStore;
  changed[14].split_k += 1;
  changed[15].layout = hgemm::Layout::kNN;
  changed[16].accum = hgemm::Accum::kF16;
  changed[17].swap_ab = true;
  changed[18].dtype = hgemm::DType::kBF16;
  changed[19].source = *hgemm::SourceName::from("a_rewrite");
  EXPECT_TRUE(base == KernelConfig{});
  EXPECT_FALSE(base != KernelConfig{});
  for (size_t i = 0; i < changed.size(); ++i) {
    EXPECT_FALSE(changed[i] == base) << "field " << i;
    EXPECT_TRUE(changed[i] != base) << "field " << i;
  }
}

TEST(PublicApi, VersionMatchesTheHeader) {
  EXPECT_EQ(hgemmGetVersion(), HGEMM_VERSION);
  EXPECT_EQ(HGEMM_VERSION,
            HGEMM_VERSION_MAJOR * 10000 + HGEMM_VERSION_MINOR * 100 + HGEMM_VERSION_PATCH);
}

}  // namespace
