// ShellScanner: reads one word of a bash command line for the splitter
// (command_splitter.h): quoting ('…', "…", $'…', \x), expansions ($x, ${…},
// $(( … )), $[ … ]), command and process substitution and backquotes,
// building the word as written and after quote removal (ShellWord), and
// noting in the line the constructs through which bash may run hidden
// commands. The splitter, which reads lists of commands, derives from it and
// is called back for the commands inside substitutions.
// One scanner per parse; not thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "daemon/tools/policy/command_splitter.h"

namespace raw::tools::policy {

// A word being scanned, and whether its value so far ends with a '$' that
// bash keeps as a character (so that a following "(" makes "$(" text).
struct WordBuilder {
  ShellWord word;
  bool after_dollar = false;
};

class ShellScanner {
 public:
  virtual ~ShellScanner() = default;

 protected:
  ShellScanner(std::string_view input, ShellLine& line) : in_(input), line_(line) {}

  // Parses a list of commands from the current position up to `close`
  // (')') or, with close == 0, the end of the input; consumes `close`.
  // `opener` names what `close` ends (for errors), opened at `open_at`.
  virtual absl::Status ParseList(char close, int depth, const std::string& opener,
                                 size_t open_at) = 0;
  // Parses `text` (a backquoted command) as a command line of its own.
  virtual absl::Status ParseText(std::string_view text, int depth) = 0;

  // Reads one word from the current position up to a blank or operator.
  absl::Status ScanWord(WordBuilder& w, int depth);

  bool At(size_t offset, char c) const {
    return pos_ + offset < in_.size() && in_[pos_ + offset] == c;
  }
  absl::Status Unterminated(const std::string& what, size_t open_at) const;
  absl::Status CheckDepth(int depth) const;
  void Hidden(const char* why);

  std::string_view in_;
  size_t pos_ = 0;
  ShellLine& line_;

 private:
  // `c` is part of the word's value as is.
  void Literal(WordBuilder& w, char c);
  // in_[start, pos_) is an expansion: kept as written in the value.
  void Expansion(WordBuilder& w, size_t start);
  absl::Status ScanSingleQuoted(WordBuilder& w);
  absl::Status ScanAnsiC(WordBuilder& w);
  absl::Status ScanDoubleQuoted(WordBuilder& w, int depth);
  absl::Status ScanDollar(WordBuilder& w, int depth, bool in_dquote);
  absl::Status ScanSubstitution(WordBuilder& w, int depth, const std::string& what);
  absl::Status ScanArithmetic(WordBuilder& w, int depth);
  absl::Status ScanParameter(WordBuilder& w, int depth, bool in_dquote);
  absl::Status ScanBackticks(WordBuilder& w, int depth, bool in_dquote);
};

}  // namespace raw::tools::policy
