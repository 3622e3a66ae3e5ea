// Dispatch decisions on a described (not real) H100: select() only reads DeviceInfo and the
// pointers' alignment, so these run without a GPU.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/device.hpp"
#include "registry/registry.hpp"

namespace {

using namespace hgemm;

DeviceInfo h100() {
  DeviceInfo d;
  d.ordinal = 0;
  d.name = "described H100";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.l2_bytes = 50 << 20;
  d.max_smem_per_block_optin = 227 * 1024;
  return d;
}

GemmArgs args_for(const Problem& p) {
  // Never dereferenced: 256-byte aligned stand-ins.
  return {reinterpret_cast<const void*>(uintptr_t(0x10000)),
          reinterpret_cast<const void*>(uintptr_t(0x20000)),
          reinterpret_cast<void*>(uintptr_t(0x30000)), p.m, p.n, p.k, nullptr};
}

TEST(Dispatch, SmallOutputLongKSplitsK) {
  const DeviceInfo d = h100();
  for (Accum acc : {Accum::kF32, Accum::kF16}) {
    const Problem p{256, 128, 16384, Layout::kTN, acc};
    const registry::Choice& c = registry::select(p, args_for(p), d);
    ASSERT_NE(c.instance, nullptr);
    EXPECT_GT(c.config.split_k, 1) << c.config.name();
    EXPECT_TRUE(c.config.validate().ok()) << c.config.name();
    EXPECT_EQ(registry::find(c.config), c.instance);
    // The split must beat the same instance unsplit in the model, or the choice is arbitrary.
    KernelConfig unsplit = c.config;
    unsplit.split_k = 1;
    EXPECT_LT(registry::estimate_cost(p, c.config, d), registry::estimate_cost(p, unsplit, d));
  }
}

TEST(Dispatch, LargeShapesDoNotSplit) {
  const DeviceInfo d = h100();
  for (int64_t s : {4096, 8192}) {
    const Problem p{s, s, s, Layout::kTN, Accum::kF32};
    const registry::Choice& c = registry::select(p, args_for(p), d);
    EXPECT_EQ(c.config.family, Family::kSm90Ws) << c.config.name();
    EXPECT_EQ(c.config.split_k, 1) << c.config.name();
  }
}

TEST(Dispatch, ShortKDoesNotSplit) {
  const DeviceInfo d = h100();
  const Problem p{128, 128, 256, Layout::kNN, Accum::kF32};
  EXPECT_EQ(registry::select(p, args_for(p), d).config.split_k, 1);
}

TEST(Dispatch, SplitReductionIsCharged) {
  const DeviceInfo d = h100();
  const Problem p{64, 64, 65536, Layout::kTN, Accum::kF32};
  KernelConfig c = registry::find(KernelConfig{})->config;  // an sm80 instance
  c.layout = Layout::kTN;
  c.split_k = 1;
  const double base = registry::estimate_cost(p, c, d);
  c.split_k = 8;
  const double split8 = registry::estimate_cost(p, c, d);
  EXPECT_LT(split8, base);
  // Past the point where the grid is full, more splits only add partial traffic.
  c.split_k = 64;
  const Problem wide{4096, 4096, 65536, Layout::kTN, Accum::kF32};
  KernelConfig c1 = c;
  c1.split_k = 1;
  EXPECT_GT(registry::estimate_cost(wide, c, d), registry::estimate_cost(wide, c1, d));
}

TEST(KernelConfigSplit, Sm80AcceptsSplitsInRange) {
  KernelConfig c;
  for (int s : {1, 2, 7, 64}) {
    c.split_k = s;
    EXPECT_TRUE(c.validate().ok()) << s;
    auto parsed = KernelConfig::parse(c.name());
    ASSERT_TRUE(parsed.has_value()) << c.name();
    EXPECT_EQ(parsed->split_k, s);
  }
  for (int s : {0, -1, 65}) {
    c.split_k = s;
    EXPECT_FALSE(c.validate().ok()) << s;
  }
}

}  // namespace
