// `raw acp [ARGS...]`: runs the ACP bridge, the `raw-acp` executable
// installed beside `raw` (the bridge is not linked into `raw`), in place of
// this process, with ARGS (and raw's --socket, when given).
#pragma once

#include <string>
#include <vector>

#include "clients/cli/cli_context.h"

namespace raw::cli {

// Returns only when raw-acp could not be run.
int AcpCommand(const std::vector<std::string>& args, CliContext& ctx);

}  // namespace raw::cli
