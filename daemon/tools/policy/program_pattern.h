// ProgramPattern: the program-level command pattern "allow for this session"
// may offer besides the exact command: "ls *" for "ls -la", "git status *"
// for "git status -s".
//
// Widening is offered only from a fixed allowlist of programs (and, for
// git, npm, docker and podman, of subcommands) whose arguments cannot make
// them run a program or code the arguments give, send data to a host they
// name, or write a file other than what the program exists to change
// (mkdir, touch, git commit, git checkout, …). Everything else -- `uv run`,
// `npm run`, `make`, `git log` (which writes any file through `--output`),
// `tar` (`--to-command`), `rg` (`--pre`), `sort` (`--compress-program`) --
// is allowed exactly only. None (nullopt) also when the command is not one
// plain simple command (assignments, a quoted or expanded name or
// subcommand, a path as the name) or has a hidden evaluation. The list is
// spelled out in docs/tools.md; change both together. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace raw::tools::policy {

// `command` is one simple command as the analyzer gives it
// (CommandSubject::text of kind kCommand).
std::optional<std::string> ProgramPattern(std::string_view command);

}  // namespace raw::tools::policy
