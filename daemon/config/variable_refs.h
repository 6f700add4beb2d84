// VariableRefs: the `${NAME}` syntax of the config values that may hold
// variable references (models.<n>.api_key, models.<n>.headers.<h>,
// mcp_servers.<n>.env.<k>, mcp_servers.<n>.headers.<h>).
//
//   "${NAME}"  the value of variable NAME (^[A-Za-z_][A-Za-z0-9_]*$)
//   "$${"      a literal "${"
//   any other "$" is literal
//
// A "${" without its "}", or with something other than a variable name
// inside, is an error. Messages give the character position and never echo
// the text: a value holding references may hold a secret as well.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace raw::config {

// ^[A-Za-z_][A-Za-z0-9_]*$: variable names, and environment variable names.
bool IsVariableName(absl::string_view name);

struct TemplatePart {
  enum class Kind { kText, kVariable };
  Kind kind = Kind::kText;
  std::string text;  // kText: literal text ("$${" already unescaped); kVariable: the name

  bool operator==(const TemplatePart&) const = default;
};

// Splits `value` into literal text and references, in order. Adjacent
// literal text is one part. kInvalidArgument for a malformed reference.
absl::StatusOr<std::vector<TemplatePart>> ParseTemplate(absl::string_view value);

// The names `value` references, in order of first use, each once.
absl::StatusOr<std::vector<std::string>> ReferencedVariables(absl::string_view value);

}  // namespace raw::config
