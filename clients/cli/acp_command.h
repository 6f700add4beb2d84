// `raw acp [ARGS...]` and `raw dashboard [ARGS...]`: run the ACP bridge
// (`raw-acp`) or the dashboard gateway (`raw-dashboard`), the executables
// installed beside `raw` (neither is linked into `raw`), in place of this
// process, with ARGS (and raw's --socket, when given).
#pragma once

#include <string>
#include <vector>

#include "clients/cli/cli_context.h"

namespace raw::cli {

// Returns only when raw-acp could not be run.
int AcpCommand(const std::vector<std::string>& args, CliContext& ctx);
int DashboardCommand(const std::vector<std::string>& args, CliContext& ctx);

}  // namespace raw::cli
