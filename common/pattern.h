// Pattern: the one pattern syntax of rules (and anywhere else a user writes a
// name or path pattern): a glob, or with a "re:" prefix an RE2 regular
// expression that must match the whole subject.
//
// Glob syntax: `?` one character, `*` any run, `**` any run, `\x` a literal
// x. In kPath style `*` and `?` do not match '/', `**` does (and "a/**/b"
// also matches "a/b"; "**/x" also matches "x"; "a/**" matches everything
// below a, not a itself); in kText style (tool names, commands) `*` matches
// '/' too, so "git diff *" matches "git diff src/a.cc". Every other
// character (including '[' and '{') stands for itself.
//
// Both styles compile to an RE2 program, so matching takes time linear in
// the subject whatever the pattern ("*a*a*a*b" cannot backtrack). A glob
// without wildcards, or whose only wildcard is a trailing run that matches
// anything ("a/b/**", "git status *"), is matched by comparing bytes, which
// gives the same answers without running the program.
// Thread-safety: immutable after Compile; a copy shares the compiled state
// (one reference count); Matches is const.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace re2 {
class RE2;
}

namespace raw {

class Pattern {
 public:
  enum class Style { kText, kPath };

  // Fails with a message saying what is wrong (empty pattern, an invalid
  // regular expression with RE2's reason, a trailing backslash).
  static absl::StatusOr<Pattern> Compile(std::string_view text, Style style);
  // The same, from a process-wide cache of the last compiled patterns (at
  // most kCachedPatterns of each style, then it starts afresh): for
  // patterns made again for each call, such as a path rule anchored at a
  // session's directory, whose compilation would otherwise cost more than
  // the match. Thread-safe.
  static absl::StatusOr<Pattern> CompileCached(std::string_view text, Style style);
  static constexpr size_t kCachedPatterns = 512;

  bool Matches(std::string_view subject) const;
  const std::string& text() const { return state_->text; }
  Style style() const { return state_->style; }
  bool is_regex() const { return state_->is_regex; }

 private:
  // How Matches answers: with the program, or by comparing with `literal`.
  enum class Shortcut { kNone, kExact, kPrefix };
  struct State {
    std::string text;
    Style style = Style::kText;
    bool is_regex = false;
    Shortcut shortcut = Shortcut::kNone;
    std::string literal;  // the text a kExact subject equals or a kPrefix one starts with
    std::unique_ptr<const re2::RE2> regex;  // the compiled glob or "re:" pattern
  };

  explicit Pattern(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  std::shared_ptr<const State> state_;  // never null
};

// `text` as a glob that matches exactly `text`: `*`, `?` and `\` escaped.
// A result starting with "re:" is escaped too, so it is never a regex.
std::string EscapeGlob(std::string_view text);

}  // namespace raw
