// The public entry points. Both APIs share one validation path (prepare()), so the C API's status
// codes and the C++ API's exceptions always agree on what is wrong.
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include <cuda_runtime_api.h>

#include "core/device.hpp"
#include "core/error.hpp"
#include "hgemm/hgemm.h"
#include "hgemm/hgemm.hpp"
#include "launch/sm90_jit.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/locate.hpp"
#include "registry/registry.hpp"

namespace hgemm {
namespace {

thread_local std::string g_last_error;

bool ranges_overlap(const void* a, int64_t a_bytes, const void* b, int64_t b_bytes) {
  auto a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
  return a0 < b0 + uint64_t(b_bytes) && b0 < a0 + uint64_t(a_bytes);
}

Status check_pointer(const void* p, const char* what, const DeviceInfo& device) {
  cudaPointerAttributes attr{};
  if (cudaError_t e = cudaPointerGetAttributes(&attr, p); e != cudaSuccess) {
    cudaGetLastError();
    return Status::failure(HGEMM_ERROR_INVALID_POINTER,
                           std::string(what) + " is not a CUDA pointer: " + cudaGetErrorString(e));
  }
  if (attr.type == cudaMemoryTypeUnregistered)
    return Status::failure(HGEMM_ERROR_INVALID_POINTER,
                           std::string(what) + " points to host memory the device cannot access");
  if (attr.type == cudaMemoryTypeDevice && attr.device != device.ordinal)
    return Status::failure(HGEMM_ERROR_INVALID_POINTER,
                           std::string(what) + " lives on device " + std::to_string(attr.device) +
                               " but the current device is " + std::to_string(device.ordinal));
  return Status::success();
}

// Everything that can be checked before a kernel is chosen. On success fills `device`.
Status prepare(const Problem& problem, const void* a, const void* b, const void* c,
               const DeviceInfo** device) {
  if (Status s = problem.validate(); !s.ok()) return s;
  if (!a || !b || !c)
    return Status::failure(HGEMM_ERROR_NULL_POINTER,
                           std::string("null pointer:") + (a ? "" : " A") + (b ? "" : " B") +
                               (c ? "" : " C"));
  for (auto [p, what] : {std::pair{a, "A"}, std::pair{b, "B"}, std::pair{c, "C"}})
    if (reinterpret_cast<uintptr_t>(p) & 1)
      return Status::failure(HGEMM_ERROR_INVALID_POINTER,
                             std::string(what) + " is not 2-byte aligned, so it cannot hold fp16 data");
  const int64_t a_bytes = problem.m * problem.k * 2;
  const int64_t b_bytes = problem.k * problem.n * 2;
  const int64_t c_bytes = problem.m * problem.n * 2;
  if (ranges_overlap(c, c_bytes, a, a_bytes))
    return Status::failure(HGEMM_ERROR_ALIASING, "C overlaps A");
  if (ranges_overlap(c, c_bytes, b, b_bytes))
    return Status::failure(HGEMM_ERROR_ALIASING, "C overlaps B");
  if (Status s = query_current_device(device); !s.ok()) return s;
  // The sm90 launcher encodes tensor maps through the driver API, which needs the device's
  // context current on this thread. A fresh thread whose first CUDA call is ours has none until a
  // runtime call binds it, so bind it once per thread and device.
  thread_local int bound_device = -1;
  if (bound_device != (*device)->ordinal) {
    if (cudaError_t e = cudaSetDevice((*device)->ordinal); e != cudaSuccess) {
      cudaGetLastError();
      return Status::failure(HGEMM_ERROR_CUDA,
                             std::string("cannot make the device current: ") + cudaGetErrorString(e));
    }
    bound_device = (*device)->ordinal;
  }
  if ((*device)->cc() < 80)
    return Status::failure(HGEMM_ERROR_ARCH_UNSUPPORTED,
                           "compute capability " + std::to_string((*device)->cc_major) + "." +
                               std::to_string((*device)->cc_minor) + " of " + (*device)->name +
                               " is below the required 8.0");
  for (auto [p, what] : {std::pair{a, "A"}, std::pair{b, "B"}, std::pair{c, "C"}})
    if (Status s = check_pointer(p, what, **device); !s.ok()) return s;
  return Status::success();
}

[[noreturn]] void raise(const Status& s) { throw Error(s.code, s.message); }

// The body of a C entry point, with every exception turned into a status and its message kept
// for hgemmLastErrorMessage(): nothing thrown crosses into C.
template <class Body>
hgemmStatus_t c_entry(Body&& body) noexcept {
  try {
    return body();
  } catch (const Error& e) {
    g_last_error = e.what();
    return e.status();
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return HGEMM_ERROR_INTERNAL;
  } catch (...) {
    g_last_error = "unknown exception";
    return HGEMM_ERROR_INTERNAL;
  }
}

// Enum values are checked before the cast: a C caller can pass any integer.
bool known_layout(hgemmLayout_t layout) {
  if (int(layout) == HGEMM_LAYOUT_NN || int(layout) == HGEMM_LAYOUT_TN) return true;
  g_last_error = "unknown layout value " + std::to_string(int(layout));
  return false;
}

bool known_accum(hgemmAccum_t acc) {
  if (int(acc) == HGEMM_ACC_F32 || int(acc) == HGEMM_ACC_F16) return true;
  g_last_error = "unknown accumulation value " + std::to_string(int(acc));
  return false;
}

}  // namespace

void run(const Problem& problem, const void* a, const void* b, void* c, cudaStream_t stream) {
  const DeviceInfo* device = nullptr;
  if (Status s = prepare(problem, a, b, c, &device); !s.ok()) raise(s);
  GemmArgs args{a, b, c, problem.m, problem.n, problem.k, stream};
  const dispatch::Decision& decision = dispatch::select(problem, args, *device);
  decision.instance->launch(decision.config, args);
}

void run(const Problem& problem, const KernelConfig& config, const void* a, const void* b, void* c,
         cudaStream_t stream) {
  const DeviceInfo* device = nullptr;
  if (Status s = prepare(problem, a, b, c, &device); !s.ok()) raise(s);
  const KernelInstance* inst = registry::find(config);
  if (!inst) {
    std::string why = config.name() + " is not in this build's catalog";
    if (config.family == Family::kSm90Ws && jit::enabled()) {
      std::string jit_why;
      jit::instance(config, &jit_why);  // the remembered failure, no second compilation
      why += "; the JIT could not provide it: " + jit_why;
    } else if (config.family == Family::kSm90Ws) {
      why += " (HGEMM_JIT=1 compiles missing sm90 configs at run time)";
    }
    throw Error(HGEMM_ERROR_NOT_SUPPORTED, why);
  }
  GemmArgs args{a, b, c, problem.m, problem.n, problem.k, stream};
  if (Status s = registry::can_implement(problem, config, args, *device); !s.ok()) raise(s);
  inst->launch(config, args);
}

KernelConfig select_config(const Problem& problem, const void* a, const void* b, const void* c) {
  const DeviceInfo* device = nullptr;
  if (Status s = prepare(problem, a, b, c, &device); !s.ok()) raise(s);
  GemmArgs args{a, b, const_cast<void*>(c), problem.m, problem.n, problem.k, nullptr};
  return dispatch::select(problem, args, *device).config;
}

void reload_tables() { dispatch::reload_tables(); }

Explanation explain(const Problem& problem) {
  if (Status s = problem.validate(); !s.ok()) raise(s);
  const DeviceInfo* device = nullptr;
  if (Status s = query_current_device(&device); !s.ok()) raise(s);
  // Stand-ins as aligned as cudaMalloc's: dispatch looks only at the pointers' alignment.
  const GemmArgs args{reinterpret_cast<const void*>(uintptr_t(0x10000)),
                      reinterpret_cast<const void*>(uintptr_t(0x20000)),
                      reinterpret_cast<void*>(uintptr_t(0x30000)),
                      problem.m, problem.n, problem.k, nullptr};
  const dispatch::Decision d =
      dispatch::decide(problem, args, *device, dispatch::tables_for(*device, problem.accum));
  return {d.config, std::string(dispatch::to_string(d.source)), d.reason};
}

void set_user_table(const std::string& path) {
  dispatch::set_user_table_override(path);
  dispatch::reload_tables();
}

std::vector<KernelConfig> catalog() {
  std::vector<KernelConfig> out;
  for (const auto& inst : registry::instances()) out.push_back(inst.config);
  return out;
}

Status can_implement(const Problem& problem, const KernelConfig& config, const void* a,
                     const void* b, const void* c) {
  const DeviceInfo* device = nullptr;
  if (Status s = prepare(problem, a, b, c, &device); !s.ok()) return s;
  GemmArgs args{a, b, const_cast<void*>(c), problem.m, problem.n, problem.k, nullptr};
  return registry::can_implement(problem, config, args, *device);
}

}  // namespace hgemm

extern "C" {

hgemmStatus_t hgemmRun(const void* A, const void* B, void* C, int64_t M, int64_t N, int64_t K,
                       hgemmLayout_t layout, hgemmAccum_t acc, cudaStream_t stream) {
  using namespace hgemm;
  return c_entry([&] {
    if (!known_layout(layout) || !known_accum(acc)) return HGEMM_ERROR_INVALID_ENUM;
    Problem problem{M, N, K, static_cast<Layout>(layout), static_cast<Accum>(acc)};
    run(problem, A, B, C, stream);
    return HGEMM_SUCCESS;
  });
}

const char* hgemmStatusString(hgemmStatus_t status) {
  switch (status) {
    case HGEMM_SUCCESS: return "HGEMM_SUCCESS";
    case HGEMM_ERROR_NULL_POINTER: return "HGEMM_ERROR_NULL_POINTER: A, B or C is NULL";
    case HGEMM_ERROR_INVALID_SIZE: return "HGEMM_ERROR_INVALID_SIZE: M, N and K must be positive";
    case HGEMM_ERROR_SIZE_OVERFLOW: return "HGEMM_ERROR_SIZE_OVERFLOW: matrix size overflows";
    case HGEMM_ERROR_ALIASING: return "HGEMM_ERROR_ALIASING: C overlaps A or B";
    case HGEMM_ERROR_INVALID_ENUM: return "HGEMM_ERROR_INVALID_ENUM: unknown layout or accumulation";
    case HGEMM_ERROR_NO_DEVICE: return "HGEMM_ERROR_NO_DEVICE: no CUDA device is visible";
    case HGEMM_ERROR_ARCH_UNSUPPORTED: return "HGEMM_ERROR_ARCH_UNSUPPORTED: compute capability below 8.0";
    case HGEMM_ERROR_NOT_SUPPORTED: return "HGEMM_ERROR_NOT_SUPPORTED: the kernel cannot run this problem";
    case HGEMM_ERROR_INVALID_POINTER: return "HGEMM_ERROR_INVALID_POINTER: not device-accessible memory";
    case HGEMM_ERROR_CUDA: return "HGEMM_ERROR_CUDA: a CUDA call failed";
    case HGEMM_ERROR_LAUNCH_FAILED: return "HGEMM_ERROR_LAUNCH_FAILED: the kernel launch was rejected";
    case HGEMM_ERROR_INTERNAL: return "HGEMM_ERROR_INTERNAL: internal error";
  }
  return "HGEMM_ERROR_UNKNOWN_STATUS: not a hgemmStatus_t value";
}

const char* hgemmLastErrorMessage(void) { return hgemm::g_last_error.c_str(); }

int hgemmGetVersion(void) { return HGEMM_VERSION; }

hgemmStatus_t hgemmGetDispatchInfo(hgemmAccum_t acc, hgemmDispatchInfo_t* info) {
  using namespace hgemm;
  return c_entry([&] {
    if (!info) {
      g_last_error = "info is NULL";
      return HGEMM_ERROR_NULL_POINTER;
    }
    if (!known_accum(acc)) return HGEMM_ERROR_INVALID_ENUM;
    const DeviceInfo* device = nullptr;
    if (Status s = query_current_device(&device); !s.ok()) {
      g_last_error = s.message;
      return s.code;
    }
    *info = dispatch::describe(*device, static_cast<Accum>(acc));
    return HGEMM_SUCCESS;
  });
}

hgemmStatus_t hgemmExplain(int64_t M, int64_t N, int64_t K, hgemmLayout_t layout, hgemmAccum_t acc,
                           hgemmExplanation_t* out) {
  using namespace hgemm;
  return c_entry([&] {
    if (!out) {
      g_last_error = "out is NULL";
      return HGEMM_ERROR_NULL_POINTER;
    }
    if (!known_layout(layout) || !known_accum(acc)) return HGEMM_ERROR_INVALID_ENUM;
    const Explanation e =
        explain(Problem{M, N, K, static_cast<Layout>(layout), static_cast<Accum>(acc)});
    *out = hgemmExplanation_t{};
    std::snprintf(out->config, sizeof out->config, "%s", e.config.name().c_str());
    std::snprintf(out->rule, sizeof out->rule, "%s", e.rule.c_str());
    std::snprintf(out->reason, sizeof out->reason, "%s", e.reason.c_str());
    return HGEMM_SUCCESS;
  });
}

void hgemmReloadTables(void) { hgemm::reload_tables(); }

hgemmStatus_t hgemmSetUserTable(const char* path) {
  return hgemm::c_entry([&] {
    hgemm::set_user_table(path ? path : "");
    return HGEMM_SUCCESS;
  });
}

}  // extern "C"
