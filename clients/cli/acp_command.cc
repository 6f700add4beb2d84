#include "clients/cli/acp_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "clients/cli/exit_codes.h"

namespace raw::cli {

namespace {

// Runs `program` from raw's own directory in place of this process.
int ExecSibling(const std::string& program, const std::string& command,
                const std::vector<std::string>& args, CliContext& ctx) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    ctx.err << command << ": cannot find raw's own executable: " << ec.message() << "\n";
    return kExitError;
  }
  std::string bridge = (self.parent_path() / program).string();
  std::vector<std::string> argv = {bridge};
  if (!ctx.connect.socket_path.empty()) {
    argv.push_back("--socket");
    argv.push_back(ctx.connect.socket_path);
  }
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw_argv;
  for (std::string& a : argv) raw_argv.push_back(a.data());
  raw_argv.push_back(nullptr);
  ctx.out.flush();
  ctx.err.flush();
  execv(bridge.c_str(), raw_argv.data());
  ctx.err << command << ": cannot run " << bridge << ": " << std::strerror(errno) << "\n";
  return kExitError;
}

}  // namespace

int AcpCommand(const std::vector<std::string>& args, CliContext& ctx) {
  return ExecSibling("raw-acp", "raw acp", args, ctx);
}

int DashboardCommand(const std::vector<std::string>& args, CliContext& ctx) {
  return ExecSibling("raw-dashboard", "raw dashboard", args, ctx);
}

}  // namespace raw::cli
