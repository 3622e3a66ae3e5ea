// hgemm variants: source rewrites of a kernel family's header (tuner/variants), the accepted ones
// stored with their provenance under variants/NAME/ (python/hgemm/llm/rewrites.py writes them),
// and their promotion into the source tree.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "core/file_io.hpp"
#include "launch/sm90_jit.hpp"
#include "tuner/db/database.hpp"
#include "tuner/db/json.hpp"
#include "tuner/variants/candidate.hpp"
#include "tuner/variants/source_rules.hpp"

namespace hgemm::cli {
namespace {

namespace fs = std::filesystem;
namespace json = tuner::json;

constexpr const char* kHelp = R"(usage: hgemm variants <family|check|try|list|promote> [options]

  family                   print the header a rewrite replaces (kernels/sm90/sm90_ws.cuh) as
                           this build embeds it: what the source rules compare against
  check --source FILE      the source rules alone: one JSON object with every violation (rule,
                           line, message); exit 0 when it passes, 3 when it does not
  try --source FILE --config NAME --shape MxNxK[,...] --out DIR
                           a rewrite of kernels/sm90/sm90_ws.cuh through the whole pipeline: the
                           source rules, a JIT build under limits, the full verifier, timing
                           against cublaslt-best (interleaved, rotated buffers), and after timing
                           the verifier again on fresh inputs in fresh buffers, each call twice;
                           writes DIR/record.json and prints one line
      --compile-only       stop after the build (needs no GPU)
      --verify-only        stop after the verifier (what the sandbox runs under memcheck)
      --compile-timeout-s S  kill the compiler's process group after S seconds (default 300)
      --compile-memory-mib M address-space limit of the compiler (default 16384)
      --recheck-seed N     the recheck's inputs (default: drawn at random, recorded)
      --cache DIR          the JIT cache (default: $HGEMM_JIT_CACHE, else ~/.cache/hgemm/jit)
      --no-source-rules    TEST ONLY: skip the source rules, to show that the run-time
                           defences catch what the rules would have refused
  list [--dir DIR] [--json]  the stored variants (default DIR: ./variants)
  promote NAME [--dir DIR] [--source-root ROOT]
                           copies an accepted variant's source to
                           ROOT/src/kernels/sm90/variants/NAME.cuh and adds its row to
                           ROOT/src/kernels/sm90/variants/promoted.list (default ROOT: .); the
                           next build compiles CONFIG_src-NAME into the catalog, where the tuner,
                           the tables and dispatch select it like any config, and the JIT builds
                           its other configs from it

Exit codes of try: 0 accepted (or stopped where asked), 3 rejected by the source rules,
4 compile failure, 5 verification or recheck failure, 1 the pipeline could not run, 2 usage.
Stage lines ("stage: compile", ...) go to stderr as the run proceeds.
)";

constexpr const char* kPromotedDir = "src/kernels/sm90/variants";
constexpr const char* kPromotedHeader =
    "# Source rewrites promoted by `hgemm variants promote`: NAME CONFIG SOURCE_HASH per line.\n"
    "# The build compiles each row's NAME.cuh as CONFIG_src-NAME into the catalog\n"
    "# (cmake/promoted_catalog.cmake) and embeds it for the JIT; the tests\n"
    "# (tests/unit/test_variants.cpp, tests/gpu/test_promoted_variants.cu) read this list.\n";

std::string read_or_throw(const std::string& path, const std::string& what) {
  auto text = read_file(path);
  if (!text) throw ArgError("cannot read " + what + " " + path);
  return *text;
}

int check(const ParsedArgs& args) {
  const auto source_path = args.get("source");
  if (!source_path) throw ArgError("check needs --source FILE");
  const std::string source = read_or_throw(*source_path, "--source");
  const jit::EmbeddedFile* family = jit::find_embedded(variants::kFamilyHeader);
  if (!family) throw ArgError("this build embeds no " + std::string(variants::kFamilyHeader));
  const variants::RulesReport report =
      variants::check_source(source, variants::kFamilyHeader, family->text);
  std::printf("{\"passed\":%s,\"lines_changed\":%d,\"violations\":%s}\n",
              report.passed() ? "true" : "false", variants::lines_changed(family->text, source),
              report.violations_json().c_str());
  return report.passed() ? 0 : 3;
}

int try_source(const ParsedArgs& args) {
  const auto source_path = args.get("source");
  const auto config_name = args.get("config");
  const auto out_dir = args.get("out");
  if (!source_path || !config_name || !out_dir)
    throw ArgError("try needs --source FILE, --config NAME and --out DIR");
  if (args.flag("compile-only") && args.flag("verify-only"))
    throw ArgError("--compile-only and --verify-only exclude each other");
  variants::TryOptions o;
  o.source = read_or_throw(*source_path, "--source");
  const auto config = KernelConfig::parse(*config_name);
  if (!config) throw ArgError("not a config name: '" + *config_name + "'");
  o.config = *config;
  if (auto shapes = args.get("shape")) o.shapes = parse_shapes(*shapes);
  o.stop = args.flag("compile-only")  ? variants::Stop::kAfterCompile
           : args.flag("verify-only") ? variants::Stop::kAfterVerify
                                      : variants::Stop::kNever;
  if (o.shapes.empty() && o.stop != variants::Stop::kAfterCompile)
    throw ArgError("try needs --shape MxNxK[,...] (or --compile-only)");
  o.source_rules = !args.flag("no-source-rules");
  o.compile_seconds = args.double_or("compile-timeout-s", 300);
  o.compile_memory_mib = args.int_or("compile-memory-mib", 16384);
  if (!(o.compile_seconds > 0) || !std::isfinite(o.compile_seconds))
    throw ArgError("--compile-timeout-s must be a positive number of seconds");
  if (o.compile_memory_mib < 256) throw ArgError("--compile-memory-mib must be at least 256");
  const long long seed = args.int_or("recheck-seed", 0);
  if (seed < 0) throw ArgError("--recheck-seed must be >= 0");
  o.recheck_seed = uint64_t(seed);
  o.jit = jit::Options::from_env();
  if (auto c = args.get("cache")) o.jit.cache_dir = *c;
  std::error_code ec;
  fs::create_directories(*out_dir, ec);
  const std::string record_path = (fs::path(*out_dir) / "record.json").string();
  require_writable(record_path, "--out");
  o.progress = [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  };

  const variants::TryRecord r = variants::try_candidate(o);
  write_file_atomically(record_path, r.to_json() + "\n");
  std::string line(variants::to_string(r.verdict));
  if (r.verdict == variants::Verdict::kAccepted) {
    char buf[160];
    std::snprintf(buf, sizeof buf, ": %.4fx mean speedup over cublaslt-best on %zu shape(s), "
                                   "reward %.4f (%d lines changed)",
                  r.mean_speedup, r.shapes.size(), r.reward, r.lines_changed);
    line += buf;
  }
  for (const std::string& reason : r.reasons) line += "\n  " + reason;
  std::printf("%s\n%s\n", line.c_str(), record_path.c_str());
  return variants::exit_code(r.verdict);
}

std::string field_text(const json::Object& o, const char* key) {
  if (auto s = o.string(key)) return *s;
  if (auto n = o.number(key); n && std::isfinite(*n)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", *n);
    return buf;
  }
  return "-";
}

int list(const ParsedArgs& args) {
  const fs::path dir = args.get_or("dir", "variants");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::fprintf(stderr, "no variants directory %s\n", dir.c_str());
    return 0;
  }
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory() && fs::exists(e.path() / "record.json")) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  const bool as_json = args.flag("json");
  if (!as_json)
    std::printf("%-24s %-15s %-9s %-9s %-20s %s\n", "NAME", "VERDICT", "SPEEDUP", "REWARD",
                "MODEL", "CONFIG");
  for (const fs::path& p : entries) {
    const std::string name = p.filename().string();
    json::Object o;
    try {
      o = json::parse_top_level(read_or_throw((p / "record.json").string(), "record"));
    } catch (const json::ParseError& e) {
      std::fprintf(stderr, "%s: unreadable record.json: %s\n", name.c_str(), e.what());
      continue;
    }
    if (as_json) {
      o.set("name", name);
      std::printf("%s\n", json::write(o).c_str());
      continue;
    }
    std::printf("%-24s %-15s %-9s %-9s %-20s %s\n", name.c_str(),
                field_text(o, "verdict").c_str(), field_text(o, "mean_speedup").c_str(),
                field_text(o, "reward").c_str(), field_text(o, "model").c_str(),
                field_text(o, "config").c_str());
  }
  return 0;
}

int promote(const ParsedArgs& args) {
  if (args.positional().size() != 1) throw ArgError("promote takes one variant NAME");
  const std::string name = args.positional()[0];
  if (!tuner::is_variant_name(name))
    throw ArgError("'" + name + "' is not a variant name (lower-case letters, digits and _, "
                   "starting with a letter, at most 64)");
  const fs::path dir = fs::path(args.get_or("dir", "variants")) / name;
  const fs::path root = args.get_or("source-root", ".");
  const fs::path stock = root / "src" / variants::kFamilyHeader;
  if (!fs::exists(stock))
    throw ArgError("no " + stock.string() +
                   ": run from the repository root or pass --source-root");
  const json::Object record =
      json::parse_top_level(read_or_throw((dir / "record.json").string(), "the record"));
  const std::string verdict = record.string("verdict").value_or("");
  const auto config = record.string("config");
  if (verdict != "accepted")
    throw ArgError(name + " was not accepted (verdict '" + verdict + "'): only a verified and "
                   "measured rewrite is promoted");
  if (!config || !KernelConfig::parse(*config))
    throw ArgError(name + "'s record names no valid config");
  // The catalog compiles the row as its config with this source (cmake/promoted_catalog.cmake).
  if (const KernelConfig c = *KernelConfig::parse(*config);
      c.family != Family::kSm90Ws || !c.source.empty())
    throw ArgError(name + "'s record names " + *config + ", not an sm90 config of the family "
                   "header");
  const std::string source = read_or_throw((dir / "source.cuh").string(), "the source");
  const std::string hash = jit::text_hash(source);
  if (auto recorded = record.string("source_hash"); !recorded || *recorded != hash)
    throw ArgError(name + "'s source.cuh is not the source its record measured (hash " + hash +
                   ", recorded " + record.string("source_hash").value_or("none") + ")");
  const variants::RulesReport rules = variants::check_source(
      source, variants::kFamilyHeader, read_or_throw(stock.string(), "the family header"));
  if (!rules.passed()) {
    std::fprintf(stderr, "%s breaks the source rules against %s: %s\n", name.c_str(),
                 stock.c_str(), rules.summary().c_str());
    return 3;
  }
  const fs::path target_dir = root / kPromotedDir;
  const fs::path target = target_dir / (name + ".cuh");
  const fs::path list_path = target_dir / "promoted.list";
  if (fs::exists(target)) throw ArgError(target.string() + " exists: " + name + " is promoted");
  std::string list = read_file(list_path.string()).value_or(kPromotedHeader);
  for (const std::string& row : split(list, '\n'))
    if (row.substr(0, row.find(' ')) == name)
      throw ArgError(list_path.string() + " already has a row for " + name);
  if (!list.empty() && list.back() != '\n') list += '\n';
  list += name + " " + *config + " " + hash + "\n";
  write_file_atomically(target.string(), source);
  write_file_atomically(list_path.string(), list);
  std::printf("promoted %s (%s): %s, row added to %s\n"
              "rebuild: the catalog then holds %s_src-%s; `ctest -L gpu -R promoted` verifies it "
              "on the GPU and `hgemm tune --include %s_src-%s` measures it into the database\n",
              name.c_str(), config->c_str(), target.c_str(), list_path.c_str(), config->c_str(),
              name.c_str(), config->c_str(), name.c_str());
  return 0;
}

}  // namespace

int cmd_variants(const Args& argv) {
  if (const std::optional<int> code = subcommand_usage(argv, kHelp)) return *code;
  const std::string sub = argv[0];
  const ParsedArgs args(Args(argv.begin() + 1, argv.end()),
                        {"source", "config", "shape", "out", "compile-timeout-s",
                         "compile-memory-mib", "recheck-seed", "cache", "dir", "source-root"},
                        {"help", "compile-only", "verify-only", "no-source-rules", "json"});
  if (args.flag("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (sub != "promote" && !args.positional().empty())
    throw ArgError("unexpected argument '" + args.positional()[0] + "'");
  if (sub == "family") {
    const jit::EmbeddedFile* family = jit::find_embedded(variants::kFamilyHeader);
    if (!family) throw ArgError("this build embeds no " + std::string(variants::kFamilyHeader));
    std::fwrite(family->text.data(), 1, family->text.size(), stdout);
    return 0;
  }
  if (sub == "check") return check(args);
  if (sub == "try") return try_source(args);
  if (sub == "list") return list(args);
  if (sub == "promote") return promote(args);
  throw ArgError("unknown variants subcommand '" + sub + "'");
}

}  // namespace hgemm::cli
