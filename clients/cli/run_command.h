// `raw run`: send one prompt to an agent and print the answer as it
// streams. See docs/cli.md for the options, output and exit codes.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "clients/cli/args.h"
#include "clients/cli/cli_context.h"
#include "clients/cli/event_printer.h"

namespace raw::cli {

struct RunOptions {
  std::string agent;
  std::string cwd;         // absolute
  std::string session_id;
  std::string socket;      // --socket; empty keeps the dispatcher's choice
  OutputFormat format = OutputFormat::kText;
  std::string prompt;      // the positionals joined by spaces; "-" reads stdin
  bool help = false;
  bool yes = false;                // --yes: approve every call that asks
  bool timings = false;            // --timings: Raw's own time per step after the turn
  bool prompt_from_stdin = false;  // set by RunCommand for prompt "-"
  std::vector<std::string> images;  // --image files, absolute, in order
};

extern const char kRunUsage[];

// Parses the arguments after `run`. Relative --cwd resolves against `cwd`
// (the default directory). Options end at the first prompt word.
absl::StatusOr<RunOptions> ParseRunArgs(const std::vector<std::string>& args,
                                        const std::string& cwd);

// Runs the command; returns the exit code. Reads the prompt from stdin when
// it is "-". Installs a SIGINT watcher while the turn runs: the first Ctrl-C
// interrupts the turn, the second exits with 130 at once.
int RunCommand(const std::vector<std::string>& args, CliContext& ctx);

// The options the command takes (for help and shell completion).
const std::vector<OptionSpec>& RunOptionSpecs();

}  // namespace raw::cli
