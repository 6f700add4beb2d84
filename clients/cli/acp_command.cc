#include "clients/cli/acp_command.h"

#include "clients/cli/exec_sibling.h"

namespace raw::cli {

int AcpCommand(const std::vector<std::string>& args, CliContext& ctx) {
  return ExecSibling("raw-acp", "raw acp", args, ctx, /*pass_socket=*/true);
}

int DashboardCommand(const std::vector<std::string>& args, CliContext& ctx) {
  return ExecSibling("raw-dashboard", "raw dashboard", args, ctx, /*pass_socket=*/true);
}

}  // namespace raw::cli
