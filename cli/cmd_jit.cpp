// hgemm jit: builds sm90 configs that the catalog lacks into the JIT cache (src/launch/sm90_jit),
// in parallel and without a GPU, and shows what it compiles.
#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/sm90_jit.hpp"
#include "tuner/space/space.hpp"

namespace hgemm::cli {
namespace {

constexpr const char* kHelp = R"(usage: hgemm jit <build|source|key|declared> [options]

  build NAME...      compile each config's sm90 instance into the JIT cache (cached ones are
                     only checked), --jobs at a time; exit 1 if any fails
  source NAME        print the translation unit the JIT compiles for NAME
  key NAME           print NAME's cache key and the material it hashes
  declared           the sm90 instances the search space declares but the catalog lacks
                     (--layout, --acc pick one layout and accumulation; default tn, f32)

  NAME               a config name as `hgemm info` prints it (several: space- or comma-separated)
  --jobs N           parallel compilations (default: one per hardware thread)
  --cache DIR        the JIT cache (default: $HGEMM_JIT_CACHE, else ~/.cache/hgemm/jit)

The cache is keyed by the generated source, the embedded kernel headers, the flags and
`nvcc --version` (HGEMM_NVCC picks the compiler). With HGEMM_JIT=1 (or `hgemm tune --jit`),
dispatch and explicit configs load missing sm90 configs from the cache, compiling on a miss.
)";

std::vector<KernelConfig> parse_configs(const std::vector<std::string>& words) {
  std::vector<KernelConfig> out;
  for (const auto& w : words)
    for (const auto& name : split(w, ',')) {
      if (name.empty()) continue;
      auto c = KernelConfig::parse(name);
      if (!c) throw ArgError("not a config name: '" + name + "'");
      out.push_back(*c);
    }
  if (out.empty()) throw ArgError("name at least one config");
  return out;
}

}  // namespace

int cmd_jit(const Args& argv) {
  if (const std::optional<int> code = subcommand_usage(argv, kHelp)) return *code;
  const std::string sub = argv[0];
  const ParsedArgs args(Args(argv.begin() + 1, argv.end()), {"jobs", "cache", "layout", "acc"},
                        {"help"});
  if (args.flag("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  jit::Options options = jit::Options::from_env();
  if (auto c = args.get("cache")) options.cache_dir = *c;
  options.jobs = int(args.int_or("jobs", 0));
  if (options.jobs < 0) throw ArgError("--jobs must be >= 0");

  if (sub == "source" || sub == "key") {
    const auto configs = parse_configs(args.positional());
    if (configs.size() != 1) throw ArgError(sub + " takes one config");
    if (sub == "source") {
      std::fputs(jit::sm90_source(configs[0]).c_str(), stdout);
    } else {
      const jit::CacheKey key = jit::cache_key(configs[0], options);
      std::printf("%s\n%s", key.hex.c_str(), key.material.c_str());
    }
    return 0;
  }
  if (sub == "declared") {
    const auto layout = parse_layout(args.get_or("layout", "tn"));
    const auto accum = parse_accum(args.get_or("acc", "f32"));
    if (!layout) throw ArgError("--layout is tn or nn");
    if (!accum) throw ArgError("--acc is f32 or f16");
    const auto space = tuner::SearchSpace::from_catalog(tuner::nominal_device());
    size_t n = 0;
    for (const KernelConfig& c : space.declared_instances({"all"}))
      if (c.layout == *layout && c.accum == *accum) {
        std::printf("%s\n", c.name().c_str());
        ++n;
      }
    std::fprintf(stderr, "%zu declared sm90 instances (%s, %s) are not in the catalog\n", n,
                 std::string(to_string(*layout)).c_str(), std::string(to_string(*accum)).c_str());
    return 0;
  }
  if (sub == "build") {
    const auto configs = parse_configs(args.positional());
    std::fprintf(stderr, "building %zu config(s) into %s with %s\n", configs.size(),
                 options.cache_dir.c_str(), options.nvcc.c_str());
    int failed = 0;
    for (const jit::Artifact& a : jit::build(configs, options)) {
      if (a.status.ok())
        std::printf("%-7s %6.1f s  %s  %s\n", a.cached ? "cached" : "built", a.seconds,
                    a.key.c_str(), a.config.name().c_str());
      else {
        ++failed;
        std::printf("FAILED  %s\n        %s\n", a.config.name().c_str(), a.status.message.c_str());
      }
    }
    return failed ? 1 : 0;
  }
  throw ArgError("unknown jit subcommand '" + sub + "'");
}

}  // namespace hgemm::cli
