// The tuner's subcommands (cli/cmd_tune.cpp, cli/cmd_db.cpp, cli/cmd_ablate.cpp), declared
// apart from commands.hpp until main.cpp wires them in. Same conventions: the arguments after
// the command's name in, the exit code out.
#pragma once

#include "commands.hpp"

namespace hgemm::cli {

int cmd_tune(const Args& args);
int cmd_db(const Args& args);
int cmd_ablate(const Args& args);

}  // namespace hgemm::cli
