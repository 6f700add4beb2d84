#include "clients/cli/acp_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "clients/cli/exit_codes.h"

namespace raw::cli {

int AcpCommand(const std::vector<std::string>& args, CliContext& ctx) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    ctx.err << "raw acp: cannot find raw's own executable: " << ec.message() << "\n";
    return kExitError;
  }
  std::string bridge = (self.parent_path() / "raw-acp").string();
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
  ctx.err << "raw acp: cannot run " << bridge << ": " << std::strerror(errno) << "\n";
  return kExitError;
}

}  // namespace raw::cli
