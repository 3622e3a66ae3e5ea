#include "core/error.hpp"

#include <string>


namespace hgemm {
namespace {

std::string compose(const std::string& message, const std::string& expression,
                    const std::string& file, int line) {
  std::string out = message;
  if (!expression.empty() || !file.empty()) {
    out += " [";
    if (!expression.empty()) out += expression;
    if (!file.empty()) out += (expression.empty() ? "" : " at ") + file + ":" + std::to_string(line);
    out += "]";
  }
  return out;
}

}  // namespace

Error::Error(hgemmStatus_t status, std::string message, std::string expression, std::string file,
             int line)
    : std::runtime_error(compose(message, expression, file, line)),
      status_(status),
      message_(std::move(message)),
      expression_(std::move(expression)),
      file_(std::move(file)),
      line_(line) {}

namespace detail {

void throw_cuda(cudaError_t err, const char* expr, const char* file, int line) {
  // A rejected launch configuration is the caller's problem to report distinctly from a fault.
  hgemmStatus_t status = HGEMM_ERROR_CUDA;
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) status = HGEMM_ERROR_NO_DEVICE;
  if (err == cudaErrorInvalidConfiguration || err == cudaErrorLaunchOutOfResources ||
      err == cudaErrorInvalidDeviceFunction || err == cudaErrorNoKernelImageForDevice)
    status = HGEMM_ERROR_LAUNCH_FAILED;
  throw Error(status, std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err), expr,
              file, line);
}

void throw_cu(int result, const char* expr, const char* file, int line) {
  throw Error(HGEMM_ERROR_CUDA, "CUDA driver error " + std::to_string(result), expr, file, line);
}

void throw_status(hgemmStatus_t status, const std::string& message, const char* expr,
                  const char* file, int line) {
  throw Error(status, message, expr, file, line);
}

}  // namespace detail
}  // namespace hgemm
