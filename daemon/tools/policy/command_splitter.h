// SplitShellCommand: the simple commands a bash command line runs, so that a
// rule must allow every one of them.
//
// Understands quoting ('…', "…", \x), the operators && || ; | |& & and
// newlines, subshells ( … ), groups { …; }, command substitution $( … ) and
// `…` (also inside double quotes), and process substitution <( … ) >( … ).
// Each simple command is returned with surrounding whitespace trimmed and
// runs of blanks between words collapsed to one space; quotes are kept as
// written (a rule sees what the model wrote). Redirections stay part of their
// command ("echo hi > f"). Commands inside substitutions are returned too, as
// well as the outer command containing them.
//   "git status && rm -rf x"  -> {"git status", "rm -rf x"}
//   "(cd a; make) | tee log"  -> {"cd a", "make", "tee log"}
// Also: `# comments` (a word starting with '#') are dropped; the reserved
// words that only open or close a compound command (if then else elif fi
// while until do done !) are stripped from the front of a command; a
// redirection after a subshell or group is returned as a command of its own
// ("(a) > f" -> {"a", "> f"}); "$(( … ))" is arithmetic, but commands
// substituted inside it (or inside "${x:-…}") are returned.
// Fails (InvalidArgument, saying what and at which byte offset) on an
// unterminated quote, substitution, subshell or group, unbalanced
// parentheses or braces, a here-document (`<<`: its body is not commands,
// but telling it apart would take the following lines), a '(' inside a
// command (function definitions, case patterns) or nesting deeper than 64
// levels; callers then treat the command as unmatched by allow rules.
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::tools::policy {

absl::StatusOr<std::vector<std::string>> SplitShellCommand(std::string_view command);

}  // namespace raw::tools::policy
