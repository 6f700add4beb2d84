// ShellScanner: reads one word of a bash command line for the splitter
// (command_splitter.h): quoting ('…', "…", $'…', \x), expansions ($x, ${…},
// $(( … )), $[ … ]), command and process substitution and backquotes,
// building the word as written and after quote removal (ShellWord), and
// noting in the line the constructs through which bash may run hidden
// commands. The splitter, which reads lists of commands, derives from it and
// is called back for the commands inside substitutions.
// One scanner per parse; not thread-safe.
//
// Work is bounded: a "$((" that does not close as arithmetic is read again
// as a command substitution, and a backquoted command is parsed again from
// its unescaped text, so without care a line nesting them costs 2^depth
// steps. Each scanner remembers which "$((" did not close and what each
// backquoted command parsed to, so a region is read again at most once per
// enclosing level; and every parse shares a step budget (ScanWork) over the
// line and the backquoted commands it parses, refusing a line that would
// take more.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "daemon/tools/policy/command_splitter.h"

namespace raw::tools::policy {

// A word being scanned, and whether its value so far ends with a '$' that
// bash keeps as a character (so that a following "(" makes "$(" text).
struct WordBuilder {
  ShellWord word;
  bool after_dollar = false;
};

// The steps one parse may take, shared by the scanners of its backquoted
// commands. A step is one byte read by a scanning loop.
struct ScanWork {
  explicit ScanWork(size_t line_size) : limit(kStepsPerByte * line_size + kBaseSteps) {}

  // Room for reading each byte once per level of nesting, and more: only a
  // line built to make the scanner read it again and again runs out.
  static constexpr size_t kStepsPerByte = 2 * kMaxShellNesting;
  static constexpr size_t kBaseSteps = 1 << 16;
  size_t used = 0;
  const size_t limit;
  // The deepest nesting CheckDepth has seen, to learn how deep a
  // backquoted command nests when it is parsed.
  int deepest = 0;
};

class ShellScanner {
 public:
  virtual ~ShellScanner() = default;

 protected:
  ShellScanner(std::string_view input, ShellLine& line, ScanWork& work)
      : in_(input), line_(line), work_(work) {}

  // Parses a list of commands from the current position up to `close`
  // (')') or, with close == 0, the end of the input; consumes `close`.
  // `opener` names what `close` ends (for errors), opened at `open_at`.
  virtual absl::Status ParseList(char close, int depth, const std::string& opener,
                                 size_t open_at) = 0;
  // Parses `text` (a backquoted command) as a command line of its own,
  // into `into`, sharing this scanner's ScanWork.
  virtual absl::Status ParseText(std::string_view text, int depth, ShellLine& into) = 0;

  // Reads one word from the current position up to a blank or operator.
  absl::Status ScanWord(WordBuilder& w, int depth);

  bool At(size_t offset, char c) const {
    return pos_ + offset < in_.size() && in_[pos_ + offset] == c;
  }
  absl::Status Unterminated(const std::string& what, size_t open_at) const;
  // Fails when `depth` is deeper than kMaxShellNesting; notes it in work_.
  absl::Status CheckDepth(int depth);
  void Hidden(const char* why);
  // Counts `steps` against the parse's budget; fails once it is spent.
  absl::Status Spend(size_t steps);

  std::string_view in_;
  size_t pos_ = 0;
  ShellLine& line_;
  ScanWork& work_;
  // Where this scanner read a line continuation (backslash-newline) that
  // bash removes before it reads the text (outside single quotes, $'…' and
  // comments), and the spans [open, close] where it kept them as written
  // (single quotes, $'…', comments). Bash removes a continuation even
  // inside an operator ("<\⏎<" is "<<"), which the scanner cannot see from
  // the text as written: the splitter reads such a line again with them
  // removed.
  std::set<size_t> continuations_;
  std::vector<std::pair<size_t, size_t>> kept_spans_;

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
  // '…' inside "${…}": read to its closing quote, expanding what it holds.
  absl::Status ScanQuotedInParameter(WordBuilder& w, int depth);

  // Offsets of each "$((" found not to close as arithmetic. Whether it
  // closes depends on the text alone; read again as a substitution, what it
  // holds nests at least as deep, so the depth limit still holds.
  std::set<size_t> open_arithmetic_;
  // What the backquoted command at (offset, in double quotes) parsed to,
  // how many levels it nests below its backquote, and the offset just past
  // its closing backquote. The same text may be reached again at another
  // depth (as arithmetic, then as a substitution): the depth limit is then
  // checked against `height`.
  struct ParsedBackquote {
    ShellLine line;
    int height = 0;
    size_t end = 0;
  };
  std::map<std::pair<size_t, bool>, ParsedBackquote> backquotes_;
};

}  // namespace raw::tools::policy
