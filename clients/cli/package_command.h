// `raw package ...`: installing and managing packages (docs/packages.md).
// Runs without the daemon: every action is a local file operation (plus a
// download for an https source) done by daemon/packages; nothing a package
// holds is executed.
#pragma once

#include <string>
#include <vector>

#include "clients/cli/args.h"
#include "clients/cli/cli_context.h"

namespace raw::cli {

extern const char kPackageUsage[];

const std::vector<OptionSpec>& PackageOptionSpecs();

int PackageCommand(const std::vector<std::string>& args, CliContext& ctx);

}  // namespace raw::cli
