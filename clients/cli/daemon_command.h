// `raw daemon start|status|stop`: manage the user's rawd. `status` and
// `stop` never start a daemon; with none running they print "not running"
// and exit with 3. See docs/cli.md.
#pragma once

#include <string>
#include <vector>

#include "clients/cli/args.h"
#include "clients/cli/cli_context.h"

namespace raw::cli {

extern const char kDaemonUsage[];

// Runs the command; returns the exit code.
int DaemonCommand(const std::vector<std::string>& args, CliContext& ctx);

// The options the command takes (for help and shell completion).
const std::vector<OptionSpec>& DaemonOptionSpecs();

}  // namespace raw::cli
