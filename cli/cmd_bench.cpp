// hgemm bench: times hgemm against the cuBLAS / cuBLASLt baselines over a shape suite in the
// offline, graph, latency and server modes, one CSV row per shape x impl x layout x mode.
// Every (impl, shape, layout, acc) passes the verifier before it is timed; a failure is recorded
// in its rows and not timed. With --epilogue every implementation computes C = act(A*B + bias):
// hgemm through its general call, cuBLASLt through its epilogue attributes, and hgemm-unfused as
// the plain GEMM followed by a separate bias/activation kernel. With --batch B every shape is B
// packed products per call: hgemm and cuBLASLt each run one strided batched call, hgemm-loop one
// plain hgemm call per batch (what batching must beat). Schema and methodology:
// docs/benchmarking.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>
#include <unistd.h>

#include "args.hpp"
#include "baselines/baselines.hpp"
#include "bench/ceilings.hpp"
#include "bench/epilogue.hpp"
#include "bench/environment.hpp"
#include "bench/results_csv.hpp"
#include "bench/timing.hpp"
#include "commands.hpp"
#include "core/device.hpp"
#include "core/env.hpp"
#include "core/error.hpp"
#include "core/suite.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/launch.hpp"
#include "progress.hpp"
#include "verify/device_buffer.hpp"
#include "verify/verifier.hpp"

namespace hgemm::cli {
namespace {

constexpr const char* kHelp =
    R"(usage: hgemm bench (--suite S | --shape MxNxK[,...]) --out FILE [options]

  --suite S          named suite (grid, smoke, edge: bench/suites/S.txt) or a file of
                     "M N K" lines
  --shape LIST       explicit shapes instead of a suite, e.g. 4096x4096x4096,128x16384x1024
  --out FILE         results CSV (overwritten unless --resume)
  --impl LIST        hgemm,hgemm-nopdl,cublas,cublaslt-heuristic,cublaslt-autotune,cublaslt-best
                     (default all = these six); config:NAME times one explicit kernel config
                     (only on its layout and acc; its dtype must be --dtype). hgemm launches
                     with programmatic dependent launch on sm_90 (HGEMM_PDL=0 turns it off),
                     hgemm-nopdl without it; cuBLASLt's API offers no such launch.
                     cublaslt-best, the faster of cuBLASLt's autotuned and heuristic picks
                     chosen in graph mode on rotated buffers, is the reference of the report.
                     With --epilogue: hgemm-unfused and hgemm-plain too, and all = hgemm,
                     hgemm-nopdl, hgemm-unfused, hgemm-plain and the three cublaslt (cublas and
                     config:NAME have no epilogue and are refused). hgemm-plain is the same
                     call without bias or activation, verified as the plain product and timed
                     interleaved with the fused one: what the epilogue costs, in one run. With --batch B > 1: hgemm-loop too, and all =
                     hgemm, hgemm-nopdl, hgemm-loop and the three cublaslt (config:NAME is
                     refused; cublas runs cublasGemmStridedBatchedEx when named).
                     hgemm-acol (never in all): hgemm::gemm with A column-major (K x M, the
                     NT and TT products) and a workspace of hgemmGemmWorkspaceSize bytes
                     allocated once (as cuBLASLt's is), timed on the same buffers as A;
                     verified on a transposed copy of the verifier's A, the same kernel on its
                     own pointers.
                     Plain fp16/bf16 products only (no --epilogue, no --batch)
  --batch B          1 (default) or more: every shape MxNxK is B packed products back to back
                     (strides M*K, K*N, M*N elements), one call. hgemm runs one hgemm::gemm with
                     batch_count B (hgemm-nopdl the same without PDL), hgemm-loop B hgemm::run
                     calls (one per batch, the thing batching must beat), cublaslt-* one
                     strided batched cublasLtMatmul (BATCH_COUNT and STRIDED_BATCH_OFFSET on A,
                     B and C). Combines with --dtype and --epilogue (one bias for every batch).
                     Buffer sets rotate on the batched bytes; tflops counts all B products; the
                     file gets a batch column after acc (dtype and epilogue)
  --epilogue E       none (default), bias, bias_relu, bias_gelu, relu or gelu: every impl
                     computes C = act(A*B + bias), the bias N random values, one per column of
                     C. gelu is GELU's tanh approximation, 0.5x(1 + tanh(sqrt(2/pi)(x +
                     0.044715x^3))), the one cuBLASLt's GELU epilogues compute (hgemm's
                     Activation::kGeluTanh, not its erf GELU). hgemm runs hgemm::gemm with the
                     bias and activation; cublaslt-* set CUBLASLT_MATMUL_DESC_EPILOGUE and
                     _BIAS_POINTER; hgemm-unfused runs the plain hgemm call, then a separate
                     elementwise bias/activation kernel over C. The file gets an epilogue
                     column after acc (and dtype)
  --modes LIST       offline,graph,latency,server (default all four)
  --layout LIST      nn,tn (default both)
  --acc LIST         f32,f16 (default both; f32 with --dtype bf16, which has no f16)
  --dtype T          f16 or bf16, the element type of A, B and C (default f16); a bf16 file
                     has a dtype column after acc
  --resume           keep FILE's rows, skip every shape x impl x layout x mode already in it, and
                     append the rest (rows are flushed after each shape)
  --loop-ms X        target GPU time of one timed loop, offline and graph (default 1.5)
  --loops N          timed loops per offline/graph measurement, median taken (default 5, >= 5)
  --latency-calls N  calls per latency measurement (default 20)
  --server-calls N   calls per server measurement (default 10; each waits 1/QPS s on average)
  --qps X            server mode's mean call rate (default 100)
  --seed S           seed of the server gaps and the verifier (default 24301)
  --time-limit S     stop after the shape in progress once S seconds have passed; exit code 3
                     means "incomplete, rerun with --resume" (default 0: no limit)

exit codes: 0 done and every row passed, 1 some row failed verification or a launch,
            2 bad arguments, 3 stopped by --time-limit before the suite was complete
)";

constexpr int kExitIncomplete = 3;

const char* const kStandardImpls[] = {"hgemm",           "hgemm-nopdl",
                                      "cublas",          "cublaslt-heuristic",
                                      "cublaslt-autotune", "cublaslt-best"};
// With an epilogue cublas has none, and the unfused path is what fusing it is measured against.
// hgemm-plain, the call without its epilogue timed beside it, is what the epilogue's cost is
// measured against: across two runs the card's clock states differ by more than that cost.
const char* const kEpilogueImpls[] = {"hgemm",         "hgemm-nopdl",       "hgemm-unfused",
                                      "hgemm-plain",   "cublaslt-heuristic", "cublaslt-autotune",
                                      "cublaslt-best"};
// With batches the question is one batched call against one call per batch and against cuBLASLt's
// strided batch (with or without an epilogue).
const char* const kBatchedImpls[] = {"hgemm",         "hgemm-nopdl",       "hgemm-loop",
                                     "cublaslt-heuristic", "cublaslt-autotune", "cublaslt-best"};

struct ImplSpec {
  std::string name;                          // the CSV's impl column
  std::optional<baselines::Kind> baseline;   // a library baseline
  std::optional<KernelConfig> config;        // config:NAME; neither: hgemm dispatch
  bool pdl = true;                           // hgemm: programmatic dependent launch allowed
  bool unfused = false;  // hgemm-unfused: the plain call, then bench::apply_bias_activation
  bool loop = false;     // hgemm-loop: one plain call per batch
  bool a_col = false;    // hgemm-acol: the general call with A column-major
  bool plain = false;    // hgemm-plain: the call without its bias and activation
};

struct Settings {
  std::vector<Shape> shapes;
  std::string suite_label;
  std::vector<ImplSpec> impls;
  std::vector<bench::Mode> modes;
  std::vector<Layout> layouts;
  std::vector<Accum> accums;
  DType dtype = DType::kF16;
  bench::EpilogueOp epilogue = bench::EpilogueOp::kNone;
  int64_t batch = 1;  // products per call (packed strided batches when > 1)
  std::string out;
  bool resume = false;
  bench::TimingOptions timing;
  uint64_t seed = 24301;
  double time_limit_s = 0;
};

std::vector<ImplSpec> parse_impls(const std::vector<std::string>& items, DType dtype,
                                  bench::EpilogueOp epilogue, int64_t batch) {
  const bool with_epilogue = epilogue != bench::EpilogueOp::kNone;
  const bool batched = batch > 1;
  const std::string epilogue_option = "--epilogue " + std::string(bench::to_string(epilogue));
  std::vector<ImplSpec> out;
  std::set<std::string> seen;
  auto add = [&](ImplSpec spec) {
    if (seen.insert(spec.name).second) out.push_back(std::move(spec));
  };
  auto add_named = [&](const std::string& name) {
    add({.name = name,
         .baseline = baselines::parse_kind(name),
         .pdl = name != "hgemm-nopdl",
         .unfused = name == "hgemm-unfused",
         .loop = name == "hgemm-loop",
         .plain = name == "hgemm-plain"});
  };
  for (const std::string& item : items) {
    if (item == "all") {
      if (batched)
        for (const char* name : kBatchedImpls) add_named(name);
      else if (with_epilogue)
        for (const char* name : kEpilogueImpls) add_named(name);
      else
        for (const char* name : kStandardImpls) add_named(name);
    } else if (item == "hgemm" || item == "hgemm-nopdl") {
      add_named(item);
    } else if (item == "hgemm-unfused") {
      if (!with_epilogue)
        throw ArgError("hgemm-unfused is the plain GEMM followed by a separate bias/activation "
                       "kernel: it needs --epilogue (bias, bias_relu, bias_gelu, relu or gelu)");
      add_named(item);
    } else if (item == "hgemm-plain") {
      if (!with_epilogue)
        throw ArgError("hgemm-plain is the call without its bias and activation, timed beside "
                       "the fused one: it needs --epilogue (bias, bias_relu, bias_gelu, relu or "
                       "gelu)");
      add_named(item);
    } else if (item == "hgemm-acol") {
      if (with_epilogue || batched)
        throw ArgError("hgemm-acol times the plain product with A column-major; it takes no "
                       "--epilogue or --batch");
      add({.name = item, .a_col = true});
    } else if (item == "hgemm-loop") {
      if (!batched)
        throw ArgError("hgemm-loop is one hgemm call per batch, what a batched call must beat: it "
                       "needs --batch B with B > 1");
      add_named(item);
    } else if (auto kind = baselines::parse_kind(item)) {
      if (*kind == baselines::Kind::kCublas && with_epilogue)
        throw ArgError("cublas (cublasGemmEx) has no epilogue, so it cannot run " +
                       epilogue_option +
                       ": time cublaslt-heuristic, cublaslt-autotune or cublaslt-best");
      add_named(item);
    } else if (item.rfind("config:", 0) == 0) {
      if (with_epilogue)
        throw ArgError(item + " runs one kernel through hgemm::run, which has no epilogue, so it "
                              "cannot run " + epilogue_option + ": time hgemm");
      if (batched)
        throw ArgError(item + " runs one kernel through hgemm::run, which takes no batches, so it "
                              "cannot run --batch " + std::to_string(batch) +
                       ": time hgemm (one batched call) or hgemm-loop (one call per batch)");
      auto cfg = KernelConfig::parse(item.substr(7));
      if (!cfg) throw ArgError("'" + item.substr(7) + "' is not a kernel config name");
      // A layout or accumulation the run leaves out only skips the config; a dtype other than
      // the run's would leave it without a single row.
      if (cfg->dtype != dtype)
        throw ArgError("config " + cfg->name() + " has " + std::string(to_string(cfg->dtype)) +
                       " elements but the run is --dtype " + std::string(to_string(dtype)));
      add({.name = item, .config = cfg});
    } else if (item == "torch") {
      throw ArgError("torch rows come from python -m hgemm.bench, not from hgemm bench");
    } else {
      throw ArgError("unknown implementation '" + item +
                     "' (hgemm, hgemm-nopdl, hgemm-unfused, hgemm-plain, hgemm-loop, hgemm-acol, "
                     "cublas, cublaslt-heuristic, cublaslt-autotune, cublaslt-best, all, "
                     "config:NAME)");
    }
  }
  return out;
}

// Every argument check happens here, before any device call.
Settings parse_settings(const Args& raw, bool* help) {
  ParsedArgs args(raw,
                  {"suite", "shape", "out", "impl", "modes", "layout", "acc", "dtype", "epilogue",
                   "batch", "loop-ms", "loops", "latency-calls", "server-calls", "qps", "seed",
                   "time-limit"},
                  {"resume", "help"});
  Settings s;
  *help = args.flag("help");
  if (*help) return s;
  if (!args.positional().empty())
    throw ArgError("unexpected argument '" + args.positional().front() + "'");
  const auto suite = args.get("suite");
  const auto shape = args.get("shape");
  if (!suite && !shape) throw ArgError("--suite or --shape is required");
  if (suite && shape) throw ArgError("--suite and --shape are exclusive");
  if (!args.get("out")) throw ArgError("--out is required");
  s.out = *args.get("out");
  require_writable(s.out, "--out");
  s.resume = args.flag("resume");
  s.dtype = dtype_option(args);
  s.accums = accum_option(args, s.dtype);
  s.epilogue = epilogue_option(args);
  s.batch = batch_option(args);
  s.impls = parse_impls(args.list_or("impl", "all"), s.dtype, s.epilogue, s.batch);
  std::set<bench::Mode> seen_modes;
  for (const auto& m : args.list_or("modes", "offline,graph,latency,server")) {
    auto mode = bench::parse_mode(m);
    if (!mode) throw ArgError("unknown mode '" + m + "' (offline, graph, latency, server)");
    if (seen_modes.insert(*mode).second) s.modes.push_back(*mode);
  }
  for (const auto& l : args.list_or("layout", "nn,tn")) {
    auto layout = parse_layout(l);
    if (!layout) throw ArgError("unknown layout '" + l + "' (nn or tn)");
    if (std::find(s.layouts.begin(), s.layouts.end(), *layout) == s.layouts.end())
      s.layouts.push_back(*layout);
  }
  s.timing.loop_ms = args.double_or("loop-ms", 1.5);
  if (!(s.timing.loop_ms > 0 && s.timing.loop_ms <= 1000))
    throw ArgError("--loop-ms must be in (0, 1000]");
  const long long loops = args.int_or("loops", 5);
  if (loops < 5 || loops > 1000) throw ArgError("--loops must be 5..1000");
  s.timing.loops = int(loops);
  const long long latency_calls = args.int_or("latency-calls", 20);
  if (latency_calls < 1 || latency_calls > 100000)
    throw ArgError("--latency-calls must be 1..100000");
  s.timing.latency_calls = int(latency_calls);
  const long long server_calls = args.int_or("server-calls", 10);
  if (server_calls < 1 || server_calls > 100000) throw ArgError("--server-calls must be 1..100000");
  s.timing.server_calls = int(server_calls);
  s.timing.server_qps = args.double_or("qps", 100);
  if (!(s.timing.server_qps > 0 && s.timing.server_qps <= 1e6))
    throw ArgError("--qps must be in (0, 1e6]");
  s.seed = uint64_t(args.int_or("seed", 24301));
  s.timing.seed = s.seed;
  s.time_limit_s = args.double_or("time-limit", 0);
  if (!(s.time_limit_s >= 0)) throw ArgError("--time-limit must be >= 0");
  if (suite) {
    try {
      s.shapes = load_suite(*suite);
    } catch (const Error& e) {
      throw ArgError(e.message());
    }
    s.suite_label = *suite;
  } else {
    s.shapes = parse_shapes(*shape);
    s.suite_label = *shape;
  }
  for (const Shape& sh : s.shapes) {
    Problem p{sh.m, sh.n, sh.k, Layout::kNN, Accum::kF32, s.dtype};
    if (Status st = p.validate(); !st.ok()) throw ArgError(st.message);
    // The general call's own size checks (spans of all batches), before any device work.
    if (s.batch > 1)
      if (Status st = bench::general_call(p, {}, verify::Batch::packed(p, s.batch)).validate();
          !st.ok())
        throw ArgError("--batch " + std::to_string(s.batch) + " of " + p.name() + ": " +
                       st.message);
  }
  return s;
}

// A resumable file must end with a complete row: a run killed mid-write leaves a partial line,
// which is cut off here (rows are only ever appended whole, a shape at a time).
void drop_partial_last_line(const std::string& path) {
  namespace fs = std::filesystem;
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.empty() || text.back() == '\n') return;
  const size_t keep = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  std::fprintf(stderr, "hgemm bench: %s ends with a partial line; dropping it\n", path.c_str());
  fs::resize_file(path, keep);
}

std::string join_args(const Args& raw) {
  std::string out = "hgemm bench";
  for (const auto& a : raw) out += " " + a;
  return out;
}

std::string disposition_string(verify::Disposition d) {
  switch (d) {
    case verify::Disposition::kPassed: return std::string(bench::kPassed);
    case verify::Disposition::kIncorrect: return std::string(bench::kIncorrect);
    case verify::Disposition::kLaunchFailed: return std::string(bench::kLaunchFailed);
  }
  return std::string(bench::kLaunchFailed);
}

bool is_failure(const std::string& disposition) {
  return disposition == bench::kIncorrect || disposition == bench::kLaunchFailed;
}

// After a failed call the context may be unusable (an illegal address is sticky). Continuing
// would record every later row as failed, so such an error ends the run instead.
void require_healthy_device() {
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    HGEMM_THROW(HGEMM_ERROR_CUDA,
                std::string("the CUDA context is unusable after a failure (") +
                    cudaGetErrorName(err) +
                    "); rows up to the previous shape are saved: rerun with --resume");
  cudaGetLastError();
}

void report_failure(const Problem& p, bench::EpilogueOp epilogue, int64_t batch,
                    const std::string& impl, const std::string& stage,
                    const std::string& disposition, const std::string& detail) {
  std::string epilogue_option =
      epilogue == bench::EpilogueOp::kNone
          ? ""
          : " --epilogue " + std::string(bench::to_string(epilogue));
  if (batch > 1) epilogue_option += " --batch " + std::to_string(batch);
  std::printf("FAIL %s %s %s: %s: %s\n  reproduce: hgemm bench --shape %lldx%lldx%lld --impl %s "
              "--layout %s --acc %s%s%s --out /tmp/repro.csv\n",
              p.name().c_str(), impl.c_str(), stage.c_str(), disposition.c_str(), detail.c_str(),
              (long long)p.m, (long long)p.n, (long long)p.k, impl.c_str(),
              std::string(to_string(p.layout)).c_str(), std::string(to_string(p.accum)).c_str(),
              p.dtype == DType::kF16 ? "" : " --dtype bf16", epilogue_option.c_str());
  std::fflush(stdout);
}

// The launch setting is global, so a call without programmatic dependent launch turns it off
// around itself and restores it.
verify::GemmFn without_pdl(verify::GemmFn fn) {
  return [fn = std::move(fn)](const Problem& p, const void* a, const void* b, void* c,
                              cudaStream_t st) {
    const bool before = set_programmatic_launch(false);
    try {
      fn(p, a, b, c, st);
    } catch (...) {
      set_programmatic_launch(before);
      throw;
    }
    set_programmatic_launch(before);
  };
}

// hgemm-acol's call with a caller-owned workspace, as cuBLASLt's calls get theirs: the copy of A
// into rows, where the call takes one, lands there instead of in the library's pool, whose
// stream-ordered allocation and free a CUDA graph records as nodes of the timed graph. The
// verifier's call of a shape comes before its timing and grows the buffer to
// hgemmGemmWorkspaceSize (`grow`); the timed calls pass what it holds, so that they neither
// allocate inside a capture nor add a host-side size query to the eager modes' time.
void gemm_a_col(const Problem& p, const void* a, const void* b, void* c, cudaStream_t st,
                verify::DeviceBuffer* workspace, bool grow) {
  GemmDesc call = bench::general_call_a_col(p);
  if (grow) workspace->reserve(workspace_size(call));
  if (workspace->bytes() > 0) {
    call.workspace = workspace->as<void>();
    call.workspace_bytes = workspace->bytes();
  }
  gemm(call, a, b, c, st);
}

// What an hgemm impl (not a baseline) runs: dispatch's kernel for the plain GEMM, the general
// call with an epilogue or batches, (unfused) the plain GEMM and then the bias/activation kernel,
// or (loop) one call per batch.
verify::GemmFn hgemm_fn(const ImplSpec& impl, const verify::Epilogue& epilogue,
                        const verify::Batch& batch, verify::DeviceBuffer* a_col_workspace) {
  if (impl.plain) {
    ImplSpec call = impl;
    call.plain = false;
    return hgemm_fn(call, {}, batch, a_col_workspace);
  }
  verify::GemmFn fn;
  if (impl.config) {
    fn = [cfg = *impl.config](const Problem& p, const void* a, const void* b, void* c,
                              cudaStream_t st) { run(p, cfg, a, b, c, st); };
  } else if (impl.a_col) {
    // Timed on the buffer set's A read as K x M: the values are random either way.
    fn = [a_col_workspace](const Problem& p, const void* a, const void* b, void* c,
                           cudaStream_t st) { gemm_a_col(p, a, b, c, st, a_col_workspace, false); };
  } else if (impl.unfused) {
    fn = [epilogue, batch](const Problem& p, const void* a, const void* b, void* c,
                           cudaStream_t st) {
      if (batch.batched())
        gemm(bench::general_call(p, {}, batch), a, b, c, st);
      else
        run(p, a, b, c, st);
      // Packed batches of C are one (batch * M) x N matrix, every row taking the one bias.
      bench::apply_bias_activation(c, p.dtype, batch.count * p.m, p.n, epilogue.bias,
                                   epilogue.activation, st);
    };
  } else if (impl.loop) {
    // Each call is what the plain `hgemm` runs for one matrix, on that batch's pointers.
    fn = [epilogue, batch](const Problem& p, const void* a, const void* b, void* c,
                           cudaStream_t st) {
      const auto* a16 = static_cast<const uint16_t*>(a);
      const auto* b16 = static_cast<const uint16_t*>(b);
      auto* c16 = static_cast<uint16_t*>(c);
      for (int64_t i = 0; i < batch.count; ++i) {
        const void* ai = a16 + i * batch.stride_a;
        const void* bi = b16 + i * batch.stride_b;
        void* ci = c16 + i * batch.stride_c;
        if (epilogue.empty())
          run(p, ai, bi, ci, st);
        else
          gemm(bench::general_call(p, epilogue), ai, bi, ci, st);
      }
    };
  } else if (!epilogue.empty() || batch.batched()) {
    fn = [epilogue, batch](const Problem& p, const void* a, const void* b, void* c,
                           cudaStream_t st) {
      gemm(bench::general_call(p, epilogue, batch), a, b, c, st);
    };
  } else {
    fn = [](const Problem& p, const void* a, const void* b, void* c, cudaStream_t st) {
      run(p, a, b, c, st);
    };
  }
  return impl.pdl ? fn : without_pdl(std::move(fn));
}

// The detail column of an hgemm impl that passed: the kernel it runs and whether with PDL.
std::string hgemm_detail(const ImplSpec& impl, const Problem& p, bench::EpilogueOp op,
                         const verify::Epilogue& epilogue, const verify::Batch& batch,
                         const void* a, const void* b, void* c, const DeviceInfo& device) {
  if (impl.plain) {
    ImplSpec call = impl;
    call.plain = false;
    return hgemm_detail(call, p, bench::EpilogueOp::kNone, {}, batch, a, b, c, device) +
           ", without the epilogue";
  }
  std::string kernel;
  auto general = [&](const verify::Epilogue& e, const verify::Batch& bt) {
    const GemmPlan plan = explain(bench::general_call(p, e, bt), a, b, c);
    return plan.kernel + " (" + plan.source + ")";
  };
  // hgemm::run's kernel; the safety net (which no config names) where nothing compiled runs it.
  auto plain = [&] {
    try {
      return select_config(p, a, b, c).name();
    } catch (const Error& e) {
      if (e.status() != HGEMM_ERROR_NOT_SUPPORTED) throw;
      return general({}, {});
    }
  };
  if (impl.config) {
    kernel = impl.config->name();
  } else if (impl.a_col) {
    const GemmPlan plan = explain(bench::general_call_a_col(p), a, b, c);
    kernel = plan.kernel + " (" + plan.source + ", A column-major)";
  } else if (impl.unfused) {
    kernel = (batch.batched() ? general({}, batch) : plain()) +
             " then a separate kernel: C = " + bench::formula(op);
  } else if (impl.loop) {
    // Batch 0's call; dispatch may pick another for a batch whose pointers are less aligned.
    kernel = std::to_string(batch.count) + " calls of " +
             (epilogue.empty() ? plain() : general(epilogue, {}));
  } else if (!epilogue.empty() || batch.batched()) {
    kernel = general(epilogue, batch);
  } else {
    kernel = plain();
  }
  return kernel + (impl.pdl && programmatic_launch(device) ? ", PDL" : ", no PDL");
}

struct Entry {
  const ImplSpec* impl;
  Problem problem;
  verify::GemmFn fn;
  std::string disposition;
  std::string detail;
};

// hgemm-acol's call as the verifier sees it: the verifier's A (M x K, row-major) transposed into
// scratch first, so that the checks and their reference hold as written. The scratch is grown
// with the shapes and kept: cudaMalloc'd, so as aligned as the buffer sets the timing reads.
verify::GemmFn a_col_verify_fn(verify::DeviceBuffer* scratch, verify::DeviceBuffer* workspace) {
  return [scratch, workspace](const Problem& p, const void* a, const void* b, void* c,
                              cudaStream_t st) {
    scratch->reserve(size_t(p.m * p.k) * 2);
    bench::transpose(a, scratch->as<void>(), p.m, p.k, st);
    gemm_a_col(p, scratch->as<void>(), b, c, st, workspace, true);
  };
}

// "it holds f16 rows and this run is --dtype bf16" for a file whose header is another variant of
// this version's (its dtype, epilogue or batch column present where this run has none, or absent
// where it needs one); empty when the header is none of them.
std::string header_mismatch(const std::string& line, DType dtype, bench::EpilogueOp epilogue,
                            int64_t batch) {
  const bool with_dtype = dtype != DType::kF16;
  const bool with_epilogue = epilogue != bench::EpilogueOp::kNone;
  const bool with_batch = batch > 1;
  for (int variant = 0; variant < 8; ++variant) {
    const bool file_dtype = variant & 1, file_epilogue = variant & 2, file_batch = variant & 4;
    if (line != bench::header_line(file_dtype, file_epilogue, file_batch)) continue;
    std::string why;
    auto add = [&why](const std::string& part) {
      why += (why.empty() ? "it holds " : "; it holds ") + part;
    };
    if (file_dtype != with_dtype)
      add(std::string(with_dtype ? "f16" : "bf16") + " rows and this run is --dtype " +
          std::string(to_string(dtype)));
    if (file_epilogue != with_epilogue)
      add(std::string(with_epilogue ? "rows without an epilogue column"
                                    : "rows with an epilogue column") +
          " and this run is --epilogue " + std::string(bench::to_string(epilogue)));
    if (file_batch != with_batch)
      add(std::string(with_batch ? "rows without a batch column (single GEMMs)"
                                 : "rows with a batch column (batched calls)") +
          " and this run is --batch " + std::to_string(batch));
    return why;
  }
  return "";
}

// Rows of one batch count only: a file whose rows (or whose `batch` environment line) say another
// count than `batch` is refused with this reason; empty when it matches.
std::string batch_mismatch(const bench::ResultsFile& file, int64_t batch) {
  auto why = [batch](int64_t found) {
    return "it holds rows of --batch " + std::to_string(found) + " and this run is --batch " +
           std::to_string(batch);
  };
  for (const auto& [key, value] : file.environment)
    if (key == "batch" && std::atoll(value.c_str()) != batch) return why(std::atoll(value.c_str()));
  for (const auto& r : file.rows)
    if (r.batch != batch) return why(r.batch);
  return "";
}

int run_bench(const Settings& s, const Args& raw) {
  // Everything that can refuse the run comes before FILE is touched: its rows to resume (read
  // only), the device, the environment and the libraries. A run that cannot start leaves FILE as
  // it was (an earlier version emptied a results file on a machine without a GPU).
  std::set<std::string> done_keys;
  long previous_failures = 0;
  // An empty file (left by a run that stopped before its header) holds nothing to resume: start
  // it afresh.
  std::error_code size_error;
  const bool appending = s.resume && std::filesystem::exists(s.out) &&
                         std::filesystem::file_size(s.out, size_error) > 0 && !size_error;
  bench::Environment previous_env;
  const bool with_dtype = s.dtype != DType::kF16;
  const bool with_epilogue = s.epilogue != bench::EpilogueOp::kNone;
  const bool with_batch = s.batch > 1;
  if (appending) {
    try {
      bench::ResultsFile previous = bench::read_results(s.out);
      for (const auto& r : previous.rows) {
        done_keys.insert(bench::row_key(r));
        if (is_failure(r.disposition)) ++previous_failures;
      }
      previous_env = previous.environment;
      // Appended rows follow this version's column order, so the file must use it too.
      std::ifstream in(s.out);
      std::string line;
      while (std::getline(in, line) && (line.empty() || line[0] == '#')) {
      }
      if (line != bench::header_line(with_dtype, with_epilogue, with_batch)) {
        const std::string why = header_mismatch(line, s.dtype, s.epilogue, s.batch);
        throw std::runtime_error(why.empty() ? "its header row differs from this version's columns"
                                             : why);
      }
      if (const std::string why = batch_mismatch(previous, s.batch); !why.empty())
        throw std::runtime_error(why);
    } catch (const std::exception& e) {
      throw ArgError(std::string("cannot resume from ") + s.out + ": " + e.what());
    }
  }

  const DeviceInfo& device = current_device();
  bench::Environment env = bench::collect_environment();
  if (appending) {
    for (const auto& [key, value] : previous_env)
      if (key == "gpu" && value != device.name)
        HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED, "cannot resume " + s.out + ": it was written on " +
                                                  value + ", this device is " + device.name);
  }
  cudaStream_t stream = nullptr;
  HGEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } stream_guard{stream};
  baselines::Baselines libs;
  verify::Verifier verifier;
  bench::RotatingBuffers buffers;
  bench::Timer timer(stream, s.timing);
  bench::ClockReader clocks;
  // The card's own ceilings that day, for the report's roofline (a resumed file has them).
  std::optional<bench::Ceilings> ceilings;
  if (!appending)
    ceilings = bench::measure_ceilings(stream, libs.fn(baselines::Kind::kLtHeuristic),
                                       s.accums.front(), s.dtype, "cublaslt-heuristic");

  // The run can start: FILE from here on. Rows are appended a shape at a time (what --resume
  // relies on), so it is written in place rather than replaced at the end.
  if (appending) drop_partial_last_line(s.out);
  std::ofstream csv(s.out, appending ? std::ios::app : std::ios::trunc);
  if (!csv) throw ArgError("cannot write " + s.out);
  if (!appending) {
    env.emplace_back("command", join_args(raw));
    env.emplace_back("timing", "loop_ms=" + std::to_string(s.timing.loop_ms) + " loops=" +
                                   std::to_string(s.timing.loops) + " latency_calls=" +
                                   std::to_string(s.timing.latency_calls) + " server_calls=" +
                                   std::to_string(s.timing.server_calls) + " qps=" +
                                   std::to_string(s.timing.server_qps));
    char number[32];
    std::snprintf(number, sizeof number, "%.3f", ceilings->dram_tbps);
    env.emplace_back("dram_tbps", number);
    std::snprintf(number, sizeof number, "%.1f", ceilings->peak_tflops);
    env.emplace_back("peak_tflops", number);
    env.emplace_back("ceilings", ceilings->method);
    if (with_epilogue)
      env.emplace_back("epilogue", std::string(bench::to_string(s.epilogue)) +
                                       ": C = " + bench::formula(s.epilogue));
    if (with_batch)
      env.emplace_back("batch", std::to_string(s.batch) +
                                    " packed products per call (strides M*K, K*N, M*N)");
    csv << bench::format_environment(env)
        << bench::header_line(with_dtype, with_epilogue, with_batch) << "\n";
    csv.flush();
  }

  // The bias every implementation of a shape reads; the verifier writes its own values into it.
  bench::DeviceBias bias;
  verify::Epilogue epilogue;
  epilogue.activation = bench::activation_of(s.epilogue);

  verify::Options full_check;
  full_check.seed = s.seed;
  verify::DeviceBuffer a_col_scratch;    // hgemm-acol's transposed A (a_col_verify_fn)
  verify::DeviceBuffer a_col_workspace;  // and its calls' workspace (gemm_a_col)
  // Baselines get the random-normal check and the guard bands; our kernels get every check (those
  // that an epilogue leaves without an exact answer say "n/a": verify/verifier.hpp).
  verify::Options quick_check = full_check;
  quick_check.small_integer = quick_check.precision_probe = quick_check.nonfinite = false;
  verify::Options plain_check = full_check;  // hgemm-plain: every check, of the plain product

  const long total = long(s.shapes.size() * s.accums.size());
  Progress progress("bench", total);
  long done = 0, failures = previous_failures, written = 0, skipped = 0;
  const bool tty = isatty(STDERR_FILENO);
  bool stopped_early = false;

  const std::string dtype_name(to_string(s.dtype));
  const std::string epilogue_name(bench::to_string(s.epilogue));
  for (const Shape& shape : s.shapes) {
    if (s.time_limit_s > 0 && progress.seconds() > s.time_limit_s) {
      stopped_early = true;
      break;
    }
    for (Accum accum : s.accums) {
      if (bench::has_bias(s.epilogue)) {
        bias.prepare(shape.n, uint32_t(shape.n * 2654435761u), s.dtype, stream);
        epilogue.bias = bias.data();
      }
      full_check.epilogue = quick_check.epilogue = epilogue;
      // Packed batches depend on the shape only (B has K*N elements in either layout).
      const verify::Batch batch =
          verify::Batch::packed(Problem{shape.m, shape.n, shape.k}, s.batch);
      full_check.batch = quick_check.batch = plain_check.batch = batch;
      // Which (impl, layout) pairs still miss a row for some mode.
      std::vector<Entry> entries;
      for (const ImplSpec& impl : s.impls) {
        for (Layout layout : s.layouts) {
          if (impl.config && (impl.config->layout != layout || impl.config->accum != accum))
            continue;
          Entry e{&impl, Problem{shape.m, shape.n, shape.k, layout, accum, s.dtype}, {}, "", ""};
          bool missing = false;
          for (bench::Mode mode : s.modes)
            missing |= !done_keys.count(bench::row_key(
                shape.m, shape.n, shape.k, to_string(layout), to_string(accum), impl.name,
                bench::to_string(mode), dtype_name, epilogue_name, s.batch));
          if (!missing) continue;
          e.fn = impl.baseline ? libs.fn(*impl.baseline, epilogue, batch)
                               : hgemm_fn(impl, epilogue, batch, &a_col_workspace);
          entries.push_back(std::move(e));
        }
      }
      const std::string label = std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
                                std::to_string(shape.k) + " " + std::string(to_string(accum)) +
                                (with_dtype ? " " + dtype_name : "") +
                                (with_epilogue ? " " + epilogue_name : "") +
                                (with_batch ? " batch " + std::to_string(s.batch) : "");
      if (entries.empty()) {
        ++skipped;
        progress.update(++done, failures, label);
        continue;
      }
      // Same inputs for every implementation of this shape.
      const uint32_t fill_seed =
          uint32_t(shape.m * 73856093 ^ shape.n * 19349663 ^ shape.k * 83492791);
      buffers.prepare(shape.m, shape.n, shape.k, device.l2_bytes, fill_seed, stream, s.dtype,
                      s.batch);
      const void* a0 = buffers.a(0);
      const void* b0 = buffers.b(0);
      void* c0 = buffers.c(0);

      // Verify each entry once before any timing.
      for (Entry& e : entries) {
        try {
          if (e.impl->config) {
            Status st = can_implement(e.problem, *e.impl->config, a0, b0, c0);
            if (!st.ok()) throw Error(st.code, st.message);
          }
          if (e.impl->baseline == baselines::Kind::kLtAutotune ||
              e.impl->baseline == baselines::Kind::kLtBest)
            libs.select(e.problem, timer, buffers, epilogue, batch);
          if (e.impl->baseline)
            e.detail = libs.describe(*e.impl->baseline, e.problem, a0, b0, c0, epilogue, batch);
          const verify::Report report =
              verifier.check(e.problem,
                             e.impl->a_col ? a_col_verify_fn(&a_col_scratch, &a_col_workspace)
                                           : e.fn,
                             e.impl->baseline ? quick_check
                             : e.impl->plain  ? plain_check
                                              : full_check);
          e.disposition = disposition_string(report.disposition);
          if (!report.passed())
            e.detail = report.summary();
          else if (!e.impl->baseline)
            e.detail = hgemm_detail(*e.impl, e.problem, s.epilogue, epilogue, batch, a0, b0, c0,
                                    device);
        } catch (const Error& err) {
          e.disposition = std::string(err.status() == HGEMM_ERROR_NOT_SUPPORTED
                                          ? bench::kNotSupported
                                          : bench::kLaunchFailed);
          e.detail = err.what();
        }
        if (e.disposition != bench::kPassed) require_healthy_device();
      }

      std::vector<bench::ResultRow> rows;
      // In the order the entries ran (--impl's, then layouts), which the summary line keeps: a
      // map's name order put a config's TMA-store twin before it and read as the reverse.
      std::vector<std::pair<std::string, double>> first_mode_ms;
      for (bench::Mode mode : s.modes) {
        // Every entry that still needs this mode's row and passed verification is timed in one
        // interleaved measurement, so that all of them share the card's clock state.
        std::vector<Entry*> timed;
        std::vector<bench::Contender> contenders;
        auto key = [&](const Entry& e) {
          return bench::row_key(shape.m, shape.n, shape.k, to_string(e.problem.layout),
                                to_string(accum), e.impl->name, bench::to_string(mode),
                                dtype_name, epilogue_name, s.batch);
        };
        for (Entry& e : entries) {
          if (done_keys.count(key(e)) || e.disposition != bench::kPassed) continue;
          timed.push_back(&e);
          contenders.push_back({e.fn, e.problem});
        }
        const int clock_before = clocks.sm_clock_mhz();
        const std::vector<bench::Timing> timings =
            contenders.empty() ? std::vector<bench::Timing>{}
                               : timer.measure(mode, contenders, buffers);
        const int clock_after = clocks.sm_clock_mhz();
        bool timing_failed = false;
        for (Entry& e : entries) {
          if (done_keys.count(key(e))) continue;
          bench::ResultRow row;
          row.m = shape.m;
          row.n = shape.n;
          row.k = shape.k;
          row.layout = to_string(e.problem.layout);
          row.acc = to_string(accum);
          row.dtype = dtype_name;
          row.epilogue = epilogue_name;
          row.batch = s.batch;
          row.impl = e.impl->name;
          row.mode = bench::to_string(mode);
          row.disposition = e.disposition;
          row.detail = e.detail;
          row.ms = row.tflops = row.p20_ms = row.p80_ms = row.min_ms = row.max_ms = std::nan("");
          const auto it = std::find(timed.begin(), timed.end(), &e);
          if (it != timed.end()) {
            const bench::Timing& t = timings[size_t(it - timed.begin())];
            // The clock bracket is the whole interleaved measurement's.
            row.sm_clock_before_mhz = clock_before;
            row.sm_clock_after_mhz = clock_after;
            if (t.ok()) {
              row.ms = t.median_ms;
              row.tflops = row.flops() / (t.median_ms * 1e-3) / 1e12;
              row.p20_ms = t.p20_ms;
              row.p80_ms = t.p80_ms;
              row.min_ms = t.min_ms;
              row.max_ms = t.max_ms;
              row.samples = t.samples;
              row.calls_per_sample = t.calls_per_sample;
              row.sets = t.sets;
            } else {
              row.disposition = std::string(bench::kLaunchFailed);
              row.detail = t.failure_message();
              timing_failed = true;
            }
          }
          if (is_failure(row.disposition)) {
            ++failures;
            // A verification failure is reported once (mode "verify"), a timing failure per mode.
            if (!is_failure(e.disposition) || mode == s.modes.front()) {
              if (tty) progress.finish();
              report_failure(e.problem, s.epilogue, s.batch, e.impl->name,
                             is_failure(e.disposition) ? "verify" : row.mode, row.disposition,
                             row.detail);
            }
          }
          if (mode == s.modes.front() && row.timed())
            first_mode_ms.emplace_back(e.impl->name + "/" + row.layout, row.ms);
          rows.push_back(std::move(row));
        }
        if (timing_failed) require_healthy_device();
      }
      for (const auto& row : rows) {
        csv << bench::format_row(row, with_dtype, with_epilogue, with_batch) << "\n";
        done_keys.insert(bench::row_key(row));
      }
      csv.flush();
      if (!csv) HGEMM_THROW(HGEMM_ERROR_INTERNAL, "writing " + s.out + " failed");
      written += long(rows.size());
      if (!tty && !first_mode_ms.empty()) {
        std::string line = label + " " + std::string(bench::to_string(s.modes.front())) + " ms:";
        // The name apart from the number: a fixed buffer cut config names (over 60 characters)
        // and their times off.
        char buf[32];
        for (const auto& [name, ms] : first_mode_ms) {
          std::snprintf(buf, sizeof buf, " %.5f", ms);
          line += " " + name + buf;
        }
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
      }
      progress.update(++done, failures, label);
    }
  }
  progress.finish();
  std::printf("bench %s: %ld rows written to %s (%ld shape x acc groups already complete), "
              "%ld failed rows in the file, %.1f s\n",
              s.suite_label.c_str(), written, s.out.c_str(), skipped, failures, progress.seconds());
  if (stopped_early) {
    std::printf("INCOMPLETE: --time-limit %.0f s reached after %ld of %ld shape x acc groups; "
                "rerun with --resume to continue\n",
                s.time_limit_s, done, total);
    return kExitIncomplete;
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int cmd_bench(const Args& raw) {
  Settings settings;
  bool help = false;
  try {
    settings = parse_settings(raw, &help);
    if (help) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    return run_bench(settings, raw);
  } catch (const ArgError& e) {
    std::fprintf(stderr, "hgemm bench: %s\n", e.what());
    return 2;
  }
}

}  // namespace hgemm::cli
