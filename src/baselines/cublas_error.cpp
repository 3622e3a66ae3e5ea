#include "baselines/cublas_error.hpp"

#include <string>

#include <cublas_api.h>

namespace hgemm::detail {

void throw_cublas(int status, const char* expr, const char* file, int line) {
  throw Error(HGEMM_ERROR_CUDA,
              std::string("cuBLAS: ") + cublasGetStatusString(static_cast<cublasStatus_t>(status)),
              expr, file, line);
}

}  // namespace hgemm::detail
