// The extension module hgemm._hgemm: the C API, and nothing of PyTorch. Tensors cross as data
// pointers and sizes, the stream as its handle, so one build serves every PyTorch version.
// Calls return the library's status; the Python side raises with hgemmLastErrorMessage(), which
// it reads on the same thread right after the failing call.
#include <dlfcn.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include "hgemm/hgemm.h"

namespace nb = nanobind;

namespace {

int run(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n, int64_t k, int layout,
        int acc, uintptr_t stream) {
  return hgemmRun(reinterpret_cast<const void*>(a), reinterpret_cast<const void*>(b),
                  reinterpret_cast<void*>(c), m, n, k, static_cast<hgemmLayout_t>(layout),
                  static_cast<hgemmAccum_t>(acc), reinterpret_cast<cudaStream_t>(stream));
}

// The general call for the shapes the ops hand over: A [M, K] and C [M, N] row-major, B stored
// row-major as [K, N] (layout nn) or as [N, K] (layout tn: a column-major K x N), all packed.
// hgemmGemm sends exactly these calls to hgemmRun's tuned kernels (its dispatch path). fp16
// keeps going through run(), so its path is unchanged; bf16 has no hgemmRun and comes here.
hgemmGemmDesc_t op_desc(int64_t m, int64_t n, int64_t k, int layout, int dtype, int acc) {
  // Thrown here (ValueError in Python) because the library never sees layout: a status returned
  // without a library call would leave hgemmLastErrorMessage() stale.
  if (layout != HGEMM_LAYOUT_NN && layout != HGEMM_LAYOUT_TN)
    throw std::invalid_argument("layout must be LAYOUT_NN or LAYOUT_TN, got " +
                                std::to_string(layout));
  hgemmGemmDesc_t desc{};
  hgemmGemmDescInit(&desc, m, n, k);
  desc.order_b = layout == HGEMM_LAYOUT_TN ? HGEMM_ORDER_COL : HGEMM_ORDER_ROW;
  desc.dtype = static_cast<hgemmDataType_t>(dtype);
  desc.acc = static_cast<hgemmAccum_t>(acc);
  return desc;
}

int gemm(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n, int64_t k, int layout,
         int dtype, int acc, uintptr_t stream) {
  const hgemmGemmDesc_t desc = op_desc(m, n, k, layout, dtype, acc);
  return hgemmGemm(&desc, reinterpret_cast<const void*>(a), reinterpret_cast<const void*>(b),
                   reinterpret_cast<void*>(c), reinterpret_cast<cudaStream_t>(stream));
}

// What gemm() with the same arguments would run; the pointers matter (alignment, device).
nb::tuple gemm_explain(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n, int64_t k,
                       int layout, int dtype, int acc) {
  const hgemmGemmDesc_t desc = op_desc(m, n, k, layout, dtype, acc);
  hgemmGemmPlan_t plan{};
  const hgemmStatus_t status =
      hgemmGemmExplain(&desc, reinterpret_cast<const void*>(a), reinterpret_cast<const void*>(b),
                       reinterpret_cast<const void*>(c), &plan);
  nb::dict d;
  if (status == HGEMM_SUCCESS) {
    d["path"] = plan.path == HGEMM_PATH_DISPATCH ? "dispatch" : "safety net";
    d["transposed"] = bool(plan.transposed);
    d["kernel"] = std::string(plan.kernel);
    d["source"] = std::string(plan.source);
    d["reason"] = std::string(plan.reason);
  }
  return nb::make_tuple(int(status), d);
}

nb::tuple dispatch_info(int acc) {
  hgemmDispatchInfo_t info{};
  const hgemmStatus_t status = hgemmGetDispatchInfo(static_cast<hgemmAccum_t>(acc), &info);
  nb::dict d;
  if (status == HGEMM_SUCCESS) {
    d["table_path"] = std::string(info.table_path);
    d["tuned_gpu"] = std::string(info.tuned_gpu);
    d["tuned_sm_count"] = info.tuned_sm_count;
    d["entries"] = info.entries;
    d["matches_device"] = bool(info.matches_device);
    d["status"] = std::string(info.status);
    d["user_table_path"] = std::string(info.user_table_path);
    d["user_entries"] = info.user_entries;
    d["user_status"] = std::string(info.user_status);
    d["device_gpu"] = std::string(info.device_gpu);
    d["device_sm_count"] = info.device_sm_count;
  }
  return nb::make_tuple(int(status), d);
}

nb::tuple explain(int64_t m, int64_t n, int64_t k, int layout, int acc) {
  hgemmExplanation_t e{};
  const hgemmStatus_t status = hgemmExplain(m, n, k, static_cast<hgemmLayout_t>(layout),
                                            static_cast<hgemmAccum_t>(acc), &e);
  nb::dict d;
  if (status == HGEMM_SUCCESS) {
    d["config"] = std::string(e.config);
    d["rule"] = std::string(e.rule);
    d["reason"] = std::string(e.reason);
  }
  return nb::make_tuple(int(status), d);
}

// The file libhgemm was loaded from: the hgemm command and the shipped tables sit beside it.
std::string library_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&hgemmRun), &info) && info.dli_fname) return info.dli_fname;
  return {};
}

}  // namespace

NB_MODULE(_hgemm, m) {
  m.def("run", &run, "hgemmRun on raw device pointers; returns the hgemmStatus_t value");
  m.def("gemm", &gemm,
        "hgemmGemm on raw device pointers for the ops' layouts (A, C row-major; B row-major for "
        "layout nn, column-major for tn) in either dtype; returns the hgemmStatus_t value");
  m.def("gemm_explain", &gemm_explain,
        "hgemmGemmExplain for gemm's arguments (less the stream): (status, {path, transposed, "
        "kernel, source, reason})");
  m.def("status_string", [](int status) {
    return std::string(hgemmStatusString(static_cast<hgemmStatus_t>(status)));
  });
  m.def("last_error", [] { return std::string(hgemmLastErrorMessage()); });
  m.def("library_version", &hgemmGetVersion);
  m.attr("HEADER_VERSION") = HGEMM_VERSION;
  m.def("dispatch_info", &dispatch_info);
  m.def("explain", &explain);
  m.def("reload_tables", &hgemmReloadTables);
  m.def("set_user_table", [](const std::string& path) { return int(hgemmSetUserTable(path.c_str())); });
  m.def("library_path", &library_path);
  m.attr("SUCCESS") = int(HGEMM_SUCCESS);
  m.attr("ERROR_NO_DEVICE") = int(HGEMM_ERROR_NO_DEVICE);
  m.attr("LAYOUT_NN") = int(HGEMM_LAYOUT_NN);
  m.attr("LAYOUT_TN") = int(HGEMM_LAYOUT_TN);
  m.attr("ACC_F32") = int(HGEMM_ACC_F32);
  m.attr("ACC_F16") = int(HGEMM_ACC_F16);
  m.attr("DTYPE_F16") = int(HGEMM_DTYPE_F16);
  m.attr("DTYPE_BF16") = int(HGEMM_DTYPE_BF16);
}
