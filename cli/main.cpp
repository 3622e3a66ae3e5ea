// The `hgemm` command: dispatches to the subcommands in cli/cmd_*.cpp.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "tuner_commands.hpp"

namespace {

constexpr const char* kUsage = R"(usage: hgemm <command> [options]

commands:
  info     the device, the build, the kernel catalog and the dispatch tables in use
  explain  which kernel dispatch runs for one shape, which rule chose it and why
  verify   verify what hgemmRun dispatches to (or one config / family) over a shape suite
  bench    time hgemm against cuBLAS / cuBLASLt over a shape suite (CSV out)
  report   summarize results CSVs as the paper's tables (Markdown)
  tune     search kernel configs per shape (rl, random or exhaustive) into a tuning database
  db       show, export (also as a dispatch table), merge or summarize tuning databases
  ablate   compare the search policies by replaying an exhaustive tuning database (report)
  jit      compile sm90 configs the catalog lacks into the JIT cache, show their source
  space    the search space's axes, and which configs are legal for a shape and why not
  variants kernel source rewrites: check, try (verify, time, recheck), list, promote

`hgemm <command> --help` describes each command's options.
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  const hgemm::cli::Args args(argv + 2, argv + argc);
  try {
    if (command == "info") return hgemm::cli::cmd_info(args);
    if (command == "explain") return hgemm::cli::cmd_explain(args);
    if (command == "verify") return hgemm::cli::cmd_verify(args);
    if (command == "bench") return hgemm::cli::cmd_bench(args);
    if (command == "report") return hgemm::cli::cmd_report(args);
    if (command == "tune") return hgemm::cli::cmd_tune(args);
    if (command == "db") return hgemm::cli::cmd_db(args);
    if (command == "ablate") return hgemm::cli::cmd_ablate(args);
    if (command == "jit") return hgemm::cli::cmd_jit(args);
    if (command == "space") return hgemm::cli::cmd_space(args);
    if (command == "variants") return hgemm::cli::cmd_variants(args);
  } catch (const hgemm::cli::ArgError& e) {
    std::fprintf(stderr, "hgemm %s: %s\n", command.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hgemm %s: error: %s\n", command.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "hgemm: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return 2;
}
