// RunInteractive: `raw` without a subcommand (and `raw resume`): the
// full-screen terminal client. Opens the terminal, runs the TuiApp until the
// user quits, restores the terminal and prints how to resume the session.
#pragma once

#include "clients/cli/cli_context.h"
#include "clients/cli/dispatch.h"

namespace raw::tui {

// Returns the exit code: 0 when the user quit, 2 for a usage problem (no
// terminal, unknown agent or session), 1 for other errors, 128+N when
// signal N ended it.
int RunInteractive(const cli::InteractiveRequest& request, cli::CliContext& ctx);

}  // namespace raw::tui
