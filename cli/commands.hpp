// The `hgemm` subcommands. Each takes the arguments after its name and returns the exit code:
// 0 success, 1 the work found a failure (a kernel failed verification, ...), 2 bad arguments.
#pragma once

#include <string>
#include <vector>

namespace hgemm::cli {

using Args = std::vector<std::string>;

int cmd_info(const Args& args);
int cmd_explain(const Args& args);
int cmd_verify(const Args& args);
int cmd_bench(const Args& args);
int cmd_report(const Args& args);
int cmd_jit(const Args& args);
int cmd_space(const Args& args);
int cmd_variants(const Args& args);

}  // namespace hgemm::cli
