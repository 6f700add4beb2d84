// CliContext: what every `raw` subcommand receives from the dispatcher: the
// output streams, how to reach the daemon, and the current directory.
// Commands write their results to `out` and everything else (progress,
// diagnostics) to `err`. Not shared between threads, except that `raw run`
// lets its Ctrl-C thread write to the process's stderr directly.
#pragma once

#include <ostream>
#include <string>

#include "clients/lib/raw_client.h"

namespace raw::cli {

struct CliContext {
  std::ostream& out;
  std::ostream& err;
  // Socket from --socket, the environment lookup, autostart policy.
  client::ConnectOptions connect;
  // Absolute; relative paths given on the command line resolve against it.
  std::string cwd;
  // `out` is a terminal (not a pipe or a file a script reads).
  bool out_is_terminal = false;
};

}  // namespace raw::cli
