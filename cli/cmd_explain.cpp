// hgemm explain: which kernel dispatch runs for one shape, which rule chose it and why.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "core/device.hpp"
#include "core/suite.hpp"
#include "dispatch/dispatch.hpp"
#include "hgemm/hgemm.hpp"
#include "tuner/space/space.hpp"

namespace hgemm::cli {
namespace {

constexpr const char* kHelp = R"(usage: hgemm explain M N K [--layout nn|tn] [--acc f32|f16] [--gpu G]
       hgemm explain --suite S [--layout LIST] [--acc LIST] [--gpu G]

  prints the config dispatch runs for the problem, the rule that chose it (user table, shipped
  table, neighbours, heuristic, safety net) and why, and the tables it consulted. With --suite,
  one line per shape, layout and accumulation: "M N K layout acc config rule", for comparing
  dispatch between builds.
  --suite S    a named suite (bench/suites/S.txt) or a file of "M N K" lines
  --layout L   nn or tn (default tn; with --suite a list, e.g. nn,tn)
  --acc A      f32 (default) or f16 (with --suite a list)
  --gpu G      decide for a described GPU instead of the current device, no GPU needed: h100
               (H100 SXM, 132 SMs, 3.35 TB/s) or h200 (132 SMs, 60 MB of L2, 4.8 TB/s; it has
               no table of its own and reads the H100's)
)";

// 256-byte aligned stand-ins: dispatch looks only at the pointers' alignment.
GemmArgs stand_in_args(const Problem& problem) {
  return GemmArgs{reinterpret_cast<const void*>(uintptr_t(0x10000)),
                  reinterpret_cast<const void*>(uintptr_t(0x20000)),
                  reinterpret_cast<void*>(uintptr_t(0x30000)),
                  problem.m, problem.n, problem.k, nullptr};
}

int explain_suite(const std::vector<Shape>& shapes, const std::vector<Layout>& layouts,
                  const std::vector<Accum>& accums, const DeviceInfo& device) {
  for (Accum accum : accums) {
    const dispatch::Tables tables = dispatch::tables_for(device, accum);
    for (const Shape& shape : shapes) {
      for (Layout layout : layouts) {
        const Problem problem{shape.m, shape.n, shape.k, layout, accum};
        if (Status s = problem.validate(); !s.ok()) throw ArgError(s.message);
        const dispatch::Decision d =
            dispatch::decide(problem, stand_in_args(problem), device, tables);
        std::printf("%lld %lld %lld %s %s %s %s\n", (long long)shape.m, (long long)shape.n,
                    (long long)shape.k, std::string(to_string(layout)).c_str(),
                    std::string(to_string(accum)).c_str(), d.config.name().c_str(),
                    std::string(to_string(d.source)).c_str());
      }
    }
  }
  return 0;
}

}  // namespace

int cmd_explain(const Args& raw) {
  try {
    ParsedArgs args(raw, {"layout", "acc", "gpu", "suite"}, {"help"});
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
      return explain_suite(shapes, layouts, accums, device);
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
    const GemmArgs gemm = stand_in_args(problem);
    const dispatch::Tables tables = dispatch::tables_for(device, *accum);
    const dispatch::Decision d = dispatch::decide(problem, gemm, device, tables);
    std::printf("%s on %s (%d SMs)\n", problem.name().c_str(), device.name.c_str(),
                device.sm_count);
    std::printf("runs    %s\n", d.config.name().c_str());
    std::printf("rule    %s\n", std::string(to_string(d.source)).c_str());
    std::printf("why     %s\n", d.reason.c_str());
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
