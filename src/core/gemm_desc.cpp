// GemmDesc's checks that need neither a device nor a kernel: what hgemmGemm refuses before it
// looks at the GPU, so the CPU tests can reach every refusal.
#include <climits>
#include <cstdint>
#include <optional>
#include <string>

#include "hgemm/hgemm.hpp"

namespace hgemm {
namespace {

// Every byte count stays below this (hgemm.h's documented limit), so sums of a few of them and
// pointer arithmetic never overflow.
constexpr int64_t kMaxSpanBytes = int64_t(1) << 62;

std::string str(int64_t v) { return std::to_string(v); }

// One matrix of the call: its shape and storage as the descriptor gives them.
struct Operand {
  const char* name;     // "A", "B", "C"
  const char* ld_name;  // "lda", ...
  int64_t rows, cols;
  Order order;
  int64_t ld;  // as given, 0 for packed
  int64_t stride;

  // The contiguous extent: the shortest legal leading dimension.
  int64_t row_length() const { return order == Order::kRow ? cols : rows; }
  int64_t lines() const { return order == Order::kRow ? rows : cols; }
  int64_t ld_or_packed() const { return ld == 0 ? row_length() : ld; }
};

Operand operand_a(const GemmDesc& d) {
  return {"A", "lda", d.m, d.k, d.order_a, d.lda, d.stride_a};
}
Operand operand_b(const GemmDesc& d) {
  return {"B", "ldb", d.k, d.n, d.order_b, d.ldb, d.stride_b};
}
Operand operand_c(const GemmDesc& d) {
  return {"C", "ldc", d.m, d.n, d.order_c, d.ldc, d.stride_c};
}

std::optional<int64_t> checked_mul(int64_t x, int64_t y) {
  int64_t r = 0;
  if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
  return r;
}
std::optional<int64_t> checked_add(int64_t x, int64_t y) {
  int64_t r = 0;
  if (__builtin_add_overflow(x, y, &r)) return std::nullopt;
  return r;
}

// Elements from the first to the last element of one matrix.
std::optional<int64_t> matrix_span(const Operand& o) {
  auto last_line = checked_mul(o.lines() - 1, o.ld_or_packed());
  return last_line ? checked_add(*last_line, o.row_length()) : std::nullopt;
}

// Elements from the first element of the first batch to the last element of the last one.
std::optional<int64_t> total_span(const Operand& o, int64_t batch_count) {
  auto one = matrix_span(o);
  if (!one || batch_count == 1) return one;
  auto batches = checked_mul(batch_count - 1, o.stride);
  return batches ? checked_add(*batches, *one) : std::nullopt;
}

// Bytes [begin, end) a matrix's elements lie within over all batches; validate() has bounded it.
struct ByteRange {
  uintptr_t begin, end;
  bool overlaps(const ByteRange& o) const { return begin < o.end && o.begin < end; }
};
ByteRange range_of(const void* p, int64_t elements) {
  const auto begin = reinterpret_cast<uintptr_t>(p);
  return {begin, begin + uintptr_t(elements) * 2};
}

// Whether batches of C can share an element. Two layouts are proven apart: each batch beyond
// the previous one's last element, or the batches side by side within each line (heads written
// into [rows, heads * N]). Anything else is refused, also the rare layouts that interleave
// without sharing.
bool batches_apart(const Operand& c, int64_t batch_count) {
  if (batch_count == 1) return true;
  const int64_t span = *matrix_span(c);
  if (c.stride >= span) return true;
  const int64_t line = c.row_length();
  if (c.stride < line) return false;
  auto last_start = checked_mul(batch_count - 1, c.stride);
  auto last_end = last_start ? checked_add(*last_start, line) : std::nullopt;
  return c.lines() == 1 || (last_end && *last_end <= c.ld_or_packed());
}

bool valid(Order o) { return o == Order::kRow || o == Order::kCol; }
bool valid(DType d) { return d == DType::kF16 || d == DType::kBF16; }
bool valid(Activation a) {
  return a == Activation::kNone || a == Activation::kRelu || a == Activation::kGelu ||
         a == Activation::kGeluTanh;
}

}  // namespace

std::string_view to_string(Order order) {
  switch (order) {
    case Order::kRow: return "row";
    case Order::kCol: return "col";
  }
  return "?";
}

std::string_view to_string(Activation activation) {
  switch (activation) {
    case Activation::kNone: return "none";
    case Activation::kRelu: return "relu";
    case Activation::kGelu: return "gelu";
    case Activation::kGeluTanh: return "gelu_tanh";
  }
  return "?";
}

int64_t GemmDesc::lda_or_packed() const { return operand_a(*this).ld_or_packed(); }
int64_t GemmDesc::ldb_or_packed() const { return operand_b(*this).ld_or_packed(); }
int64_t GemmDesc::ldc_or_packed() const { return operand_c(*this).ld_or_packed(); }

std::string GemmDesc::name() const {
  auto letter = [](Order o) { return o == Order::kRow ? "r" : "c"; };
  std::string out = str(m) + "x" + str(n) + "x" + str(k) + "_" + letter(order_a) +
                    letter(order_b) + letter(order_c) + "_" + std::string(to_string(dtype)) +
                    "_" + std::string(to_string(accum));
  // Appended piece by piece: GCC 12 misreads "literal" + std::string temporaries (-Wrestrict).
  auto add = [&](std::string_view tag, const std::string& value) {
    out += tag;
    out += value;
  };
  if (lda || ldb || ldc)
    add("_ld", str(lda_or_packed()) + "," + str(ldb_or_packed()) + "," + str(ldc_or_packed()));
  if (batch_count != 1) add("_b", str(batch_count));
  if (alpha != 1.0f) add("_alpha", std::to_string(alpha));
  if (beta != 0.0f) add("_beta", std::to_string(beta));
  if (bias) out += "_bias";
  if (activation != Activation::kNone) add("_", std::string(to_string(activation)));
  return out;
}

Status GemmDesc::validate() const {
  for (auto [o, what] : {std::pair{order_a, "order_a"}, std::pair{order_b, "order_b"},
                         std::pair{order_c, "order_c"}})
    if (!valid(o))
      return Status::failure(HGEMM_ERROR_INVALID_ENUM,
                             std::string("unknown ") + what + " value " + str(int(o)));
  if (!valid(dtype))
    return Status::failure(HGEMM_ERROR_INVALID_ENUM, "unknown dtype value " + str(int(dtype)));
  if (accum != Accum::kF32 && accum != Accum::kF16)
    return Status::failure(HGEMM_ERROR_INVALID_ENUM,
                           "unknown accumulation value " + str(int(accum)));
  if (!valid(activation))
    return Status::failure(HGEMM_ERROR_INVALID_ENUM,
                           "unknown activation value " + str(int(activation)));
  if (m <= 0 || n <= 0 || k <= 0)
    return Status::failure(HGEMM_ERROR_INVALID_SIZE, "M, N and K must be positive, got M=" +
                                                         str(m) + " N=" + str(n) + " K=" + str(k));
  // Kernels index rows and columns of one matrix with 32-bit grid and tile coordinates.
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    return Status::failure(HGEMM_ERROR_SIZE_OVERFLOW, "a dimension exceeds 2^31-1: M=" + str(m) +
                                                          " N=" + str(n) + " K=" + str(k));
  if (dtype == DType::kBF16 && accum == Accum::kF16)
    return Status::failure(HGEMM_ERROR_DTYPE_ACCUM,
                           "bf16 accumulates in fp32 only; fp16 accumulation was asked for");
  const Operand operands[] = {operand_a(*this), operand_b(*this), operand_c(*this)};
  for (const Operand& o : operands) {
    if (o.ld < 0)
      return Status::failure(HGEMM_ERROR_INVALID_LEADING_DIM,
                             std::string(o.ld_name) + " = " + str(o.ld) + " is negative");
    if (o.ld != 0 && o.ld < o.row_length())
      return Status::failure(
          HGEMM_ERROR_INVALID_LEADING_DIM,
          std::string(o.ld_name) + " = " + str(o.ld) + " is shorter than the " +
              str(o.row_length()) + " elements of a " + std::string(to_string(o.order)) +
              (o.order == Order::kRow ? " of " : "umn of ") + o.name + " (" + str(o.rows) +
              " x " + str(o.cols) + ", " + std::string(to_string(o.order)) + "-major)");
  }
  if (batch_count <= 0 || batch_count > INT_MAX)
    return Status::failure(HGEMM_ERROR_INVALID_BATCH_COUNT,
                           "batch_count = " + str(batch_count) + " is not in [1, 2^31-1]");
  for (const Operand& o : operands)
    if (o.stride < 0)
      return Status::failure(HGEMM_ERROR_INVALID_STRIDE,
                             std::string("stride_") + char(o.name[0] - 'A' + 'a') + " = " +
                                 str(o.stride) + " is negative");
  for (const Operand& o : operands) {
    auto span = total_span(o, batch_count);
    auto bytes = span ? checked_mul(*span, 2) : std::nullopt;
    if (!bytes || *bytes >= kMaxSpanBytes)
      return Status::failure(HGEMM_ERROR_SIZE_OVERFLOW,
                             std::string(o.name) + " spans 2^62 bytes or more over its " +
                                 str(batch_count) + " batch(es): " + name());
  }
  if (!batches_apart(operands[2], batch_count))
    return Status::failure(
        HGEMM_ERROR_BATCH_OVERLAP,
        "batches of C overlap: stride_c = " + str(stride_c) + " with ldc = " +
            str(ldc_or_packed()) + " and one C spanning " + str(*matrix_span(operands[2])) +
            " elements (" + str(batch_count) +
            " batches need stride_c >= that span, or side by side within each line: stride_c >= " +
            str(operands[2].row_length()) + " and (batch_count - 1) * stride_c + " +
            str(operands[2].row_length()) + " <= ldc)");
  return Status::success();
}

Status GemmDesc::validate_pointers(const void* a, const void* b, const void* c) const {
  // The spans below are only defined for a valid descriptor.
  if (Status s = validate(); !s.ok()) return s;
  if (!a || !b || !c)
    return Status::failure(HGEMM_ERROR_NULL_POINTER,
                           std::string("null pointer:") + (a ? "" : " A") + (b ? "" : " B") +
                               (c ? "" : " C"));
  const std::string type(to_string(dtype));
  for (auto [p, what] : {std::pair{a, "A"}, std::pair{b, "B"}, std::pair{c, "C"}})
    if (reinterpret_cast<uintptr_t>(p) & 1)
      return Status::failure(HGEMM_ERROR_INVALID_POINTER, std::string(what) +
                                                              " is not 2-byte aligned, so it "
                                                              "cannot hold " + type + " data");
  const ByteRange ra = range_of(a, *total_span(operand_a(*this), batch_count));
  const ByteRange rb = range_of(b, *total_span(operand_b(*this), batch_count));
  const ByteRange rc = range_of(c, *total_span(operand_c(*this), batch_count));
  // C is written while A and B are read, and with beta != 0 also read: any shared byte makes
  // the result depend on the order the kernel happens to run in.
  const std::string reads_c =
      beta != 0.0f ? " (with beta != 0 C is also an input, read while it is written)" : "";
  if (rc.overlaps(ra)) return Status::failure(HGEMM_ERROR_ALIASING, "C overlaps A" + reads_c);
  if (rc.overlaps(rb)) return Status::failure(HGEMM_ERROR_ALIASING, "C overlaps B" + reads_c);
  std::optional<ByteRange> rbias;
  if (bias) {
    if (reinterpret_cast<uintptr_t>(bias) & 1)
      return Status::failure(HGEMM_ERROR_INVALID_BIAS,
                             "bias is not 2-byte aligned, so it cannot hold " + type + " data");
    rbias = range_of(bias, n);
    if (rbias->overlaps(rc))
      return Status::failure(HGEMM_ERROR_INVALID_BIAS,
                             "bias overlaps C, which is written while bias is read");
  }
  if (!workspace && workspace_bytes != 0)
    return Status::failure(HGEMM_ERROR_NULL_POINTER,
                           "workspace is NULL but workspace_size is " +
                               std::to_string(workspace_bytes));
  if (workspace) {
    if (reinterpret_cast<uintptr_t>(workspace) & 15)
      return Status::failure(HGEMM_ERROR_INVALID_POINTER, "workspace is not 16-byte aligned");
    const auto begin = reinterpret_cast<uintptr_t>(workspace);
    const ByteRange rw{begin, begin + workspace_bytes};
    for (auto [r, what] : {std::pair{ra, "A"}, std::pair{rb, "B"}, std::pair{rc, "C"}})
      if (rw.overlaps(r))
        return Status::failure(HGEMM_ERROR_ALIASING, std::string("workspace overlaps ") + what);
    if (rbias && rw.overlaps(*rbias))
      return Status::failure(HGEMM_ERROR_ALIASING, "workspace overlaps bias");
  }
  return Status::success();
}

}  // namespace hgemm
