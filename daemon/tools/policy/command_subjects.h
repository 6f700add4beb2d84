// AnalyzeShellCommand: the subjects command rules are matched against for a
// bash command line, and whether allow patterns may decide it at all.
//
// Every simple command (command_splitter.h) is a subject as written. Then,
// as far as can be known statically, the command as bash runs it:
// - its canonical form: leading assignments and all redirections dropped,
//   quotes and backslashes removed from every word, the command name without
//   its directories ("FOO=1 \rm 'a b' 2>/dev/null" -> "rm a b");
// - the command a transparent prefix runs (command_wrappers.h: "nice -n 5
//   rm x" also has the subject "rm x"; xargs's shows the arguments it reads
//   from its input as " …": "xargs rm" -> "rm …");
// - the commands of a command string (bash -c "…", sh -c, eval, trap, env
//   -S), parsed in turn, to the same nesting limit as the splitter.
// Every file a redirection writes to (">f", ">>f", "&>f", "2>f", "<>f",
// ">|f"; not "2>&1", not input) is a kRedirect subject: `allow "echo *"`
// covers the command, not `echo x >> ~/.bashrc`. The operator is read as
// written, the target after quote removal: >'&'1 writes the file "&1".
// A command form is decided like any command: every rule applies and an
// allowed call needs it allowed. A canonical form only restricts: a deny or
// ask rule matching it counts, an allow rule or no rule does not. So
// `deny "rm *"` catches "FOO=1 rm x" and "\rm x", but `allow "make *"` does
// not allow "CC=evil make" (assignments like PATH=, LD_PRELOAD= or
// GIT_SSH_COMMAND= change what a command does; an allow pattern must cover
// them as written).
//
// The line is opaque (allow patterns must not decide it; deny and ask rules
// still see every subject found) when bash may run commands no static
// reading sees: commands hidden in quotes, arithmetic or variable names
// (command_splitter.h, hidden_evaluation.h), a command name that is only
// known when the line runs ("$cmd x"), a command string that is (bash -c
// "$x", eval "$x"), a prefix whose options are not understood, a shell
// reading commands from its input ("… | bash"), a command string that
// cannot be split, or a command name made to run something else (hash -p,
// setting BASH_CMDS, enable -f, a function definition).
// Fails like the splitter when the line itself cannot be split.
// Names of variables set before a command, after env or sudo (which keep
// them part of the command they run: "env GIT_PAGER=x git log" is the
// subject "GIT_PAGER=x git log", not "git log"), or exported, that change
// what commands run (LD_PRELOAD, GIT_*, PATH, …) are listed in `environment`.
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::tools::policy {

struct CommandSubject {
  enum class Kind {
    kCommand,    // a command the line runs: every rule applies
    kCanonical,  // a form of the command before it: only deny and ask rules count
    kRedirect,   // a file a redirection writes to: only redirect rules apply
  };
  Kind kind = Kind::kCommand;
  // kRedirect: the target after quote removal, as written otherwise
  // ("~/.bashrc", "$LOG").
  std::string text;
  // kRedirect: false when the target is only known when the line runs (an
  // expansion, a glob, "~user", a relative path after a command that may
  // change the working directory: cd, pushd, popd, source, env -C, …, or
  // anywhere in a line that may run it again: a loop, a trap, find, xargs;
  // any path after a command that may make a link or directory, see
  // docs/tools.md); no allow pattern can match it then.
  bool known = true;

  bool operator==(const CommandSubject&) const = default;
};

struct CommandSubjects {
  // Empty for a line that runs no command. Redirect subjects follow the
  // command they belong to.
  std::vector<CommandSubject> subjects;
  // Why allow patterns must not decide the line; empty when they may.
  std::string opaque_reason;
  // Variables the line sets (before a command, after env or sudo, or with
  // export, declare, typeset, readonly or local) that change what commands
  // run (environment_names.h), each once, in order.
  std::vector<std::string> environment;
};

absl::StatusOr<CommandSubjects> AnalyzeShellCommand(std::string_view command);

}  // namespace raw::tools::policy
