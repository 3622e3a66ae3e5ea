#include "dispatch/gemm_route.hpp"

#include <algorithm>

#include "core/decode_variant.hpp"
#include "dispatch/dispatch.hpp"
#include "launch/launch.hpp"
#include "launch/sm90_catalog.hpp"
#include "launch/workspace.hpp"
#include "registry/registry.hpp"

namespace hgemm::dispatch {
namespace {

// How the reason names what the call adds to hgemmRun: the element type (bf16 runs the same
// kernels' twins), leading dimensions, batches and the epilogue the kernels fuse.
std::string element(const GemmDesc& d) {
  std::string extra;
  if (d.dtype == DType::kBF16) extra += ", in bf16";
  const bool packed = d.lda_or_packed() == (d.order_a == Order::kRow ? d.k : d.m) &&
                      d.ldb_or_packed() == (d.order_b == Order::kRow ? d.n : d.k) &&
                      d.ldc_or_packed() == (d.order_c == Order::kRow ? d.n : d.m);
  if (!packed) extra += ", strided";
  if (d.batch_count != 1) extra += ", " + std::to_string(d.batch_count) + " batches";
  std::string fused;
  if (d.alpha != 1.0f) fused += ", alpha";
  if (d.beta != 0.0f) fused += ", beta";
  if (d.bias) fused += ", bias";
  if (d.activation != Activation::kNone) fused += ", " + std::string(to_string(d.activation));
  if (!fused.empty()) extra += fused + " fused";
  return extra.empty() ? extra : " (" + extra.substr(2) + ")";
}

// Whether a dispatch route's column-major A runs from a copy in rows (GemmRoute::a_rows_first)
// and in blocks of how many rows (GemmRoute::a_rows_block), set on `r`; and the reason's words
// for how that A is read.
void set_a_rows(GemmRoute& r) {
  if (!r.a_col_major || r.batch_count != 1) return;
  // Copied anyway: the sm90 kernels would stage it (the pointer is not known here).
  const bool copied_anyway = sm90_stages_a(r.lda, nullptr, r.batch_count);
  if (!copied_anyway && r.problem.m > kARowsFirstMaxM) return;
  r.a_rows_block = a_rows_block_rows(r.problem.m, r.problem.k);
  r.a_rows_first = r.a_rows_block > 0;
}

// A column-major A of one row whose leading dimension is 1 is that row, contiguous: the
// row-major call reads the same bytes without the copy into rows, which took 2-4.5 us for a
// 1 x 7168 A (docs/notes/2026-11-29-column-major-a-through-rows.md). Its row stride is then
// never stepped; it is K rounded up to 16 bytes, a stride TMA takes. True where it applied.
bool read_one_row_as_rows(GemmRoute& r) {
  if (!r.a_col_major || r.problem.m != 1 || r.lda != 1) return false;
  r.a_col_major = false;
  r.lda = (r.problem.k + 7) / 8 * 8;
  return true;
}

std::string how_a_is_read(const GemmRoute& r) {
  if (!r.a_rows_first) return " (read M-major)";
  const std::string blocks =
      r.a_rows_block < r.problem.m
          ? ", in blocks of " + std::to_string(r.a_rows_block) + " rows, each copy within " +
                std::to_string(kMaxWorkspaceBytes >> 20) + " MiB"
          : "";
  return r.problem.m <= kARowsFirstMaxM
             ? " (copied to rows first: M <= " + std::to_string(kARowsFirstMaxM) + blocks + ")"
             : " (copied to rows first: its leading dimension is no multiple of 8" + blocks + ")";
}

// The most split-K partial sums a row-major call of m x n may take: plan_split
// (launch/splitk.cu) keeps splits <= kMaxSplitK and their sums within kMaxWorkspaceBytes, so the
// most is the largest such multiple of one split's bytes.
size_t most_split_bytes(int64_t m, int64_t n) {
  const size_t split_bytes = splitk_partial_bytes(m, n);
  const size_t splits = std::min<size_t>(kMaxSplitK, kMaxWorkspaceBytes / split_bytes);
  return splits >= 2 ? splits * split_bytes : 0;
}

}  // namespace

GemmRoute route(const GemmDesc& d) {
  GemmRoute r;
  const std::string safety_net = "safety net: ";
  r.batch_count = d.batch_count;
  if (d.order_c == Order::kRow) {
    r.dispatch = true;
    r.a_col_major = d.order_a == Order::kCol;
    r.problem = Problem{d.m, d.n, d.k, d.order_b == Order::kRow ? Layout::kNN : Layout::kTN,
                        d.accum, d.dtype};
    r.lda = d.lda_or_packed();
    r.ldb = d.ldb_or_packed();
    r.ldc = d.ldc_or_packed();
    r.stride_a = d.stride_a;
    r.stride_b = d.stride_b;
    r.stride_c = d.stride_c;
    const bool one_row = read_one_row_as_rows(r);
    set_a_rows(r);
    r.reason = std::string(r.a_col_major || one_row ? "hgemmRun " : "exactly hgemmRun ") +
               (d.order_b == Order::kRow ? "NN" : "TN") +
               (r.a_col_major ? " with A column-major" + how_a_is_read(r) : "") +
               (one_row ? " with A column-major, one row: read as that row" : "") + element(d);
    return r;
  }
  // Column-major C is row-major C^T = B^T A^T: B^T is column-major B read row-major (N x K),
  // and A^T, as hgemmRun's B, is TN for row-major A (stored M x K) and NN for column-major A
  // (stored K x M).
  if (d.bias) {
    r.reason = safety_net + "a bias with column-major C (run as C^T, its bias would run " +
               "along rows; the tuned kernels add a bias per column)";
    return r;
  }
  r.dispatch = true;
  r.transposed = true;
  r.a_col_major = d.order_b == Order::kRow;  // B^T, the kernels' A, is column-major
  r.problem = Problem{d.n, d.m, d.k, d.order_a == Order::kRow ? Layout::kTN : Layout::kNN,
                      d.accum, d.dtype};
  r.lda = d.ldb_or_packed();  // B^T: column-major B read as rows of its leading dimension
  r.ldb = d.lda_or_packed();
  r.ldc = d.ldc_or_packed();
  r.stride_a = d.stride_b;
  r.stride_b = d.stride_a;
  r.stride_c = d.stride_c;
  const bool one_row = read_one_row_as_rows(r);
  set_a_rows(r);
  r.reason = std::string("column-major C as C^T = B^T A^T: ") +
             (r.a_col_major || one_row ? "hgemmRun " : "exactly hgemmRun ") +
             (d.order_a == Order::kRow ? "TN" : "NN") + " of N x M x K" +
             (r.a_col_major ? " with B^T column-major" + how_a_is_read(r) : "") +
             (one_row ? " with B^T column-major, one row: read as that row" : "") + element(d);
  return r;
}

int64_t a_rows_block_rows(int64_t m, int64_t k) {
  if (a_rows_bytes(m, k) <= kMaxWorkspaceBytes && m <= kARowsMaxRows) return m;
  const int64_t fit =
      std::min(kARowsMaxRows, int64_t(kMaxWorkspaceBytes / (size_t(a_rows_ld(k)) * 2)));
  return fit / kARowsBlockAlign * kARowsBlockAlign;
}

int64_t a_rows_last_block(const GemmRoute& route) {
  return last_block_size(route.problem.m, route.a_rows_block);
}

size_t workspace_bytes(const GemmRoute& route) {
  if (!route.dispatch || route.batch_count > 1) return 0;
  const int64_t m = route.problem.m, n = route.problem.n;
  // A copy of A in rows comes first; each block then runs as a row-major call, split-K
  // included. A split's room is not monotone in M (fewer splits fit for more rows), so the last,
  // shorter block may want more.
  if (route.a_rows_first) {
    const int64_t block = route.a_rows_block;
    return a_rows_bytes(block, route.problem.k) +
           std::max(most_split_bytes(block, n), most_split_bytes(a_rows_last_block(route), n));
  }
  // A column-major A read M-major never splits K (launch/sm90_launch.cu); with a base TMA cannot
  // read (which the route cannot see) the sm90 kernels run it from a copy whose rows it can,
  // counted by hgemm.h's Workspace paragraph, not here.
  if (route.a_col_major) return 0;
  return most_split_bytes(m, n);
}

bool may_read_a_as_stored(const GemmRoute& route) {
  return route.a_rows_first && route.a_rows_block == route.problem.m;
}

namespace {

bool decode_reads_a_as_stored(const GemmRoute& route, const Decision& row, const GemmArgs& call,
                              const DeviceInfo& device) {
  return row.config.family == Family::kDecode && route.problem.m <= kDecodeMaxM &&
         registry::can_implement(route.problem, row.config, call, device).ok();
}

}  // namespace

std::optional<Decision> column_major_a_as_stored(const GemmRoute& route, const Decision& row,
                                                 const GemmArgs& call, const DeviceInfo& device,
                                                 const std::function<const Decision*()>& as_is) {
  if (!may_read_a_as_stored(route)) return std::nullopt;
  if (decode_reads_a_as_stored(route, row, call, device)) return row;
  if (row.config.family == Family::kSm90Ws && row.config.swap_ab && row.config.split_k == 1 &&
      sm90::tile_has_column_major_flavour(sm90_variant(row.config))) {
    if (registry::can_implement(route.problem, row.config, call, device).ok()) return row;
    if (std::optional<Decision> twin = runnable_twin(route.problem, row.config, call, device)) {
      twin->source = row.source;
      twin->reason = row.reason + "; its tile " + twin->reason;
      return twin;
    }
  }
  if (!decode_rule_tile_in_tn(route.problem, row)) return std::nullopt;
  const Decision* own = as_is();
  if (own && decode_reads_a_as_stored(route, *own, call, device)) return *own;
  return std::nullopt;
}

std::string a_as_stored_note(const Decision& reader) {
  return std::string("not copied after all: ") +
         (reader.config.family == Family::kDecode ? "the decode kernel"
                                                   : "the swap-AB tile's flavour for it") +
         " reads a column-major A as it is";
}

GemmArgs route_args(const GemmDesc& desc, const GemmRoute& route, const void* a, const void* b,
                    void* c, cudaStream_t stream) {
  const Problem& p = route.problem;
  GemmArgs args;
  args.a = route.transposed ? b : a;
  args.b = route.transposed ? a : b;
  args.c = c;
  args.m = p.m;
  args.n = p.n;
  args.k = p.k;
  args.stream = stream;
  args.workspace = desc.workspace;
  args.workspace_bytes = desc.workspace_bytes;
  args.epilogue = EpilogueArgs{.alpha = desc.alpha,
                               .beta = desc.beta,
                               .bias = desc.bias,
                               .activation = desc.activation};
  args.lda = route.lda;
  args.ldb = route.ldb;
  args.ldc = route.ldc;
  args.batch_count = route.batch_count;
  args.stride_a = route.stride_a;
  args.stride_b = route.stride_b;
  args.stride_c = route.stride_c;
  args.a_col_major = route.a_col_major;
  return args;
}

}  // namespace hgemm::dispatch
