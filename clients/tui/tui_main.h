// RunInteractive: `raw` without a subcommand (and `raw resume`): the
// full-screen terminal client. Opens the terminal, runs the TuiApp until the
// user quits, restores the terminal and prints how to resume the session.
//
// The command line's dispatcher reaches it through the `raw` executable
// (clients/cli/main.cc), which maps the outcome to an exit code; the
// terminal client itself knows nothing of the command line.
#pragma once

#include <ostream>

#include "clients/tui/tui_options.h"

namespace raw::tui {

// Fills in the client name ("raw (pid N)"), NO_COLOR (read through
// options.connect.env) and a short call timeout. `out` receives the resume
// hint, `err` a fatal message.
TuiExit RunInteractive(TuiOptions options, std::ostream& out, std::ostream& err);

}  // namespace raw::tui
