// The dispatch table: the tuned winners of one GPU and accumulation, as `hgemm db export --table`
// writes them from the tuner's JSONL history, with the times of each shape's fastest measured
// configs for the unseen-shape rule. It is all dispatch reads at run time, so it is plain text
// that parses in a few milliseconds: no JSON, no gzip.
//
//   hgemm-dispatch-table 2
//   gpu NVIDIA H100 80GB HBM3
//   sm_count 132
//   acc f32
//   source nvidia-h100-80gb-hbm3-f32.jsonl.gz
//   measured_split_k 1          any timed record split K (the unseen-shape rule's advice is
//                               blind to split-K when 0)
//   configs 3                   the winners and timed configs, numbered from 0 in this order
//   sm90_ws_128x256x64_s4_c2x1_w2_m8_st_sk1_f32_tn
//   sm80_mma_128x128x32_s3_w2x2_sk8_f32_tn
//   sm90_ws_128x128x64_s5_c1x2_w2_m8_tma_sk1_f32_tn
//   blocked 1                   configs that failed somewhere: never a block_n sibling
//   sm90_ws_256x256x64_s3_c1x1_w2_m8_st_sk1_f32_tn
//   entries 2                   m n k layout config-number searched-split-k, then the shape's
//   4096 4096 4096 tn 0 1 0:712.5 2:760.1          timed configs as number:microseconds, fastest
//   128 128 16384 tn 1 1                            first (at most kCarriedConfigs; none is fine)
//
// Format 1 (no times) is read as well: the user tables of earlier versions stay usable.
// Lines are '\n'-terminated; everything after a '#' on a line is a comment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/neighbors.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::dispatch {

inline constexpr int kTableFormat = 2;

struct TableEntry {
  int64_t m = 0, n = 0, k = 0;
  Layout layout = Layout::kTN;
  KernelConfig config;
  // Whether this shape's search measured any split-K config: a winner chosen without one was
  // never compared with a split.
  bool searched_split_k = false;
  std::vector<TimedConfig> timed;  // fastest first; empty in a format-1 table
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

// `us` as the table writes it (four significant digits, finer than the run-to-run spread of a
// measurement): the tools carry it so, so that they predict from exactly what dispatch reads.
double carried_us(double us);

// The text form above (format kTableFormat). Configs are numbered in order of first use by the
// sorted entries (winner, then timed), so the same entries always give the same bytes.
std::string format_table(const Table& table);

// Parses the text form. Throws hgemm::Error (HGEMM_ERROR_INTERNAL) naming `where` (a path), the
// line and what is wrong; a file that does not start with the format line is "not a dispatch
// table".
Table parse_table(std::string_view text, const std::string& where);

// Reads and parses `path`; throws hgemm::Error naming the path when it cannot be read or parsed.
Table load_table(const std::string& path);

}  // namespace hgemm::dispatch
