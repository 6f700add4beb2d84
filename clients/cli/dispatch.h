// The `raw` command line: global options, then one subcommand.
//
//   raw [--socket PATH] COMMAND [ARGS...]
//
// Dispatch parses the global options (which end at the command name) and
// hands the remaining arguments to the command. With no command it prints
// the help. Single-threaded; the environment comes only through `env`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/paths.h"

namespace raw::cli {

extern const char kMainUsage[];

// `args` excludes the program name. Returns the exit code.
int Dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const EnvLookup& env);

}  // namespace raw::cli
