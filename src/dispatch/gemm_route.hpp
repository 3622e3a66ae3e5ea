// hgemmGemm's first decision: whether a call is exactly one hgemmRun, so that dispatch chooses
// among the tuned kernels as it does for hgemmRun, or needs the general kernel (the safety net).
// Pure: no device, and no pointer is read (route_args only places them), so the CPU tests check
// every rule.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "hgemm/hgemm.hpp"
#include "launch/launch.hpp"

namespace hgemm::dispatch {

struct GemmRoute {
  bool dispatch = false;    // true: run `problem` as hgemmRun would; false: the safety net
  bool transposed = false;  // run as C^T = B^T A^T: hgemmRun's A is the call's B and its B is A
  Problem problem;          // the hgemmRun problem (dispatch only)
  int64_t lda = 0, ldb = 0, ldc = 0;  // its row strides (dispatch only)
  int64_t batch_count = 1;            // strided batches, with hgemmRun's operands' strides
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  bool a_col_major = false;  // hgemmRun's A stored K x M (GemmArgs::a_col_major)
  // That A copied to M x K rows before the call (launch_a_to_rows), which then runs as a
  // row-major one: where the copy is made anyway (a leading dimension TMA cannot stride) or A is
  // small (M <= kARowsFirstMaxM). One matrix only.
  bool a_rows_first = false;
  // The rows of A each copy holds (a_rows_first only): all M, or where a copy of all M would
  // take more than kMaxWorkspaceBytes, blocks of this many rows, each copied and then run as its
  // own row-major call on the same rows of C (a_rows_block_rows).
  int64_t a_rows_block = 0;
  std::string reason;       // why this path, in one line
};

// The route of a validated descriptor: every order of A, B and C runs on hgemmRun's kernels.
// Row-major C: A as it is, B row-major NN, column-major TN. Column-major C: as C^T = B^T A^T, A
// column-major NN, row-major TN, and B^T as the kernels' A. That A is column-major where the
// call's A is (row-major C) or its B is row-major (column-major C): the sm90 kernels' general
// flavour reads it M-major (GemmArgs::a_col_major). fp16, or bf16 (the problem's dtype: dispatch runs the kernels' bf16 twins).
// Leading dimensions ride along as the row strides (the sm90 and decode kernels take them; the
// sm80 catalog only packed ones), strided batches as batch strides (the sm90 kernels take them),
// alpha, beta, a bias (row-major C only) and an activation as the kernels' fused epilogue
// (GemmArgs::epilogue).
GemmRoute route(const GemmDesc& desc);

// Up to this many rows a column-major A is copied to rows first, unless the row-major call's pick
// reads it as stored (column_major_a_as_stored): the general flavour's seven unsplit tiles ran
// 0.68-0.70 of the row-major call's speed for 16 < M <= 256 on the held-out model shapes, where
// the row-major call runs swap-AB tiles and splits K, and a copy of A is small next to B
// (docs/notes/2026-11-29-epilogue-cost-and-column-major-a.md).
inline constexpr int64_t kARowsFirstMaxM = 256;

// The rows of an M x K column-major A that one copy into rows holds: all M where the copy fits
// kMaxWorkspaceBytes (and the copy kernel's grid), else the most whole multiples of
// kARowsBlockAlign rows that do, so that only the last block ends in a partial tile (0: not even
// that many fit; no copy).
inline constexpr int64_t kARowsBlockAlign = 128;
int64_t a_rows_block_rows(int64_t m, int64_t k);
// The rows of the last block of an a_rows_first route (its a_rows_block where they divide M).
int64_t a_rows_last_block(const GemmRoute& route);

struct Decision;  // dispatch/dispatch.hpp

// Whether a route through rows could run without the copy at all: one block (all M rows), which
// a decode kernel or a swap-AB tile's flavour for a column-major A may read as stored. Needs no
// decision, so hgemmGemm asks it before planning the row-major call.
bool may_read_a_as_stored(const GemmRoute& route);

// The pick that reads the call's column-major A as stored, so that nothing is copied, where
// may_read_a_as_stored holds. `row` is the row-major call's pick on the copy and `call` the
// call's own arguments (route_args: that A as stored):
//   - `row` where it is a decode kernel (at most kDecodeMaxM rows; kernels/sm80/sm80_decode.cuh)
//     or an unsplit swap-AB tile with a flavour for a column-major A
//     (launch/sm90_catalog.hpp, CatalogRow::with_column_major_a) that runs `call`;
//   - for such a tile without the flavour, its sibling with it (runnable_twin);
//   - where `row` is the decode rule's swap-AB tile below 12 tokens in TN
//     (decode_rule_tile_in_tn), a width with no such flavour, dispatch's pick for the call as it
//     is, which `as_is` supplies (asked only then), where that is a decode kernel that runs it.
// The swap-AB tiles only from 32-byte aligned columns (sm90_check_args). nullopt where the call
// runs from the copy. hgemmGemm and `hgemm explain --a-col` both decide through it.
std::optional<Decision> column_major_a_as_stored(const GemmRoute& route, const Decision& row,
                                                 const GemmArgs& call, const DeviceInfo& device,
                                                 const std::function<const Decision*()>& as_is);
// What an explanation adds to the route's reason where a pick reads the A as stored.
std::string a_as_stored_note(const Decision& reader);

// The most scratch a call on `route` may take (split-K's partial sums on the dispatch path, after
// the copy of A where it runs through rows; the safety net needs none): what a caller's workspace
// must hold.
size_t workspace_bytes(const GemmRoute& route);

// What the dispatch path runs for the call (hgemmGemm's pointers a, b, c): hgemmRun's arguments
// on `route`, with A and B exchanged for C^T = B^T A^T, and the descriptor's epilogue and
// workspace. The column-major A as the call stores it: a copy into rows (a_rows_first) is the
// caller's.
GemmArgs route_args(const GemmDesc& desc, const GemmRoute& route, const void* a, const void* b,
                    void* c, cudaStream_t stream);

}  // namespace hgemm::dispatch
