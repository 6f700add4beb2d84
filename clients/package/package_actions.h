// What `raw package ...` does (docs/packages.md), run by the raw-package
// executable. Runs without the daemon: every action is a local file
// operation (plus a download for an https source) done by daemon/packages;
// nothing a package holds is executed.
#pragma once

#include <string>
#include <vector>

#include "clients/cli/cli_context.h"

namespace raw::cli {

// `args` as after `raw package`: the action, its arguments and options
// (clients/cli/package_command.h). Returns the process's exit code.
int RunPackage(const std::vector<std::string>& args, CliContext& ctx);

}  // namespace raw::cli
