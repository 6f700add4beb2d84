// The `raw` executable: see dispatch.h.
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "clients/cli/dispatch.h"
#include "clients/tui/tui_main.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // The terminal interface needs a terminal on both ends.
  raw::cli::InteractiveLauncher interactive;
  if (isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1) {
    interactive = raw::tui::RunInteractive;
  }
  return raw::cli::Dispatch(args, std::cout, std::cerr, raw::ProcessEnv(), interactive);
}
