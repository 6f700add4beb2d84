// RunOnTerminal: runs a command on a pseudo-terminal of its own and types
// on it as a user would: each answer only once the output has shown what
// it answers (a program that drops input typed before its question, as
// `raw run` does, then still gets it).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/test_daemon.h"

namespace raw::e2e {

// One exchange: once the output holds `wait_for` (after the previous
// exchange's text), `type` is written to the terminal.
struct TerminalExchange {
  std::string wait_for;
  std::string type;
};

// Runs `argv` (argv[0] a path) with `env` on a new pseudo-terminal, going
// through `exchanges` in order, and collects what the terminal shows until
// the command ends. `out` holds the terminal's output (stdout and stderr
// alike, with its \r\n line ends); the command is killed when the terminal
// shows nothing for 60 s.
CommandResult RunOnTerminal(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& env,
                            const std::vector<TerminalExchange>& exchanges);

}  // namespace raw::e2e
