// hgemm explain: which kernel dispatch runs for one shape, which rule chose it and why.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "bench/epilogue.hpp"
#include "commands.hpp"
#include "core/device.hpp"
#include "core/suite.hpp"
#include "dispatch/dispatch.hpp"
#include "dispatch/gemm_route.hpp"
#include "dispatch/padded_c.hpp"
#include "hgemm/hgemm.hpp"
#include "tuner/space/space.hpp"

namespace hgemm::cli {
namespace {

constexpr const char* kHelp = R"(usage: hgemm explain M N K [--layout nn|tn] [--acc f32|f16] [--gpu G] [...]
       hgemm explain --suite S [--layout LIST] [--acc LIST] [--gpu G] [--a-col]

  prints the config dispatch runs for the problem, the rule that chose it (user table, shipped
  table, neighbours, heuristic, safety net) and why, and the tables it consulted. With --suite,
  one line per shape, layout and accumulation: "M N K layout acc config rule", for comparing
  dispatch between builds. A TN call whose N is no multiple of 8 (and M > 16) runs on a copy of
  C with padded rows, copied into C after ("padded-c+RULE"; the first block's call where the
  copy runs in blocks of rows).
  --suite S    a named suite (bench/suites/S.txt) or a file of "M N K" lines
  --layout L   nn or tn (default tn; with --suite a list, e.g. nn,tn)
  --acc A      f32 (default) or f16 (with --suite a list)
  --gpu G      decide for a described GPU instead of the current device, no GPU needed: h100
               (H100 SXM, 132 SMs, 3.35 TB/s) or h200 (132 SMs, 60 MB of L2, 4.8 TB/s; it has
               no table of its own and reads the H100's)
  --a-col      A stored column-major (K x M), packed, as hgemmGemm routes it: the kernels'
               general flavour reads it in place, or (few or odd rows) dispatch sees the
               row-major call on a copy in rows, whose pick reads it in place where it is a
               decode kernel or a swap-AB tile with a flavour for it, else the copy runs first
               (with --suite, rule "rows-first+RULE";
               a copy over 32 MiB runs in blocks of rows, "rows-blocks+RULE", and the first
               block's call is shown),
               or no compiled kernel can read it and the general kernel runs it ("general
               safety-net")
)";

GemmArgs stand_in_args(const Problem& problem, bool a_col_major) {
  GemmArgs args = hgemm::stand_in_args(problem);
  args.a_col_major = a_col_major;
  return args;
}

// What runs `problem`: dispatch's decision, and with a_col_major the route hgemmGemm takes for a
// packed column-major A (K x M) and row-major C first (dispatch::route: A copied into rows, then
// the row-major call; or read in place). No decision where the call goes to the general kernel
// (the safety net): the route sends it there, or nothing compiled reads that A (hgemmGemm's
// try_select then finds nothing); `safety_net` says why.
struct Explained {
  std::optional<dispatch::Decision> decision;
  bool rows_first = false;
  bool padded_c = false;  // C's rows computed in a padded copy (dispatch::padded_c)
  std::string route;  // the route's reason, with a_col_major or a padded C
  std::string safety_net;
  // A copy into rows too large for one block: the blocks' rows (the decision is the first
  // block's) and the last, shorter block's rows and decision.
  int64_t block_rows = 0;
  int64_t last_rows = 0;
  std::optional<dispatch::Decision> last;
};

Explained explained(const Problem& problem, const DeviceInfo& device,
                    const dispatch::Tables& tables, bool a_col_major) {
  Explained e;
  bool in_place = false;
  Problem decided = problem;
  const GemmDesc call = bench::general_call_a_col(problem);
  const dispatch::GemmRoute route = a_col_major ? dispatch::route(call) : dispatch::GemmRoute{};
  if (a_col_major) {
    if (!route.dispatch) {
      e.safety_net = route.reason;
      return e;
    }
    e.rows_first = route.a_rows_first;
    e.route = route.reason;
    in_place = route.a_col_major && !route.a_rows_first;  // one row: read as a row
    // A copy too large for one block runs block by block, each block a call of its own.
    if (route.a_rows_first && route.a_rows_block < problem.m) {
      decided.m = e.block_rows = route.a_rows_block;
      e.last_rows = dispatch::a_rows_last_block(route);
    }
  }
  // N % 8 != 0 in TN: the kernels compute C in a padded copy, block by block where it is large.
  const GemmArgs as_called = stand_in_args(problem, false);
  if (const dispatch::PaddedC pad =
          a_col_major ? dispatch::PaddedC{} : dispatch::padded_c(problem, as_called)) {
    auto decide_block = [&](int64_t rows) {
      return dispatch::decide(
          dispatch::padded_c_problem(problem, rows),
          dispatch::padded_c_block(as_called, reinterpret_cast<void*>(uintptr_t(0x40000)), 0,
                                   rows),
          device, tables);
    };
    e.padded_c = true;
    e.route = dispatch::padded_c_reason(problem, pad);
    e.decision = decide_block(pad.block_rows);
    if (pad.block_rows < problem.m) {
      e.block_rows = pad.block_rows;
      e.last_rows = last_block_size(problem.m, pad.block_rows);
      e.last = decide_block(e.last_rows);
    }
    return e;
  }
  try {
    e.decision = dispatch::decide(decided, stand_in_args(decided, in_place), device, tables);
    // A decode kernel or a swap-AB tile's flavour for it reads the column-major A as it is: no
    // copy (hgemmGemm's same decision).
    if (a_col_major && e.rows_first) {
      const GemmArgs at = stand_in_args(problem, true);
      const GemmArgs as_stored = dispatch::route_args(call, route, at.a, at.b, at.c, nullptr);
      std::optional<dispatch::Decision> as_is;
      if (std::optional<dispatch::Decision> reader = dispatch::column_major_a_as_stored(
              route, *e.decision, as_stored, device, [&] {
                return &as_is.emplace(dispatch::decide(route.problem, as_stored, device, tables));
              })) {
        e.rows_first = false;
        e.route += "; " + dispatch::a_as_stored_note(*reader);
        e.decision = std::move(*reader);
      }
    }
    if (e.last_rows) {
      Problem last = decided;
      last.m = e.last_rows;
      e.last = dispatch::decide(last, stand_in_args(last, in_place), device, tables);
    }
  } catch (const Error& err) {
    if (!a_col_major) throw;
    e.safety_net = err.message();
  }
  return e;
}

int explain_suite(const std::vector<Shape>& shapes, const std::vector<Layout>& layouts,
                  const std::vector<Accum>& accums, const DeviceInfo& device, bool a_col_major) {
  for (Accum accum : accums) {
    const dispatch::Tables tables = dispatch::tables_for(device, accum);
    for (const Shape& shape : shapes) {
      for (Layout layout : layouts) {
        const Problem problem{shape.m, shape.n, shape.k, layout, accum};
        if (Status s = problem.validate(); !s.ok()) throw ArgError(s.message);
        const Explained e = explained(problem, device, tables, a_col_major);
        std::printf("%lld %lld %lld %s %s %s %s%s\n", (long long)shape.m, (long long)shape.n,
                    (long long)shape.k, std::string(to_string(layout)).c_str(),
                    std::string(to_string(accum)).c_str(),
                    e.decision ? e.decision->config.name().c_str() : "general",
                    e.padded_c ? "padded-c+"
                    : e.last   ? "rows-blocks+"
                    : e.rows_first ? "rows-first+"
                                   : "",
                    e.decision ? std::string(to_string(e.decision->source)).c_str()
                               : "safety-net");
      }
    }
  }
  return 0;
}

}  // namespace

int cmd_explain(const Args& raw) {
  try {
    ParsedArgs args(raw, {"layout", "acc", "gpu", "suite"}, {"help", "a-col"});
    if (args.flag("help")) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    DeviceInfo device;
    if (auto gpu = args.get("gpu")) {
      const std::optional<DeviceInfo> described = tuner::described_device(*gpu);
      if (!described) throw ArgError("--gpu knows h100 and h200, not '" + *gpu + "'");
      device = *described;
      device.ordinal = 0;
    } else {
      const DeviceInfo* current = nullptr;
      if (Status s = query_current_device(&current); !s.ok())
        throw ArgError("no device (" + s.message +
                       "); --gpu h100 or h200 explains for a described GPU");
      device = *current;
    }
    const auto& pos = args.positional();
    if (auto suite = args.get("suite")) {
      if (!pos.empty()) throw ArgError("--suite replaces M N K");
      std::vector<Layout> layouts;
      for (const auto& l : args.list_or("layout", "tn")) {
        const auto layout = parse_layout(l);
        if (!layout) throw ArgError("--layout must list nn or tn");
        layouts.push_back(*layout);
      }
      std::vector<Accum> accums;
      for (const auto& a : args.list_or("acc", "f32")) {
        const auto accum = parse_accum(a);
        if (!accum) throw ArgError("--acc must list f32 or f16");
        accums.push_back(*accum);
      }
      std::vector<Shape> shapes;
      try {
        shapes = load_suite(*suite);
      } catch (const Error& e) {
        throw ArgError(e.message());
      }
      return explain_suite(shapes, layouts, accums, device, args.flag("a-col"));
    }
    if (pos.size() != 3) throw ArgError("explain needs M N K");
    int64_t dims[3];
    for (int i = 0; i < 3; ++i) {
      char* end = nullptr;
      const long long v = std::strtoll(pos[i].c_str(), &end, 10);
      if (end == pos[i].c_str() || *end || v <= 0)
        throw ArgError("'" + pos[i] + "' is not a positive integer");
      dims[i] = v;
    }
    const auto layout = parse_layout(args.get_or("layout", "tn"));
    if (!layout) throw ArgError("--layout must be nn or tn");
    const auto accum = parse_accum(args.get_or("acc", "f32"));
    if (!accum) throw ArgError("--acc must be f32 or f16");
    const Problem problem{dims[0], dims[1], dims[2], *layout, *accum};
    if (Status s = problem.validate(); !s.ok()) throw ArgError(s.message);
    const dispatch::Tables tables = dispatch::tables_for(device, *accum);
    const Explained e = explained(problem, device, tables, args.flag("a-col"));
    if (!e.decision) {
      std::printf("%s with A column-major runs on the general kernel (the safety net): %s\n",
                  problem.name().c_str(), e.safety_net.c_str());
      return 0;
    }
    const dispatch::Decision& d = *e.decision;
    std::printf("%s on %s (%d SMs)\n", problem.name().c_str(), device.name.c_str(),
                device.sm_count);
    if (e.last)
      std::printf("runs    %s on blocks of %lld rows, %s on the last, of %lld\n",
                  d.config.name().c_str(), (long long)e.block_rows,
                  e.last->config.name().c_str(), (long long)e.last_rows);
    else
      std::printf("runs    %s\n", d.config.name().c_str());
    std::printf("rule    %s\n", std::string(to_string(d.source)).c_str());
    std::printf("why     %s%s\n", e.route.empty() ? "" : (e.route + "; ").c_str(),
                d.reason.c_str());
    std::printf("table   %s (%s)\n",
                tables.shipped->path().empty() ? "none" : tables.shipped->path().c_str(),
                tables.shipped->status().c_str());
    if (tables.shipped->usable()) {
      const std::string model = dispatch::model_path_for_table(tables.shipped->path());
      if (tables.shipped->model())
        std::printf("model   %s (loaded: consulted where no tuned shape has the N and K, %lld <= "
                    "M <= %lld)\n",
                    model.c_str(), (long long)dispatch::kModelMinM,
                    (long long)dispatch::kModelMaxM);
      else
        std::printf("model   %s\n", tables.shipped->model_status().empty()
                                        ? "none"
                                        : tables.shipped->model_status().c_str());
    }
    if (!tables.user->path().empty())
      std::printf("user    %s (%s)\n", tables.user->path().c_str(),
                  tables.user->status().empty() ? "absent" : tables.user->status().c_str());
    return 0;
  } catch (const ArgError& e) {
    std::fprintf(stderr, "hgemm explain: %s\n", e.what());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "hgemm explain: %s\n", e.what());
    return 1;
  }
}

}  // namespace hgemm::cli
