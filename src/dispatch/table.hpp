// The dispatch table: the tuned winners of one GPU and accumulation, as `hgemm db export --table`
// writes them from the tuner's JSONL history. It is all dispatch reads at run time, so it is
// plain text that parses in well under a millisecond per thousand entries: no JSON, no gzip.
//
//   hgemm-dispatch-table 1
//   gpu NVIDIA H100 80GB HBM3
//   sm_count 132
//   acc f32
//   source nvidia-h100-80gb-hbm3-f32.jsonl.gz
//   measured_split_k 1          any timed record split K (the unseen-shape rule's advice is
//                               blind to split-K when 0)
//   configs 2                   the distinct winners, numbered from 0 in this order
//   sm90_ws_128x256x64_s4_c2x1_w2_m8_st_sk1_f32_tn
//   sm80_mma_128x128x32_s3_w2x2_sk8_f32_tn
//   blocked 1                   configs that failed somewhere: never a block_n sibling
//   sm90_ws_256x256x64_s3_c1x1_w2_m8_st_sk1_f32_tn
//   entries 2                   m n k layout config-number searched-split-k
//   4096 4096 4096 tn 0 1
//   128 128 16384 tn 1 1
//
// Lines are '\n'-terminated; everything after a '#' on a line is a comment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hgemm/hgemm.hpp"

namespace hgemm::dispatch {

inline constexpr int kTableFormat = 1;

struct TableEntry {
  int64_t m = 0, n = 0, k = 0;
  Layout layout = Layout::kTN;
  KernelConfig config;
  // Whether this shape's search measured any split-K config: a winner chosen without one was
  // never compared with a split.
  bool searched_split_k = false;
};

struct Table {
  std::string gpu;
  int sm_count = 0;
  Accum accum = Accum::kF32;
  std::string source;  // the database it was exported from (file name only)
  bool measured_split_k = false;
  std::vector<std::string> blocked;  // sorted
  std::vector<TableEntry> entries;   // sorted by (m, n, k, layout); one per shape and layout
};

// The text form above. Configs are numbered in order of first use by the sorted entries, so the
// same winners always give the same bytes.
std::string format_table(const Table& table);

// Parses the text form. Throws hgemm::Error (HGEMM_ERROR_INTERNAL) naming `where` (a path), the
// line and what is wrong; a file that does not start with the format line is "not a dispatch
// table".
Table parse_table(std::string_view text, const std::string& where);

// Reads and parses `path`; throws hgemm::Error naming the path when it cannot be read or parsed.
Table load_table(const std::string& path);

}  // namespace hgemm::dispatch
