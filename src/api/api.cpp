// The public entry points. Both APIs share one validation path (prepare()), so the C API's status
// codes and the C++ API's exceptions always agree on what is wrong.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_runtime_api.h>

#include "core/device.hpp"
#include "core/error.hpp"
#include "hgemm/hgemm.h"
#include "hgemm/hgemm.hpp"
#include "launch/sm90_jit.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/locate.hpp"
#include "dispatch/gemm_route.hpp"
#include "dispatch/padded_c.hpp"
#include "launch/launch.hpp"
#include "launch/sm80_general.hpp"
#include "launch/workspace.hpp"
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

// The current device, bound to this thread and of a supported architecture.
Status current_device_checked(const DeviceInfo** device) {
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
  if (Status s = current_device_checked(device); !s.ok()) return s;
  for (auto [p, what] : {std::pair{a, "A"}, std::pair{b, "B"}, std::pair{c, "C"}})
    if (Status s = check_pointer(p, what, **device); !s.ok()) return s;
  return Status::success();
}

// hgemmGemm's checks, in the order the statuses are documented: the descriptor, the pointers,
// the workspace's size for the route, then the device. On success fills `route` and `device`.
Status prepare_gemm(const GemmDesc& desc, const void* a, const void* b, const void* c,
                    dispatch::GemmRoute* route, const DeviceInfo** device) {
  if (Status s = desc.validate_pointers(a, b, c); !s.ok()) return s;
  *route = dispatch::route(desc);
  if (desc.workspace) {
    const size_t needed = dispatch::workspace_bytes(*route);
    if (desc.workspace_bytes < needed)
      return Status::failure(HGEMM_ERROR_WORKSPACE_TOO_SMALL,
                             "workspace_size " + std::to_string(desc.workspace_bytes) +
                                 " is below the " + std::to_string(needed) + " bytes " +
                                 desc.name() + " may use");
  }
  if (Status s = current_device_checked(device); !s.ok()) return s;
  for (auto [p, what] : {std::pair{a, "A"}, std::pair{b, "B"}, std::pair{c, "C"}})
    if (Status s = check_pointer(p, what, **device); !s.ok()) return s;
  if (desc.bias)
    if (Status s = check_pointer(desc.bias, "bias", **device); !s.ok())
      return Status::failure(HGEMM_ERROR_INVALID_BIAS, s.message);
  if (desc.workspace)
    if (Status s = check_pointer(desc.workspace, "workspace", **device); !s.ok()) return s;
  return Status::success();
}

// Where the planners below put the library's scratch (a copy of A or of C) before it exists: a
// 256-byte aligned stand-in, as aligned as the pool's buffers and a workspace (all dispatch looks
// at), never dereferenced.
void* scratch_stand_in() { return reinterpret_cast<void*>(uintptr_t(1) << 16); }

// The call with its column-major A replaced by `copy`, that A in rows (GemmRoute::a_rows_first):
// a row-major call from here on, whose split-K partial sums follow the copy in a caller's
// workspace (workspace_bytes counted both).
GemmArgs with_a_in_rows(GemmArgs args, void* copy, size_t copy_bytes) {
  args.a = copy;
  args.lda = a_rows_ld(args.k);
  args.a_col_major = false;
  if (args.workspace) {
    args.workspace = static_cast<char*>(args.workspace) + copy_bytes;
    args.workspace_bytes -= copy_bytes;
  }
  return args;
}

// Rows [m0, m0 + rows) of a call whose column-major A is copied into rows in blocks
// (GemmRoute::a_rows_block): those columns of the stored K x M A and those rows of C, a call of
// its own. The route gave every leading dimension explicitly, so none changes with M.
GemmArgs rows_block(GemmArgs args, int64_t m0, int64_t rows) {
  args.a = static_cast<const uint16_t*>(args.a) + m0;
  args.c = static_cast<uint16_t*>(args.c) + m0 * args.ldc;
  args.m = rows;
  return args;
}

// What dispatch runs for a call through rows: the call's column-major A copied block by block
// into `copy` (GemmRoute::a_rows_block rows at a time), each block then a row-major call. Both
// block sizes (the last may be shorter) are decided before anything runs; empty where nothing
// compiled runs one of them (why in *why_not, if given).
struct RowsBlock {
  GemmArgs as_given;  // the block with its column-major A, for the copy
  GemmArgs run;       // the row-major call on the copy
  const dispatch::Decision* decision;
};
std::vector<RowsBlock> plan_rows_blocks(const dispatch::GemmRoute& route, const GemmArgs& call,
                                        void* copy, const DeviceInfo& device,
                                        std::string* why_not) {
  const int64_t block = route.a_rows_block;
  const size_t copy_bytes = a_rows_bytes(block, call.k);
  std::vector<RowsBlock> plan;
  for (int64_t m0 = 0; m0 < call.m; m0 += block) {
    const GemmArgs given = rows_block(call, m0, std::min(block, call.m - m0));
    const GemmArgs run = with_a_in_rows(given, copy, copy_bytes);
    Problem problem = route.problem;
    problem.m = run.m;
    const dispatch::Decision* decision = dispatch::try_select(problem, run, device, why_not);
    if (!decision) return {};
    plan.push_back({given, run, decision});
  }
  return plan;
}

// A decode kernel, and a swap-AB tile's flavour for it, read a column-major A as it is: where the
// row-major call on the copy would run one, it runs on the call's own A instead, and nothing is
// copied; the copy and its kernel boundary cost 1.6-2 us at 16 x 4096, about 12% of a call of
// 2-256 tokens (dispatch::column_major_a_as_stored). nullopt where it would not.
std::optional<dispatch::Decision> column_major_a_as_stored(const dispatch::GemmRoute& route,
                                                           const GemmArgs& call,
                                                           const DeviceInfo& device) {
  if (!dispatch::may_read_a_as_stored(route)) return std::nullopt;
  const std::vector<RowsBlock> plan =
      plan_rows_blocks(route, call, scratch_stand_in(), device, nullptr);
  if (plan.size() != 1) return std::nullopt;
  return dispatch::column_major_a_as_stored(route, *plan.front().decision, call, device, [&] {
    return dispatch::try_select(route.problem, call, device, nullptr);
  });
}

// A call through a padded C (dispatch::padded_c): each block's GEMM into the copy, and the rows
// it then copies into C, all decided before anything runs; empty where nothing compiled runs a
// block (on an sm_80 device, say), and the call takes dispatch's own decision. The blocks write
// scratch_stand_in() until run_padded_c points them at the copy it takes from the pool.
struct PaddedBlock {
  GemmArgs run;
  int64_t m0 = 0;
  const dispatch::Decision* decision = nullptr;
};
std::vector<PaddedBlock> plan_padded_c(const Problem& problem, const GemmArgs& call,
                                       dispatch::PaddedC pad, const DeviceInfo& device) {
  void* stand_in = scratch_stand_in();
  std::vector<PaddedBlock> plan;
  for (int64_t m0 = 0; m0 < call.m; m0 += pad.block_rows) {
    const int64_t rows = std::min(pad.block_rows, call.m - m0);
    const GemmArgs run = dispatch::padded_c_block(call, stand_in, m0, rows);
    const dispatch::Decision* decision =
        dispatch::try_select(dispatch::padded_c_problem(problem, rows), run, device, nullptr);
    if (!decision) return {};
    plan.push_back({run, m0, decision});
  }
  return plan;
}

// Runs `call` through a padded C where dispatch::padded_c says so and the pool has the room;
// false where the call runs as it is.
bool run_padded_c(const Problem& problem, const GemmArgs& call, const DeviceInfo& device) {
  const dispatch::PaddedC pad = dispatch::padded_c(problem, call);
  if (!pad) return false;
  std::vector<PaddedBlock> plan = plan_padded_c(problem, call, pad, device);
  if (plan.empty()) return false;
  void* copy = acquire_workspace(padded_c_bytes(pad.block_rows, problem.n), call.stream);
  if (!copy) return false;
  struct Release {
    void* copy;
    cudaStream_t stream;
    ~Release() { release_workspace(copy, stream); }
  } release{copy, call.stream};
  // Blocks share the copy: stream order, and each GEMM's griddepcontrol wait under programmatic
  // launch, keep a block's GEMM from writing it until the previous block's rows are out.
  for (PaddedBlock& block : plan) {
    block.run.c = copy;
    block.decision->instance->launch(block.decision->config, block.run);
    launch_compact_c_rows(copy, static_cast<uint16_t*>(call.c) + block.m0 * call.row_stride_c(),
                          call.row_stride_c(), block.run.m, call.n, call.stream,
                          programmatic_launch(device));
  }
  return true;
}

// What dispatch runs for `call` and why, with a padded C's blocks said first (explain's words).
std::optional<dispatch::Decision> padded_c_decision(const Problem& problem, const GemmArgs& call,
                                                    const DeviceInfo& device) {
  const dispatch::PaddedC pad = dispatch::padded_c(problem, call);
  if (!pad) return std::nullopt;
  const std::vector<PaddedBlock> plan = plan_padded_c(problem, call, pad, device);
  if (plan.empty()) return std::nullopt;
  dispatch::Decision d = *plan.front().decision;
  d.reason = dispatch::padded_c_reason(problem, pad) + "; " + d.reason;
  return d;
}

[[noreturn]] void raise(const Status& s) { throw Error(s.code, s.message); }

// hgemmRun's call as a descriptor: packed, row-major A and C; B row-major (K x N) in NN, its
// transpose's rows (N x K) in TN.
GemmDesc plain_desc(const Problem& problem) {
  GemmDesc d;
  d.m = problem.m;
  d.n = problem.n;
  d.k = problem.k;
  d.order_b = problem.layout == Layout::kNN ? Order::kRow : Order::kCol;
  d.dtype = problem.dtype;
  d.accum = problem.accum;
  return d;
}

}  // namespace

void run(const Problem& problem, const void* a, const void* b, void* c, cudaStream_t stream) {
  const DeviceInfo* device = nullptr;
  if (Status s = prepare(problem, a, b, c, &device); !s.ok()) raise(s);
  GemmArgs args{a, b, c, problem.m, problem.n, problem.k, stream};
  if (run_padded_c(problem, args, *device)) return;
  // The sm80 catalog runs any packed fp16 call; a bf16 call no compiled kernel runs (NN, or a
  // ragged N or K) takes the safety net, as hgemmGemm's would.
  const dispatch::Decision* decision = dispatch::try_select(problem, args, *device, nullptr);
  if (!decision) {
    launch_general(plain_desc(problem), a, b, c, *device, stream);
    return;
  }
  decision->instance->launch(decision->config, args);
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

void gemm(const GemmDesc& desc, const void* a, const void* b, void* c, cudaStream_t stream) {
  dispatch::GemmRoute route;
  const DeviceInfo* device = nullptr;
  if (Status s = prepare_gemm(desc, a, b, c, &route, &device); !s.ok()) raise(s);
  if (!route.dispatch) {
    launch_general(desc, a, b, c, *device, stream);
    return;
  }
  const GemmArgs args = dispatch::route_args(desc, route, a, b, c, stream);
  if (!route.a_rows_first && run_padded_c(route.problem, args, *device)) return;
  if (const std::optional<dispatch::Decision> reader =
          column_major_a_as_stored(route, args, *device)) {
    reader->instance->launch(reader->config, args);
    return;
  }
  if (route.a_rows_first) {
    OperandCopyScratch rows(a_rows_bytes(route.a_rows_block, args.k), args.workspace, stream,
                            "a column-major A's copy in rows");
    const std::vector<RowsBlock> plan = plan_rows_blocks(route, args, rows.get(), *device, nullptr);
    if (plan.empty()) {
      launch_general(desc, a, b, c, *device, stream);
      return;
    }
    // Blocks share the copy's room: each copy waits for the call before it (stream order, and
    // the copy kernel's griddepcontrol wait under programmatic launch) before writing it.
    for (const RowsBlock& block : plan) {
      launch_a_to_rows(block.as_given, rows.get(), programmatic_launch(*device));
      block.decision->instance->launch(block.decision->config, block.run);
    }
    return;
  }
  // Nothing compiled may run a call that the route sends to dispatch (a bf16, strided or epilogue
  // call that TMA cannot read: the sm80 catalog, which runs any packed plain fp16 call, takes
  // none of them); the safety net runs it.
  const dispatch::Decision* decision = dispatch::try_select(route.problem, args, *device, nullptr);
  if (!decision) {
    launch_general(desc, a, b, c, *device, stream);
    return;
  }
  decision->instance->launch(decision->config, args);
}

GemmPlan explain(const GemmDesc& desc, const void* a, const void* b, const void* c) {
  dispatch::GemmRoute route;
  const DeviceInfo* device = nullptr;
  if (Status s = prepare_gemm(desc, a, b, c, &route, &device); !s.ok()) raise(s);
  if (!route.dispatch)
    return GemmPlan{HGEMM_PATH_SAFETY_NET, false, general_kernel_name(desc),
                    std::string(dispatch::to_string(dispatch::Source::kSafetyNet)), route.reason};
  const GemmArgs args = dispatch::route_args(desc, route, a, b, const_cast<void*>(c), nullptr);
  std::string why_not;
  const dispatch::Decision* decision = nullptr;
  std::string a_note;  // what reading a column-major A adds: no copy, or the copy's blocks
  const std::optional<dispatch::Decision> reader = column_major_a_as_stored(route, args, *device);
  if (reader) {
    decision = &*reader;
    a_note = "; " + dispatch::a_as_stored_note(*reader);
  } else if (route.a_rows_first) {
    // The copy's place: the caller's workspace, or a pool buffer.
    void* copy = desc.workspace ? desc.workspace : scratch_stand_in();
    const std::vector<RowsBlock> plan = plan_rows_blocks(route, args, copy, *device, &why_not);
    if (!plan.empty()) {
      decision = plan.front().decision;
      if (plan.size() > 1)
        a_note = "; " + std::to_string(plan.size()) + " blocks, the last of " +
                 std::to_string(plan.back().run.m) + " rows by " +
                 plan.back().decision->config.name();
    }
  } else if (const std::optional<dispatch::Decision> padded =
                 padded_c_decision(route.problem, args, *device)) {
    return GemmPlan{HGEMM_PATH_DISPATCH, route.transposed, padded->config.name(),
                    std::string(dispatch::to_string(padded->source)),
                    route.reason + "; " + padded->reason};
  } else {
    decision = dispatch::try_select(route.problem, args, *device, &why_not);
  }
  if (!decision)
    return GemmPlan{HGEMM_PATH_SAFETY_NET, false, general_kernel_name(desc),
                    std::string(dispatch::to_string(dispatch::Source::kSafetyNet)),
                    route.reason + "; no compiled kernel runs it: " + why_not};
  return GemmPlan{HGEMM_PATH_DISPATCH, route.transposed, decision->config.name(),
                  std::string(dispatch::to_string(decision->source)),
                  route.reason + "; " + decision->reason + a_note};
}

size_t workspace_size(const GemmDesc& desc) {
  if (Status s = desc.validate(); !s.ok()) raise(s);
  return dispatch::workspace_bytes(dispatch::route(desc));
}

KernelConfig select_config(const Problem& problem, const void* a, const void* b, const void* c) {
  const DeviceInfo* device = nullptr;
  if (Status s = prepare(problem, a, b, c, &device); !s.ok()) raise(s);
  GemmArgs args{a, b, const_cast<void*>(c), problem.m, problem.n, problem.k, nullptr};
  if (const std::optional<dispatch::Decision> padded = padded_c_decision(problem, args, *device))
    return padded->config;
  return dispatch::select(problem, args, *device).config;
}

void reload_tables() { dispatch::reload_tables(); }

Explanation explain(const Problem& problem) {
  if (Status s = problem.validate(); !s.ok()) raise(s);
  const DeviceInfo* device = nullptr;
  if (Status s = query_current_device(&device); !s.ok()) raise(s);
  const GemmArgs args = stand_in_args(problem);
  if (const std::optional<dispatch::Decision> padded = padded_c_decision(problem, args, *device))
    return {padded->config, std::string(dispatch::to_string(padded->source)), padded->reason};
  dispatch::Decision d;
  try {
    d = dispatch::decide(problem, args, *device, dispatch::tables_for(*device, problem.accum));
  } catch (const Error& e) {
    if (e.status() != HGEMM_ERROR_NOT_SUPPORTED) throw;
    return {KernelConfig{}, std::string(dispatch::to_string(dispatch::Source::kSafetyNet)),
            e.message() + "; run() takes the safety net, " +
                general_kernel_name(plain_desc(problem))};
  }
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

namespace hgemm {
namespace {

hgemmStatus_t fail(const Status& s) {
  g_last_error = s.message;
  return s.code;
}

// Runs a C entry point's body (which returns its status) with exceptions mapped to the status and
// message the C API reports: nothing escapes into C.
template <class Body>
hgemmStatus_t c_call(Body&& body) noexcept {
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

// The descriptor's layout is append-only: a caller's struct_size says which fields its header
// had, and this library's own size is the first version's, so smaller is refused. A size past
// any real descriptor is an uninitialized struct, not a newer header.
constexpr size_t kMaxDescBytes = 4096;

Status check_desc_size(size_t struct_size) {
  if (struct_size < sizeof(hgemmGemmDesc_t) || struct_size > kMaxDescBytes)
    return Status::failure(HGEMM_ERROR_INVALID_DESCRIPTOR,
                           "struct_size " + std::to_string(struct_size) +
                               " is not the size of an hgemmGemmDesc_t (this library's is " +
                               std::to_string(sizeof(hgemmGemmDesc_t)) +
                               "); initialize the descriptor with hgemmGemmDescInit");
  return Status::success();
}

// Enum values are checked before the cast: a C caller can pass any integer. Every C enum runs
// from 0 to `last`.
Status check_enum(int value, int last, const char* what) {
  if (value < 0 || value > last)
    return Status::failure(HGEMM_ERROR_INVALID_ENUM,
                           std::string("unknown ") + what + " value " + std::to_string(value));
  return Status::success();
}

Status check_layout_accum(hgemmLayout_t layout, hgemmAccum_t acc) {
  if (Status s = check_enum(int(layout), HGEMM_LAYOUT_TN, "layout"); !s.ok()) return s;
  return check_enum(int(acc), HGEMM_ACC_F16, "accumulation");
}

// The C descriptor as a GemmDesc. Enum values are checked before the casts: a C caller can pass
// any integer.
Status from_c(const hgemmGemmDesc_t* in, GemmDesc* out) {
  if (!in) return Status::failure(HGEMM_ERROR_NULL_POINTER, "desc is NULL");
  if (Status s = check_desc_size(in->struct_size); !s.ok()) return s;
  const auto* bytes = reinterpret_cast<const unsigned char*>(in);
  for (size_t i = sizeof(hgemmGemmDesc_t); i < in->struct_size; ++i)
    if (bytes[i] != 0)
      return Status::failure(HGEMM_ERROR_INVALID_DESCRIPTOR,
                             "the descriptor sets a field at byte " + std::to_string(i) +
                                 ", past the " + std::to_string(sizeof(hgemmGemmDesc_t)) +
                                 " bytes this library (" + std::to_string(HGEMM_VERSION) +
                                 ") knows");
  for (auto [value, last, what] :
       {std::tuple{int(in->order_a), int(HGEMM_ORDER_COL), "order_a"},
        std::tuple{int(in->order_b), int(HGEMM_ORDER_COL), "order_b"},
        std::tuple{int(in->order_c), int(HGEMM_ORDER_COL), "order_c"},
        std::tuple{int(in->dtype), int(HGEMM_DTYPE_BF16), "dtype"},
        std::tuple{int(in->acc), int(HGEMM_ACC_F16), "accumulation"},
        std::tuple{int(in->activation), int(HGEMM_ACTIVATION_GELU_TANH), "activation"}})
    if (Status s = check_enum(value, last, what); !s.ok()) return s;
  GemmDesc& d = *out;
  d.m = in->m;
  d.n = in->n;
  d.k = in->k;
  d.order_a = static_cast<Order>(in->order_a);
  d.order_b = static_cast<Order>(in->order_b);
  d.order_c = static_cast<Order>(in->order_c);
  d.lda = in->lda;
  d.ldb = in->ldb;
  d.ldc = in->ldc;
  d.dtype = static_cast<DType>(in->dtype);
  d.accum = static_cast<Accum>(in->acc);
  d.alpha = in->alpha;
  d.beta = in->beta;
  d.batch_count = in->batch_count;
  d.stride_a = in->stride_a;
  d.stride_b = in->stride_b;
  d.stride_c = in->stride_c;
  d.bias = in->bias;
  d.activation = static_cast<Activation>(in->activation);
  d.workspace = in->workspace;
  d.workspace_bytes = in->workspace_size;
  return Status::success();
}

void copy_string(char* out, size_t size, const std::string& s) {
  std::snprintf(out, size, "%s", s.c_str());
}

}  // namespace
}  // namespace hgemm

extern "C" {

hgemmStatus_t hgemmRun(const void* A, const void* B, void* C, int64_t M, int64_t N, int64_t K,
                       hgemmLayout_t layout, hgemmAccum_t acc, cudaStream_t stream) {
  using namespace hgemm;
  return c_call([&] {
    if (Status s = check_layout_accum(layout, acc); !s.ok()) return fail(s);
    Problem problem{M, N, K, static_cast<Layout>(layout), static_cast<Accum>(acc)};
    run(problem, A, B, C, stream);
    return HGEMM_SUCCESS;
  });
}

hgemmStatus_t hgemmGemmDescInitSized(hgemmGemmDesc_t* desc, size_t struct_size, int64_t M,
                                     int64_t N, int64_t K) {
  using namespace hgemm;
  return c_call([&] {
    if (!desc) return fail(Status::failure(HGEMM_ERROR_NULL_POINTER, "desc is NULL"));
    if (Status s = check_desc_size(struct_size); !s.ok()) return fail(s);
    // Fields past this library's struct (a newer header's) default to zero bytes.
    std::memset(static_cast<void*>(desc), 0, struct_size);
    hgemmGemmDesc_t d;
    std::memset(static_cast<void*>(&d), 0, sizeof d);
    d.struct_size = struct_size;
    d.m = M;
    d.n = N;
    d.k = K;
    d.batch_count = 1;
    d.alpha = 1.0f;
    d.beta = 0.0f;
    d.order_a = d.order_b = d.order_c = HGEMM_ORDER_ROW;
    d.dtype = HGEMM_DTYPE_F16;
    d.acc = HGEMM_ACC_F32;
    d.activation = HGEMM_ACTIVATION_NONE;
    std::memcpy(static_cast<void*>(desc), &d, sizeof d);
    return HGEMM_SUCCESS;
  });
}

hgemmStatus_t hgemmGemm(const hgemmGemmDesc_t* desc, const void* A, const void* B, void* C,
                        cudaStream_t stream) {
  using namespace hgemm;
  return c_call([&] {
    GemmDesc d;
    if (Status s = from_c(desc, &d); !s.ok()) return fail(s);
    gemm(d, A, B, C, stream);
    return HGEMM_SUCCESS;
  });
}

hgemmStatus_t hgemmGemmWorkspaceSize(const hgemmGemmDesc_t* desc, size_t* bytes) {
  using namespace hgemm;
  return c_call([&] {
    if (!bytes) return fail(Status::failure(HGEMM_ERROR_NULL_POINTER, "bytes is NULL"));
    GemmDesc d;
    if (Status s = from_c(desc, &d); !s.ok()) return fail(s);
    *bytes = workspace_size(d);
    return HGEMM_SUCCESS;
  });
}

hgemmStatus_t hgemmGemmExplain(const hgemmGemmDesc_t* desc, const void* A, const void* B,
                               const void* C, hgemmGemmPlan_t* plan) {
  using namespace hgemm;
  return c_call([&] {
    if (!plan) return fail(Status::failure(HGEMM_ERROR_NULL_POINTER, "plan is NULL"));
    GemmDesc d;
    if (Status s = from_c(desc, &d); !s.ok()) return fail(s);
    const GemmPlan p = explain(d, A, B, C);
    *plan = hgemmGemmPlan_t{};
    plan->path = p.path;
    plan->transposed = p.transposed ? 1 : 0;
    copy_string(plan->kernel, sizeof plan->kernel, p.kernel);
    copy_string(plan->source, sizeof plan->source, p.source);
    copy_string(plan->reason, sizeof plan->reason, p.reason);
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
    case HGEMM_ERROR_INVALID_LEADING_DIM:
      return "HGEMM_ERROR_INVALID_LEADING_DIM: a leading dimension is shorter than its row";
    case HGEMM_ERROR_INVALID_BATCH_COUNT:
      return "HGEMM_ERROR_INVALID_BATCH_COUNT: batch_count must be in [1, 2^31-1]";
    case HGEMM_ERROR_INVALID_STRIDE: return "HGEMM_ERROR_INVALID_STRIDE: a batch stride is negative";
    case HGEMM_ERROR_BATCH_OVERLAP: return "HGEMM_ERROR_BATCH_OVERLAP: batches of C overlap";
    case HGEMM_ERROR_DTYPE_ACCUM:
      return "HGEMM_ERROR_DTYPE_ACCUM: bf16 accumulates in fp32 only";
    case HGEMM_ERROR_INVALID_BIAS:
      return "HGEMM_ERROR_INVALID_BIAS: bias is misaligned, overlaps C or is not device memory";
    case HGEMM_ERROR_WORKSPACE_TOO_SMALL:
      return "HGEMM_ERROR_WORKSPACE_TOO_SMALL: workspace_size is below hgemmGemmWorkspaceSize()";
    case HGEMM_ERROR_INVALID_DESCRIPTOR:
      return "HGEMM_ERROR_INVALID_DESCRIPTOR: struct_size is not one this library reads";
  }
  return "HGEMM_ERROR_UNKNOWN_STATUS: not a hgemmStatus_t value";
}

const char* hgemmLastErrorMessage(void) { return hgemm::g_last_error.c_str(); }

int hgemmGetVersion(void) { return HGEMM_VERSION; }

hgemmStatus_t hgemmGetDispatchInfo(hgemmAccum_t acc, hgemmDispatchInfo_t* info) {
  using namespace hgemm;
  return c_call([&] {
    if (!info) return fail(Status::failure(HGEMM_ERROR_NULL_POINTER, "info is NULL"));
    if (Status s = check_enum(int(acc), HGEMM_ACC_F16, "accumulation"); !s.ok()) return fail(s);
    const DeviceInfo* device = nullptr;
    if (Status s = query_current_device(&device); !s.ok()) return fail(s);
    *info = dispatch::describe(*device, static_cast<Accum>(acc));
    return HGEMM_SUCCESS;
  });
}

hgemmStatus_t hgemmExplain(int64_t M, int64_t N, int64_t K, hgemmLayout_t layout, hgemmAccum_t acc,
                           hgemmExplanation_t* out) {
  using namespace hgemm;
  return c_call([&] {
    if (!out) return fail(Status::failure(HGEMM_ERROR_NULL_POINTER, "out is NULL"));
    if (Status s = check_layout_accum(layout, acc); !s.ok()) return fail(s);
    const Explanation e =
        explain(Problem{M, N, K, static_cast<Layout>(layout), static_cast<Accum>(acc)});
    *out = hgemmExplanation_t{};
    copy_string(out->config, sizeof out->config, e.config.name());
    copy_string(out->rule, sizeof out->rule, e.rule);
    copy_string(out->reason, sizeof out->reason, e.reason);
    return HGEMM_SUCCESS;
  });
}

void hgemmReloadTables(void) { hgemm::reload_tables(); }

hgemmStatus_t hgemmSetUserTable(const char* path) {
  return hgemm::c_call([&] {
    hgemm::set_user_table(path ? path : "");
    return HGEMM_SUCCESS;
  });
}

}  // extern "C"
