// The `raw` command line: global options, then one subcommand.
//
//   raw [--socket PATH] COMMAND [ARGS...]
//   raw [--socket PATH] [--agent NAME] [--cwd DIR] [--plain]
//   raw [--socket PATH] resume [--plain] [ID]
//
// Dispatch parses the global options (which end at the command name) and
// hands the remaining arguments to the command. Without a command, and for
// `resume`, it asks the interactive launcher (the full-screen terminal
// client) to open a session; without a launcher (no terminal), `raw` alone
// prints the help. Single-threaded; the environment comes only through
// `env`.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "clients/cli/cli_context.h"
#include "common/paths.h"

namespace raw::cli {

// What the interactive client is asked to open.
struct InteractiveRequest {
  std::string agent;       // a new session's agent (empty: the default)
  std::string cwd;         // a new session's directory, absolute
  std::string session_id;  // `raw resume ID`
  bool pick_session = false;  // `raw resume` without an id
  bool plain = false;         // --plain: no colours, ASCII borders
};

// Runs the interactive client; returns the exit code.
using InteractiveLauncher = std::function<int(const InteractiveRequest&, CliContext&)>;

// `args` excludes the program name. Returns the exit code. `interactive`
// is null when there is no terminal to run the interactive client on;
// `out_is_terminal` says whether `out` is one.
int Dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const EnvLookup& env, const InteractiveLauncher& interactive = nullptr,
             bool out_is_terminal = false);

}  // namespace raw::cli
