// `raw package ...`: installing and managing packages (docs/packages.md).
// `raw` checks the options, then runs `raw-package` (clients/package/) in its
// place, so that only that program loads libcurl, libarchive and OpenSSL.
#pragma once

#include <string>
#include <vector>

#include "clients/cli/args.h"
#include "clients/cli/cli_context.h"

namespace raw::cli {

extern const char kPackageUsage[];

const std::vector<OptionSpec>& PackageOptionSpecs();

// Returns only when raw-package could not be run.
int PackageCommand(const std::vector<std::string>& args, CliContext& ctx);

}  // namespace raw::cli
