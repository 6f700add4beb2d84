// The `raw` executable: the command line (see dispatch.h), with the
// full-screen terminal client behind `raw` and `raw resume`. The one place
// where the two front ends meet.
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "clients/cli/dispatch.h"
#include "clients/cli/exit_codes.h"
#include "clients/tui/tui_main.h"
#include "common/mutex_mode.h"

namespace {

int RunTerminalClient(const raw::cli::InteractiveRequest& request, raw::cli::CliContext& ctx) {
  raw::tui::TuiOptions options;
  options.connect = ctx.connect;
  options.agent = request.agent;
  options.cwd = request.cwd;
  options.session_id = request.session_id;
  options.pick_session = request.pick_session;
  options.plain = request.plain;
  raw::tui::TuiExit exit = raw::tui::RunInteractive(options, ctx.out, ctx.err);
  if (exit.signal != 0) return 128 + exit.signal;
  return raw::cli::ExitCodeFor(exit.status);
}

}  // namespace

int main(int argc, char** argv) {
  raw::ConfigureMutexDeadlockDetection();
  std::vector<std::string> args(argv + 1, argv + argc);
  // The terminal interface needs a terminal on both ends.
  raw::cli::InteractiveLauncher interactive;
  if (isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1) {
    interactive = RunTerminalClient;
  }
  return raw::cli::Dispatch(args, std::cout, std::cerr, raw::ProcessEnv(), interactive,
                            isatty(STDOUT_FILENO) == 1);
}
