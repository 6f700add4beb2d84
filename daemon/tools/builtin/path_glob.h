// PathGlob: shell-style patterns over '/'-separated relative paths, shared
// by builtin/glob (the pattern), builtin/grep (its file filter) and the
// .gitignore rules (gitignore.h).
//
// Syntax: the pattern is split at '/' into segments. A segment "**" matches
// any number of whole path segments (zero or more; at the end of a pattern,
// one or more, so "dir/**" matches what is inside dir but not dir itself).
// Any other segment is matched against one path segment with fnmatch(3):
// `*` any run, `?` one character, `[a-z]`/`[!a-z]` character classes, `\x`
// a literal x; `*` and `?` never match '/' and do match a leading '.'.
// Brace alternatives, "{a,b}" (nested too), are expanded first (PathGlob
// only; .gitignore rules have none).
//
// Thread-safety: immutable after Compile; Matches may run on any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::tools::builtin {

// Pattern and path segments.
std::vector<std::string_view> SplitPath(std::string_view path);

// The last segment of a '/'-separated path (all of it when it has no '/').
std::string_view BaseName(std::string_view path);

// True when the path segments match the pattern segments whole; with
// `prefix`, true when some path below `path` could still match (for pruning
// directories during a walk).
bool MatchSegments(const std::vector<std::string>& pattern,
                   const std::vector<std::string_view>& path, bool prefix);

class PathGlob {
 public:
  // Fails on an empty pattern, unbalanced braces and patterns expanding to
  // more than 256 alternatives.
  static absl::StatusOr<PathGlob> Compile(std::string_view pattern);

  // `path` relative, without leading "./".
  bool Matches(std::string_view path) const;
  // True when a path inside directory `dir` could match.
  bool CouldMatchInside(std::string_view dir) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<std::vector<std::string>> alternatives_;  // segments each
};

// True when `text` contains a glob metacharacter (`*`, `?`, `[`, `{`, `\`).
bool HasGlobMeta(std::string_view text);

}  // namespace raw::tools::builtin
