// A TN call whose N is no multiple of 8 runs the sm90 kernels on a padded copy of C
// (dispatch::padded_c): which calls, in how many blocks, what the kernels accept and what
// dispatch picks for a block, on a described H100 (no GPU).
#include <gtest/gtest.h>

#include <cstdint>

#include "core/device.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/padded_c.hpp"
#include "launch/launch.hpp"
#include "launch/sm90_launch.hpp"
#include "launch/workspace.hpp"
#include "tuner/space/space.hpp"

namespace {

using namespace hgemm;

TEST(PaddedC, TnWithARaggedNAndMoreThanSixteenRows) {
  const Problem lm_head{64, 50257, 768, Layout::kTN, Accum::kF32};
  EXPECT_EQ(dispatch::padded_c(lm_head, stand_in_args(lm_head)).block_rows, 64);
  // N % 8 == 0 runs in place; so do NN (B's rows are N), K % 8 != 0 (A's and B's rows are K) and
  // the decode family's M <= 16.
  for (const Problem& p : {Problem{64, 50264, 768, Layout::kTN, Accum::kF32},
                           Problem{64, 50257, 768, Layout::kNN, Accum::kF32},
                           Problem{64, 50257, 770, Layout::kTN, Accum::kF32},
                           Problem{16, 50257, 768, Layout::kTN, Accum::kF16}})
    EXPECT_FALSE(dispatch::padded_c(p, stand_in_args(p))) << p.name();
  EXPECT_EQ(dispatch::padded_c(Problem{17, 7, 64, Layout::kTN, Accum::kF16},
                               stand_in_args(Problem{17, 7, 64, Layout::kTN, Accum::kF16}))
                .block_rows,
            17);
}

TEST(PaddedC, OnlyPlainPackedCallsWithoutACallersWorkspace) {
  const Problem p{300, 4099, 4096, Layout::kTN, Accum::kF32};
  GemmArgs bias = stand_in_args(p);
  bias.epilogue.bias = reinterpret_cast<const uint16_t*>(uintptr_t(0x50000));
  GemmArgs batched = stand_in_args(p);
  batched.batch_count = 2;
  batched.stride_a = 300 * 4096;
  batched.stride_c = 300 * 4099;
  GemmArgs strided = stand_in_args(p);
  strided.ldc = 4104;
  GemmArgs own_scratch = stand_in_args(p);
  own_scratch.workspace = reinterpret_cast<void*>(uintptr_t(0x60000));
  own_scratch.workspace_bytes = size_t(64) << 20;
  GemmArgs col_a = stand_in_args(p);
  col_a.a_col_major = true;
  for (const GemmArgs& a : {bias, batched, strided, own_scratch, col_a})
    EXPECT_FALSE(dispatch::padded_c(p, a));
  EXPECT_TRUE(dispatch::padded_c(p, stand_in_args(p)));
}

TEST(PaddedC, LargeCopiesRunInBlocksOfWholeTilesThatFitTheScratch) {
  const Problem p{2048, 50257, 768, Layout::kTN, Accum::kF32};
  const dispatch::PaddedC pad = dispatch::padded_c(p, stand_in_args(p));
  ASSERT_TRUE(pad);
  EXPECT_EQ(pad.block_rows % dispatch::kPaddedCBlockAlign, 0);
  EXPECT_LE(padded_c_bytes(pad.block_rows, p.n), kMaxWorkspaceBytes);
  EXPECT_GT(padded_c_bytes(pad.block_rows + dispatch::kPaddedCBlockAlign, p.n),
            kMaxWorkspaceBytes);
  EXPECT_EQ(pad.block_rows, 256);
  // Past 131064 columns not even 128 rows fit: blocks of whole 16-row groups.
  const Problem wide{300, 131073, 64, Layout::kTN, Accum::kF16};
  EXPECT_EQ(dispatch::padded_c(wide, stand_in_args(wide)).block_rows, 112);
  EXPECT_EQ(dispatch::padded_c_reason(p, pad),
            "N=50257 is no multiple of 8: C computed in a copy with rows of 50264 columns, 8 "
            "blocks of 256 rows, then copied into C");
  const Problem block = dispatch::padded_c_problem(p, pad.block_rows);
  EXPECT_EQ(block.m, 256);
  EXPECT_EQ(block.n, 50264);
  EXPECT_EQ(block.k, 768);
}

TEST(PaddedC, TheDecidedProblemIsTheFirstBlocksWithNRoundedUp) {
  const Problem one{300, 50257, 768, Layout::kTN, Accum::kF32};
  const Problem decided = dispatch::padded_c_decided(one);
  EXPECT_EQ(decided.name(), "300x50264x768_tn_f32");
  const Problem blocks{2048, 50257, 768, Layout::kTN, Accum::kF16};
  EXPECT_EQ(dispatch::padded_c_decided(blocks).name(), "256x50264x768_tn_f16");
  // Calls that run in place are decided as given.
  for (const Problem& p : {Problem{300, 50257, 768, Layout::kNN, Accum::kF32},
                           Problem{16, 50257, 768, Layout::kTN, Accum::kF32},
                           Problem{300, 50264, 768, Layout::kTN, Accum::kF32},
                           Problem{300, 1001, 1001, Layout::kTN, Accum::kF32}})
    EXPECT_EQ(dispatch::padded_c_decided(p).name(), p.name());
}

TEST(PaddedC, ABlockReadsItsRowsOfAAndWritesThePaddedCopy) {
  const Problem p{600, 1001, 512, Layout::kTN, Accum::kF16};
  void* copy = reinterpret_cast<void*>(uintptr_t(0x70000));
  const GemmArgs block = dispatch::padded_c_block(stand_in_args(p), copy, 256, 128);
  EXPECT_EQ(block.a, static_cast<const void*>(reinterpret_cast<const uint16_t*>(0x10000) +
                                              256 * 512));
  EXPECT_EQ(block.b, stand_in_args(p).b);
  EXPECT_EQ(block.c, copy);
  EXPECT_EQ(block.m, 128);
  EXPECT_EQ(block.n, 1001);
  EXPECT_EQ(block.ldc, 1008);
  EXPECT_TRUE(block.c_rows_padded);
}

TEST(PaddedC, TheSm90KernelsTakeARaggedNOnlyIntoThePaddedCopy) {
  KernelConfig tn;
  tn.family = Family::kSm90Ws;
  tn.block_m = 128;
  tn.block_n = 128;
  tn.num_stages = 6;
  ASSERT_TRUE(tn.validate().ok()) << tn.validate().message;
  const Problem p{600, 1001, 512, Layout::kTN, Accum::kF32};
  const GemmArgs padded =
      dispatch::padded_c_block(stand_in_args(p), reinterpret_cast<void*>(uintptr_t(0x70000)), 0,
                               600);
  EXPECT_TRUE(sm90_check_args(tn, padded).ok()) << sm90_check_args(tn, padded).message;
  // A caller's C, packed or with room: the stores would write past its N.
  GemmArgs callers = stand_in_args(p);
  EXPECT_FALSE(sm90_check_args(tn, callers).ok());
  callers.ldc = 1008;
  EXPECT_FALSE(sm90_check_args(tn, callers).ok());
  // A padded copy too narrow for the stores, or NN, whose B rows are N.
  GemmArgs narrow = padded;
  narrow.ldc = 1000;
  EXPECT_FALSE(sm90_check_args(tn, narrow).ok());
  KernelConfig nn = tn;
  nn.layout = Layout::kNN;
  EXPECT_FALSE(sm90_check_args(nn, padded).ok());
}

TEST(PaddedC, DispatchPicksAnSm90KernelForEveryBlock) {
  DeviceInfo device = tuner::nominal_device("described H100", 132);
  device.ordinal = 0;
  for (Accum acc : {Accum::kF32, Accum::kF16}) {
    const Problem p{2048, 50257, 768, Layout::kTN, acc};
    const dispatch::PaddedC pad = dispatch::padded_c(p, stand_in_args(p));
    ASSERT_TRUE(pad);
    const GemmArgs block =
        dispatch::padded_c_block(stand_in_args(p), reinterpret_cast<void*>(uintptr_t(0x70000)), 0,
                                 pad.block_rows);
    const dispatch::Decision* d = dispatch::try_select(
        dispatch::padded_c_problem(p, pad.block_rows), block, device, nullptr);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->config.family, Family::kSm90Ws) << d->config.name();
  }
}

}  // namespace
