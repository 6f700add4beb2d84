// `raw completion bash|zsh|fish`: prints a completion script for that
// shell, generated from the command table (command_table.h): commands,
// their actions and their options, with file names after --config and
// --socket and directories after --cwd. The build writes the three scripts
// into share/ and the install puts them where each shell looks.
#pragma once

#include <string>
#include <vector>

#include "clients/cli/args.h"
#include "clients/cli/cli_context.h"

namespace raw::cli {

enum class Shell { kBash, kZsh, kFish };

std::string CompletionScript(Shell shell);

int CompletionCommand(const std::vector<std::string>& args, CliContext& ctx);
const std::vector<OptionSpec>& CompletionOptionSpecs();

}  // namespace raw::cli
