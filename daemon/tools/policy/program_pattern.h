// ProgramPattern: the program-level command pattern "allow for this session"
// may offer besides the exact command, where widening is safe: "echo *" for
// "echo hi", "git status *" for "git status -s" (program and subcommand for
// tools whose first argument names what they do: git, npm, cargo, docker, …).
//
// None (nullopt) when widening would allow more than the program: a command
// that is not one plain simple command (leading assignments, a quoted or
// expanded name or subcommand, a path as the name), a shell or other
// interpreter (bash, python, node, perl, awk, sed, …), a prefix or other
// program that runs commands (env, sudo, xargs, find, ssh, watch, …), a
// builtin that evaluates text (eval, source, declare, read, printf, test,
// …), or a subcommand tool without a plain subcommand ("git -c x status").
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace raw::tools::policy {

// `command` is one simple command as the analyzer gives it
// (CommandSubject::text of kind kCommand).
std::optional<std::string> ProgramPattern(std::string_view command);

}  // namespace raw::tools::policy
