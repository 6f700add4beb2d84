// ReadCommandArgv: a command written as an argv array in the config file
// (hooks, variables, MCP servers), read and checked one way everywhere.
//
// The value is a non-empty array of strings whose first, the program, is
// not empty. The arguments are as on a command line: they may repeat
// (`["curl", "-H", "a: 1", "-H", "b: 2"]`) or be empty. With a context, a
// program given as a path (not a bare name, which is looked up on PATH) is
// made absolute relative to the config file, as other paths in it are, and
// so is the script an interpreter runs (ScriptArguments, script_args.h),
// bare name or not: `["sh", "hooks/guard.sh"]` runs the config's
// hooks/guard.sh, never one of the directory the command runs in. A
// command with an argument that cannot be resolved so (UnresolvedArguments:
// behind env -C, in env -S's string, after xargs) is refused at that
// argument, the message saying to write an absolute path.
//
// Pure function of its arguments; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/field_reader.h"

namespace raw::config {

// nullopt when `key` is absent (nothing is reported) or invalid (the first
// problem is reported: "expected <what>, got ..." for the whole value, or
// at the entry that is wrong). `what` describes the value with an example.
std::optional<std::vector<std::string>> ReadCommandArgv(FieldReader& r, absl::string_view key,
                                                        absl::string_view what,
                                                        const ParseContext* context,
                                                        std::vector<ConfigProblem>& problems);

}  // namespace raw::config
