// raw-package: `raw package ...` (raw runs it in its own place, with the
// same arguments after "package").
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "clients/cli/cli_context.h"
#include "clients/package/package_actions.h"
#include "common/mutex_mode.h"
#include "common/paths.h"
#include "common/version.h"

int main(int argc, char** argv) {
  raw::ConfigureMutexDeadlockDetection();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && args[0] == "--version") {
    std::cout << "raw-package " << raw::kVersion << "\n";
    return 0;
  }
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  raw::cli::CliContext ctx{std::cout, std::cerr, raw::client::ConnectOptions(),
                           ec ? std::string("/") : cwd.string()};
  ctx.connect.env = raw::ProcessEnv();
  return raw::cli::RunPackage(args, ctx);
}
