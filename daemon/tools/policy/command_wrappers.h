// UnwrapCommand: the command a simple command runs in its turn, as far as
// its words tell. Knows the transparent prefixes command, builtin, exec,
// env, nohup, nice, time, timeout, xargs, sudo, stdbuf, setsid, doas,
// coproc and busybox (with their options), the commands of find's -exec,
// -execdir, -ok and -okdir, the shells bash, sh, dash, zsh, ksh, mksh, ash
// and rbash given a command string (-c, options before it; -c without one is
// kUnknown, as what appends arguments supplies it), eval, trap and env -S.
// A word of what find's actions or xargs -I run that holds "{}" (or -I's
// string) is not literal: it is replaced when they run.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "daemon/tools/policy/command_splitter.h"

namespace raw::tools::policy {

struct Wrapped {
  enum class Kind {
    kNone,     // runs no other command ("ls", "command -v rm", "env", "bash script.sh")
    kCommand,  // runs each of `commands`
    kLine,     // runs `line`, a command line bash parses (bash -c, eval, trap)
    kUnknown,  // runs a command its words do not tell: `reason` says why
  };
  Kind kind = Kind::kNone;
  // kCommand: each command and its arguments, in the order they appear.
  std::vector<std::vector<ShellWord>> commands;
  bool appends_input = false;  // kCommand: xargs adds arguments read from its input
  // kCommand: the commands run in another directory (env -C, sudo -D,
  // find -execdir and -okdir), so a relative path inside them names a file
  // there.
  bool changes_directory = false;
  // kLine: the command line, its words' values with expansions as written.
  std::string line;
  // kUnknown, and kLine when `line` is built from text only known when the
  // line runs (so it is only an approximation): why the command is unknown.
  std::string reason;
};

// `words` is a simple command from its name on (no leading assignments or
// redirections), words[0].value its name without directories.
Wrapped UnwrapCommand(const std::vector<ShellWord>& words);

}  // namespace raw::tools::policy
