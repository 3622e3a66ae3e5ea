// cuBLAS status checks for the tools (baselines, the verifier's reference, the bench's
// environment report): the runtime library never calls cuBLAS, so it neither links nor checks it.
#pragma once

#include "core/error.hpp"

namespace hgemm::detail {

[[noreturn]] void throw_cublas(int status, const char* expr, const char* file, int line);

}  // namespace hgemm::detail

#define HGEMM_CUBLAS_CHECK(expr)                                              \
  do {                                                                        \
    int hgemm_st_ = static_cast<int>(expr);                                   \
    if (hgemm_st_ != 0)                                                       \
      ::hgemm::detail::throw_cublas(hgemm_st_, #expr, __FILE__, __LINE__);    \
  } while (0)
