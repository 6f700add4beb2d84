// The `raw` command line as data: every command with its actions, its
// options and its help lines. `raw --help`, the dispatcher and the shell
// completion scripts (`raw completion`) all read this one table, so they
// cannot disagree.
#pragma once

#include <string>
#include <vector>

#include "clients/cli/args.h"
#include "clients/cli/cli_context.h"

namespace raw::cli {

using CommandFn = int (*)(const std::vector<std::string>&, CliContext&);

struct CommandEntry {
  std::string name;
  // Runs the command with the arguments after its name; nullptr for
  // `resume`, which the dispatcher runs itself (it needs the terminal).
  CommandFn run = nullptr;
  // Words that may follow the name (`start`, `status`, ...); empty when
  // the command takes none.
  std::vector<std::string> actions;
  const std::vector<OptionSpec>& (*options)() = nullptr;
  // The command runs another program in place of `raw` (so `--help` is
  // that program's).
  bool replaces_process = false;
  // Lines of the main help: {usage, what it does}.
  std::vector<std::pair<std::string, std::string>> help;
};

// In the order `raw --help` lists them.
const std::vector<CommandEntry>& CommandTable();
// nullptr for an unknown name.
const CommandEntry* FindCommandEntry(const std::string& name);

// Options before the command (or without one).
const std::vector<OptionSpec>& GlobalOptionSpecs();
const std::vector<OptionSpec>& ResumeOptionSpecs();

// `raw --help`.
std::string MainUsage();

}  // namespace raw::cli
