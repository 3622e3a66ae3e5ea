// hgemm explain: which kernel dispatch runs for one shape, which rule chose it and why.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "args.hpp"
#include "commands.hpp"
#include "core/device.hpp"
#include "dispatch/dispatch.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::cli {
namespace {

constexpr const char* kHelp = R"(usage: hgemm explain M N K [--layout nn|tn] [--acc f32|f16] [--gpu h100]

  prints the config dispatch runs for the problem, the rule that chose it (user table, shipped
  table, neighbours, heuristic, safety net) and why, and the tables it consulted
  --layout L   nn or tn (default tn)
  --acc A      f32 (default) or f16
  --gpu h100   decide for a described H100 SXM (132 SMs) instead of the current device: no GPU
               needed
)";

DeviceInfo described_h100() {
  DeviceInfo d;
  d.ordinal = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.l2_bytes = 50 << 20;
  d.max_smem_per_block_optin = 232448;
  return d;
}

}  // namespace

int cmd_explain(const Args& raw) {
  try {
    ParsedArgs args(raw, {"layout", "acc", "gpu"}, {"help"});
    if (args.flag("help")) {
      std::fputs(kHelp, stdout);
      return 0;
    }
    const auto& pos = args.positional();
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
    DeviceInfo device;
    if (auto gpu = args.get("gpu")) {
      if (*gpu != "h100") throw ArgError("--gpu knows only h100");
      device = described_h100();
    } else {
      const DeviceInfo* current = nullptr;
      if (Status s = query_current_device(&current); !s.ok())
        throw ArgError("no device (" + s.message + "); --gpu h100 explains for a described H100");
      device = *current;
    }
    const Problem problem{dims[0], dims[1], dims[2], *layout, *accum};
    if (Status s = problem.validate(); !s.ok()) throw ArgError(s.message);
    // 256-byte aligned stand-ins: dispatch looks only at the pointers' alignment.
    const GemmArgs gemm{reinterpret_cast<const void*>(uintptr_t(0x10000)),
                        reinterpret_cast<const void*>(uintptr_t(0x20000)),
                        reinterpret_cast<void*>(uintptr_t(0x30000)),
                        problem.m, problem.n, problem.k, nullptr};
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
