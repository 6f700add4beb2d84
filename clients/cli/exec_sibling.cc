#include "clients/cli/exec_sibling.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "clients/cli/exit_codes.h"

namespace raw::cli {

int ExecSibling(const std::string& program, const std::string& command,
                const std::vector<std::string>& args, CliContext& ctx, bool pass_socket) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    ctx.err << command << ": cannot find raw's own executable: " << ec.message() << "\n";
    return kExitError;
  }
  std::string path = (self.parent_path() / program).string();
  std::vector<std::string> argv = {path};
  if (pass_socket && !ctx.connect.socket_path.empty()) {
    argv.push_back("--socket");
    argv.push_back(ctx.connect.socket_path);
  }
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw_argv;
  for (std::string& a : argv) raw_argv.push_back(a.data());
  raw_argv.push_back(nullptr);
  ctx.out.flush();
  ctx.err.flush();
  execv(path.c_str(), raw_argv.data());
  ctx.err << command << ": cannot run " << path << ": " << std::strerror(errno) << "\n";
  return kExitError;
}

}  // namespace raw::cli
