#include <climits>
#include <string>

#include "hgemm/hgemm.hpp"

namespace hgemm {

std::string_view to_string(Layout layout) {
  switch (layout) {
    case Layout::kNN: return "nn";
    case Layout::kTN: return "tn";
  }
  return "?";
}

std::string_view to_string(Accum accum) {
  switch (accum) {
    case Accum::kF32: return "f32";
    case Accum::kF16: return "f16";
  }
  return "?";
}

std::string_view to_string(DType dtype) {
  switch (dtype) {
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
  }
  return "?";
}

std::optional<Layout> parse_layout(std::string_view text) {
  if (text == "nn") return Layout::kNN;
  if (text == "tn") return Layout::kTN;
  return std::nullopt;
}

std::optional<Accum> parse_accum(std::string_view text) {
  if (text == "f32") return Accum::kF32;
  if (text == "f16") return Accum::kF16;
  return std::nullopt;
}

std::optional<DType> parse_dtype(std::string_view text) {
  if (text == "f16") return DType::kF16;
  if (text == "bf16") return DType::kBF16;
  return std::nullopt;
}

std::string Problem::name() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + "_" +
         std::string(to_string(layout)) + "_" + std::string(to_string(accum)) +
         (dtype == DType::kBF16 ? "_bf16" : "");
}

Status Problem::validate() const {
  if (layout != Layout::kNN && layout != Layout::kTN)
    return Status::failure(HGEMM_ERROR_INVALID_ENUM,
                           "unknown layout value " + std::to_string(int(layout)));
  if (accum != Accum::kF32 && accum != Accum::kF16)
    return Status::failure(HGEMM_ERROR_INVALID_ENUM,
                           "unknown accumulation value " + std::to_string(int(accum)));
  if (dtype != DType::kF16 && dtype != DType::kBF16)
    return Status::failure(HGEMM_ERROR_INVALID_ENUM,
                           "unknown element type value " + std::to_string(int(dtype)));
  if (dtype == DType::kBF16 && accum != Accum::kF32)
    return Status::failure(HGEMM_ERROR_DTYPE_ACCUM,
                           "bf16 accumulates in fp32 only; fp16 accumulation was asked for");
  if (m <= 0 || n <= 0 || k <= 0)
    return Status::failure(HGEMM_ERROR_INVALID_SIZE,
                           "M, N and K must be positive, got M=" + std::to_string(m) +
                               " N=" + std::to_string(n) + " K=" + std::to_string(k));
  // Kernels index rows and columns with 32-bit grid coordinates and TMA takes 32-bit extents.
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    return Status::failure(HGEMM_ERROR_SIZE_OVERFLOW, "a dimension exceeds 2^31-1: " + name());
  const std::pair<int64_t, int64_t> products[] = {{m, k}, {k, n}, {m, n}};
  for (auto [x, y] : products) {
    int64_t elements = 0;
    int64_t bytes = 0;
    if (__builtin_mul_overflow(x, y, &elements) || __builtin_mul_overflow(elements, int64_t(2), &bytes))
      return Status::failure(HGEMM_ERROR_SIZE_OVERFLOW,
                             "matrix size overflows 64-bit byte counts: " + name());
  }
  return Status::success();
}

}  // namespace hgemm
