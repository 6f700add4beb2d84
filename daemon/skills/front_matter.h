// FrontMatter: the header of a SKILL.md, between a first line "---" and the
// next line "---", as `key: value` lines; the rest of the file is the body.
//
// The accepted form is a small, strict subset of YAML: `key: value` lines
// (keys of letters, digits, '_' and '-'; each key once), values optionally in
// single or double quotes, lines starting with '#' as comments, blank lines,
// and indented lines continuing the previous value (joined with a space, or
// with a newline after a `|` block marker; `>` folds like plain
// continuation). Anything else is an error naming the file and line.
// Thread-safety: pure function.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace raw::skills {

struct FrontMatter {
  std::map<std::string, std::string> fields;
  std::string body;  // after the closing "---" line, leading blank lines dropped
};

// `file` names the file in error messages ("<file>: ...", "<file>:3: ...").
absl::StatusOr<FrontMatter> ParseFrontMatter(std::string_view text, const std::string& file);

}  // namespace raw::skills
