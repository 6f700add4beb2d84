// Commands of `raw` that another executable installed beside it carries out
// (raw-acp, raw-dashboard, raw-package), so that `raw` itself loads none of
// their libraries.
#pragma once

#include <string>
#include <vector>

#include "clients/cli/cli_context.h"

namespace raw::cli {

// Runs `program` from raw's own directory in place of this process, with
// `args` after raw's --socket (when given and `pass_socket`). Returns only
// when it could not be run, after saying why under the name `command`.
int ExecSibling(const std::string& program, const std::string& command,
                const std::vector<std::string>& args, CliContext& ctx, bool pass_socket);

}  // namespace raw::cli
