// hgemm verify: runs the verifier over a suite for what dispatch picks, one explicit config, or
// every compiled instance of a family; with --epilogue, hgemm's general call with a bias and an
// activation (what hgemm bench --epilogue times); with --batch B, that call over B packed strided
// batches, each batch checked against its own reference (what hgemm bench --batch times). Exit
// code 1 when any case fails.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "bench/epilogue.hpp"
#include "commands.hpp"
#include "core/device.hpp"
#include "core/file_io.hpp"
#include "core/suite.hpp"
#include "hgemm/hgemm.hpp"
#include "progress.hpp"
#include "registry/registry.hpp"
#include "verify/verifier.hpp"

namespace hgemm::cli {
namespace {

constexpr const char* kHelp = R"(usage: hgemm verify --suite grid|smoke|edge|FILE [options]

  --suite S        named suite (bench/suites/S.txt) or a file of "M N K" lines
  --layout L       nn,tn (default both)
  --acc A          f32,f16 (default both; f32 with --dtype bf16, which has no f16)
  --dtype T        f16 or bf16, the element type of A, B and C (default f16)
  --epilogue E     none (default), bias, bias_relu, bias_gelu, relu or gelu: verify
                   hgemm::gemm computing C = act(A*B + bias) against the reference with the
                   same epilogue (gelu: the tanh approximation, as in hgemm bench); needs
                   --impl dispatch
  --batch B        1 (default) or more: verify hgemm::gemm over B packed batches of each shape
                   (strides M*K, K*N, M*N; with --epilogue one bias for all), every check
                   applied to every batch against its own reference; needs --impl dispatch
  --impl I         dispatch (default: what hgemmRun runs), config:NAME (of the --dtype), or
                   family:sm80|sm90|decode (every compiled instance of the family, of the
                   --dtype, that can implement the shape)
  --split-k S      run the chosen configs with S K-splits (1..64; sm90 also 0, the last round
                   split, where the instance compiles it: whole tiles elsewhere)
  --misalign E     offset A, B and C by E elements (odd E: 2-byte but not 16-byte aligned)
  --quick          random-normal check and guard bands only (for sanitizer runs)
  --seed S         random seed (default 24301)
  --out FILE       also write one CSV row per case (a batch column with --batch B > 1)
  --max-failures N stop after N failures (default: never)
)";

struct Target {
  std::string label;          // what the row is about: "dispatch" or a config name
  std::optional<KernelConfig> config;  // empty: dispatch
};

std::vector<Target> targets_for(const std::string& impl, Layout layout, Accum accum,
                                DType dtype) {
  if (impl == "dispatch") return {{"dispatch", std::nullopt}};
  if (impl.rfind("config:", 0) == 0) {
    auto cfg = KernelConfig::parse(impl.substr(7));
    if (!cfg) throw ArgError("'" + impl.substr(7) + "' is not a kernel config name");
    // Unlike a layout or accumulation that --layout / --acc leave out, a dtype other than the
    // run's could never run: say so rather than verify nothing.
    if (cfg->dtype != dtype)
      throw ArgError("config " + cfg->name() + " has " + std::string(to_string(cfg->dtype)) +
                     " elements but the run is --dtype " + std::string(to_string(dtype)));
    if (cfg->layout != layout || cfg->accum != accum) return {};
    return {{cfg->name(), cfg}};
  }
  if (impl.rfind("family:", 0) == 0) {
    const std::string fam = impl.substr(7);
    if (fam != "sm80" && fam != "sm90" && fam != "decode")
      throw ArgError("unknown family '" + fam + "'");
    const Family family = fam == "sm80"   ? Family::kSm80Mma
                          : fam == "sm90" ? Family::kSm90Ws
                                          : Family::kDecode;
    std::vector<Target> out;
    for (const auto& c : catalog())
      if (c.family == family && c.layout == layout && c.accum == accum && c.dtype == dtype)
        out.push_back({c.name(), c});
    return out;
  }
  throw ArgError("--impl must be dispatch, config:NAME or family:sm80|sm90|decode, got '" + impl +
                 "'");
}

// --split-k rewrites every explicit config (dispatch picks its own); -1 leaves them as named.
std::vector<Target> targets_for(const std::string& impl, Layout layout, Accum accum, DType dtype,
                                int split_k) {
  std::vector<Target> out = targets_for(impl, layout, accum, dtype);
  if (split_k < 0) return out;
  if (impl == "dispatch")
    throw ArgError("--split-k needs --impl config:NAME or family:sm80|sm90|decode");
  for (Target& t : out) {
    t.config->split_k = split_k;
    if (Status s = t.config->validate(); !s.ok()) throw ArgError(s.message);
    t.label = t.config->name();
  }
  return out;
}

}  // namespace

int cmd_verify(const Args& raw) {
  ParsedArgs args(raw,
                  {"suite", "layout", "acc", "dtype", "epilogue", "batch", "impl", "misalign",
                   "seed", "out", "max-failures", "split-k"},
                  {"quick", "help"});
  if (args.flag("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (!args.get("suite")) throw ArgError("--suite is required");
  std::vector<Layout> layouts;
  for (const auto& s : args.list_or("layout", "nn,tn")) {
    auto l = parse_layout(s);
    if (!l) throw ArgError("unknown layout '" + s + "' (nn or tn)");
    layouts.push_back(*l);
  }
  const DType dtype = dtype_option(args);
  const std::vector<Accum> accums = accum_option(args, dtype);
  const bool bf16 = dtype == DType::kBF16;
  const bench::EpilogueOp epilogue_op = epilogue_option(args);
  const bool with_epilogue = epilogue_op != bench::EpilogueOp::kNone;
  const std::string epilogue_name(bench::to_string(epilogue_op));
  const std::string impl = args.get_or("impl", "dispatch");
  if (with_epilogue && impl != "dispatch")
    throw ArgError("--epilogue needs --impl dispatch: " + impl +
                   " runs kernels through hgemm::run, which has no epilogue");
  const int64_t batch_count = batch_option(args);
  const bool batched = batch_count > 1;
  if (batched && impl != "dispatch")
    throw ArgError("--batch needs --impl dispatch: " + impl +
                   " runs kernels through hgemm::run, which takes no batches");
  const long long misalign = args.int_or("misalign", 0);
  if (misalign < 0 || misalign > 64) throw ArgError("--misalign must be 0..64");
  const long long max_failures = args.int_or("max-failures", -1);
  const long long split_k = args.int_or("split-k", -1);
  if (split_k < -1 || split_k > kMaxSplitK)
    throw ArgError("--split-k must be 0 (sm90: the last round split) or 1..64");
  // Resolve names before touching the device so argument errors come first.
  for (Layout l : layouts)
    for (Accum a : accums) targets_for(impl, l, a, dtype, int(split_k));
  std::vector<Shape> shapes;
  try {
    shapes = load_suite(*args.get("suite"));
  } catch (const Error& e) {
    throw ArgError(e.message());
  }

  verify::Options options;
  options.seed = uint64_t(args.int_or("seed", 24301));
  options.misalign_elements = int(misalign);
  if (args.flag("quick")) {
    options.small_integer = options.precision_probe = options.nonfinite = false;
  }
  const std::optional<std::string> out = args.get("out");
  if (out) require_writable(*out, "--out");

  // The device before any output: without one the run stops here, and an existing --out file is
  // replaced only by a finished run's rows.
  current_device();
  verify::Verifier verifier;
  // The verifier writes its own values into the bias before each case.
  bench::DeviceBias bias;
  if (bench::has_bias(epilogue_op)) {
    int64_t widest = 1;
    for (const Shape& shape : shapes) widest = std::max(widest, shape.n);
    bias.prepare(widest, 1, dtype, nullptr);
    options.epilogue.bias = bias.data();
  }
  options.epilogue.activation = bench::activation_of(epilogue_op);
  std::ostringstream csv;
  // A bf16 run adds a dtype column, an epilogue run an epilogue column; plain fp16 runs write the
  // columns they always did.
  csv << "M,N,K,layout,acc," << (bf16 ? "dtype," : "") << (with_epilogue ? "epilogue," : "")
      << (batched ? "batch," : "") << "impl,disposition,summary\n";
  const long total = long(shapes.size() * layouts.size() * accums.size());
  Progress progress("verify", total);
  long done = 0, passed = 0, failed = 0, not_applicable = 0;
  for (const Shape& shape : shapes) {
    for (Layout layout : layouts) {
      for (Accum accum : accums) {
        const Problem problem{shape.m, shape.n, shape.k, layout, accum, dtype};
        options.batch = verify::Batch::packed(problem, batch_count);
        for (const Target& target : targets_for(impl, layout, accum, dtype, int(split_k))) {
          verify::GemmFn gemm;
          std::string label = target.label;
          if (target.config) {
            gemm = [cfg = *target.config](const Problem& p, const void* a, const void* b, void* c,
                                          cudaStream_t s) { run(p, cfg, a, b, c, s); };
          } else if (with_epilogue || batched) {
            gemm = [epilogue = options.epilogue, batch = options.batch](
                       const Problem& p, const void* a, const void* b, void* c, cudaStream_t s) {
              hgemm::gemm(bench::general_call(p, epilogue, batch), a, b, c, s);
            };
          } else {
            gemm = [](const Problem& p, const void* a, const void* b, void* c, cudaStream_t s) {
              run(p, a, b, c, s);
            };
          }
          // A family member that refuses the shape (alignment, tile limits) is not a failure:
          // dispatch would never send the shape there.
          if (target.config) {
            // can_implement looks only at the pointers' alignment; these stand-ins carry the
            // alignment the verifier's buffers will have (aligned bases plus the misalignment).
            void* stand_in = reinterpret_cast<void*>(uintptr_t(256 + 2 * misalign));
            Status s = registry::can_implement(
                problem, *target.config,
                GemmArgs{stand_in, stand_in, stand_in, problem.m, problem.n, problem.k, nullptr},
                current_device());
            if (!s.ok() && s.code == HGEMM_ERROR_NOT_SUPPORTED) {
              ++not_applicable;
              continue;
            }
          }
          verify::Report report = verifier.check(problem, gemm, options);
          const bool ok = report.passed();
          ok ? ++passed : ++failed;
          if (!ok)
            std::printf("FAIL %s%s%s %s: %s\n", problem.name().c_str(),
                        with_epilogue ? ("_" + epilogue_name).c_str() : "",
                        batched ? ("_b" + std::to_string(batch_count)).c_str() : "",
                        label.c_str(), report.summary().c_str());
          if (out)
            csv << shape.m << ',' << shape.n << ',' << shape.k << ',' << to_string(layout) << ','
                << to_string(accum) << ',' << (bf16 ? "bf16," : "")
                << (with_epilogue ? epilogue_name + "," : "")
                << (batched ? std::to_string(batch_count) + "," : "") << label << ','
                << verify::to_string(report.disposition) << ",\"" << report.summary() << "\"\n";
        }
        progress.update(++done, failed, problem.name());
      }
    }
    if (max_failures >= 0 && failed >= max_failures) break;
  }
  progress.finish();
  if (out) write_file_atomically(*out, csv.str());
  std::printf("verify %s, impl %s%s%s%s: %ld cases in %.1f s (%ld not applicable to the "
              "config)\n",
              args.get("suite")->c_str(), impl.c_str(), bf16 ? ", bf16" : "",
              with_epilogue ? (", epilogue " + epilogue_name).c_str() : "",
              batched ? (", batch " + std::to_string(batch_count)).c_str() : "", passed + failed,
              progress.seconds(), not_applicable);
  std::printf("%ld passed, %ld failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}

}  // namespace hgemm::cli
