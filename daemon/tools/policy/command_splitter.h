// SplitShellCommand / ParseShellLine: the simple commands a bash command
// line runs, so that a rule must allow every one of them.
//
// Understands quoting ('…', "…", $'…', \x), the operators && || ; | |& &
// and newlines, subshells ( … ), groups { …; }, tests [[ … ]] (one command;
// && || ( ) inside do not split), command substitution $( … ) and `…`
// (also inside double quotes), and process substitution <( … ) >( … ).
// Each simple command is returned with surrounding whitespace trimmed and
// runs of blanks between words collapsed to one space; quotes are kept as
// written (a rule sees what the model wrote). Redirections stay part of their
// command ("echo hi > f"); a redirection operator starts a word of its own,
// as in bash ("echo a>b" -> "echo a >b"). Commands inside substitutions are
// returned too, as well as the outer command containing them.
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
// command (function definitions, case patterns, array assignments) or
// nesting deeper than kMaxShellNesting levels, a line whose reading would
// take more steps than a budget linear in its length (shell_scanner.h), or
// a line continuation the line reads differently once it is removed;
// callers then treat the command as unmatched by allow rules.
// Line continuations (backslash-newline) are removed where bash removes
// them (not in single quotes, $'…' or comments; in backquotes, everywhere)
// and the line read again without them, since they may join an operator
// ("<\⏎<" is "<<"): words as written are then without them.
//
// ParseShellLine gives the same commands as words, each also after quote
// removal, and lists the constructs through which bash may run commands no
// static reading sees (shell_words.h): quoted text holding "$(", "${" or a
// backquote (bash evaluates array subscripts in arithmetic and in variable
// names given as text, so echo $(( ${y:-'a[$(cmd)]'} )) runs cmd),
// arithmetic on variables ($(( x )), $[ x ], (( … )), ${s:x}, ${a[x]}),
// indirection ${!x} and prompt expansion ${x@P}.
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::tools::policy {

// Deeper nesting than any hand-written command needs; bounds the recursion,
// also across command strings parsed again (bash -c "…", eval).
inline constexpr int kMaxShellNesting = 64;

struct ShellWord {
  std::string text;  // as written
  // After quote removal: quotes and backslashes undone, $'…' decoded;
  // expansions ($x, ${…}, $( … ), `…`, $(( … )), <( … )) kept as written.
  std::string value;
  // True when `value` is exactly what bash passes: no expansion, and no
  // unquoted glob (* ? […]) or brace expansion ({a,b} {1..3}).
  bool literal = true;

  bool operator==(const ShellWord&) const = default;
};

struct SimpleCommand {
  std::vector<ShellWord> words;

  std::string Text() const;  // the words as written, one space apart
};

struct ShellLine {
  std::vector<SimpleCommand> commands;  // in SplitShellCommand's order
  // Why bash may run commands no static reading of the line sees, one
  // reason per kind found (shell_words.h); empty when none.
  std::vector<std::string> hidden;
};

// `depth` is the nesting the line starts at (a command string inside another
// line is parsed at its depth + 1).
absl::StatusOr<ShellLine> ParseShellLine(std::string_view command, int depth = 0);

absl::StatusOr<std::vector<std::string>> SplitShellCommand(std::string_view command);

}  // namespace raw::tools::policy
