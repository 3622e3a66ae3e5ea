// Host-side error helpers. Every CUDA and driver call in the library goes through one of these
// macros (the tools' cuBLAS calls through baselines/cublas_error.hpp), so a failure becomes an
// hgemm::Error naming the expression and file:line.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "hgemm/hgemm.hpp"

namespace hgemm::detail {

[[noreturn]] void throw_cuda(cudaError_t err, const char* expr, const char* file, int line);
[[noreturn]] void throw_cu(int result, const char* expr, const char* file, int line);
[[noreturn]] void throw_status(hgemmStatus_t status, const std::string& message, const char* expr,
                               const char* file, int line);

}  // namespace hgemm::detail

#define HGEMM_CUDA_CHECK(expr)                                                \
  do {                                                                        \
    cudaError_t hgemm_err_ = (expr);                                          \
    if (hgemm_err_ != cudaSuccess)                                            \
      ::hgemm::detail::throw_cuda(hgemm_err_, #expr, __FILE__, __LINE__);     \
  } while (0)

// Driver API (CUresult), taken as int so this header needs no cuda.h.
#define HGEMM_CU_CHECK(expr)                                                  \
  do {                                                                        \
    int hgemm_res_ = static_cast<int>(expr);                                  \
    if (hgemm_res_ != 0) ::hgemm::detail::throw_cu(hgemm_res_, #expr, __FILE__, __LINE__); \
  } while (0)

// Checks the launch just made (configuration errors surface here, not at the next sync).
#define HGEMM_LAUNCH_CHECK() HGEMM_CUDA_CHECK(cudaGetLastError())

#define HGEMM_THROW(status, message) \
  ::hgemm::detail::throw_status((status), (message), "", __FILE__, __LINE__)

#define HGEMM_REQUIRE(cond, status, message)                                   \
  do {                                                                         \
    if (!(cond)) ::hgemm::detail::throw_status((status), (message), #cond, __FILE__, __LINE__); \
  } while (0)
