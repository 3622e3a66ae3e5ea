// A row-major C whose N is no multiple of 8 (GPT-2's vocabulary, 50257) has rows that are no
// 16-byte stride: TMA cannot store them and the sm90 kernels' 16-byte and pair stores cannot
// align to them, so such a call ran the sm80 catalog's 64x64 tile, at 0.15-0.47 of cublaslt-best
// in TN (bench/results/2026-11-29-h200-padded-c/). In TN, where A's and B's rows are K, such a
// call runs the sm90 kernels on a copy of C whose rows are padded to a multiple of 8 columns, in
// the library's scratch, and copies its rows into C after each block (launch_compact_c_rows).
// Pure: the CPU tests check every rule.
#pragma once

#include <cstdint>
#include <string>

#include "hgemm/hgemm.hpp"
#include "launch/launch.hpp"

namespace hgemm::dispatch {

struct PaddedC {
  int64_t block_rows = 0;  // rows of C each padded copy holds (0: the call is not padded)
  explicit operator bool() const { return block_rows > 0; }
};

// Whether and how `args` (the call as hgemmRun makes it) runs through a padded C: TN, K % 8 == 0
// (A's and B's rows stay TMA strides), N % 8 != 0, more than kDecodeMaxM rows (the decode family
// runs fewer, at any N, in place), one matrix, no epilogue (a bias's pairs would not align) and
// A, B and C packed, and no caller's workspace (the copy comes from the library's pool). The copy
// holds all M rows where they fit kMaxWorkspaceBytes, else blocks of a multiple of
// kPaddedCBlockAlign rows that do (of 16 rows, past 131064 columns).
PaddedC padded_c(const Problem& problem, const GemmArgs& args);

inline constexpr int64_t kPaddedCBlockAlign = 128;

// The problem dispatch decides for one block of `rows` rows: N rounded up to 8, the width the
// kernels compute (the tables and the model know no ragged N, and their neighbours are these).
Problem padded_c_problem(const Problem& problem, int64_t rows);

// The problem dispatch decides for hgemmRun's call of `problem` (pointers as aligned as
// cudaMalloc's): where that call runs through a padded C, its first block's problem (N rounded up
// to 8), else `problem` itself. What `hgemm tune` tunes, so that dispatch finds its entry.
Problem padded_c_decided(const Problem& problem);

// Why, in explain's words: "N=50257 is no multiple of 8: C computed in a copy with rows of 50264
// columns, 8 blocks of 256 rows, then copied into C".
std::string padded_c_reason(const Problem& problem, PaddedC pad);

// The call on one block: rows [m0, m0 + rows) of A, into the padded copy `copy`.
GemmArgs padded_c_block(const GemmArgs& args, void* copy, int64_t m0, int64_t rows);

}  // namespace hgemm::dispatch
