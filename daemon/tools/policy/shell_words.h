// Shell words: the lexical facts about single bash words that command rules
// need (ANSI-C quote decoding, redirections, assignments, variable names,
// constant arithmetic), and the reasons given when bash may run commands
// that no static reading of a command line can see.
// Pure functions over strings; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace raw::tools::policy {

// Why a command line hides commands from a static reading. Bash evaluates
// array subscripts inside arithmetic and inside variable names given as
// text, so a quoted 'a[$(cmd)]' can run cmd.
inline constexpr char kHiddenInQuotes[] =
    "the command line hides a command in quotes that bash may evaluate";
inline constexpr char kHiddenInArithmetic[] =
    "the command line evaluates variables as arithmetic, which can run commands hidden in "
    "their values";
inline constexpr char kHiddenInName[] =
    "the command line uses text as a variable name, which can run commands hidden in it";
inline constexpr char kHiddenInPrompt[] =
    "the command line expands text as a prompt, which runs the commands in it";
inline constexpr char kKeywordMode[] =
    "the command line may turn on keyword mode (set -k), where NAME=value after a command name "
    "sets that command's environment";
inline constexpr char kAssignedInExpansion[] =
    "the command line assigns a variable that can change what commands run in an expansion "
    "(${NAME:=value})";

// The value of the body of $'…' (without the quotes): \n \t \\ \' \xHH
// \NNN \uHHHH \cX and the other bash escapes decoded; unknown escapes kept.
// Cut at the first NUL an escape produces, as bash cuts it.
std::string DecodeAnsiC(std::string_view body);

// True when `expression` can only be constant arithmetic: digits, blanks and
// operators, no variable (whose value bash would evaluate in turn).
bool IsConstantArithmetic(std::string_view expression);

// Why the parameter expansion `text` ("${…}" as written) may run hidden
// commands (indirection, a subscript or offset on variables, @P), or null.
const char* HiddenInParameter(std::string_view text);

enum class Redirection {
  kNone,      // not a redirection
  kOperator,  // an operator alone (">", "2>>", "<<<"); the next word is its target
  kComplete,  // operator and target in one word (">f", "2>&1", "&>log")
};
// How the word written as `text` redirects.
Redirection ClassifyRedirection(std::string_view text);

// The file a redirection writes to, given the operator and target of one
// redirection (its whole word for an operator and target written together,
// or the operator word and then the target word's value): ">f", ">>f", ">|f",
// "<>f", "&>f", "&>>f", ">&f" and with a file descriptor number or {name}
// before them write `f`. Nullopt for redirections that write no file:
// input ("<f", "<<<w"), duplication and closing (">&2", "2>&1", ">&-").
std::optional<std::string_view> WrittenFile(std::string_view redirection);

// True when `text` (as written) could still grow into a redirection
// operator: digits or {varname} followed by < > & | only ("2", "2>", ">>",
// "{fd}").
bool IsRedirectionPrefix(std::string_view text);

// True for a name bash accepts as a variable: [A-Za-z_][A-Za-z0-9_]*.
bool IsVariableName(std::string_view text);

// True when the word written as `text` is an assignment bash makes before a
// command: NAME=…, NAME+=…, NAME[subscript]=….
bool IsAssignment(std::string_view text);

// Why the assignment written as `text` may run hidden commands (a subscript
// on variables, PS4), or null.
const char* HiddenInAssignment(std::string_view text);

}  // namespace raw::tools::policy
