#include "daemon/config/variable_refs.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace raw::config {

bool IsVariableName(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

absl::StatusOr<std::vector<TemplatePart>> ParseTemplate(absl::string_view value) {
  std::vector<TemplatePart> parts;
  auto append_text = [&parts](absl::string_view text) {
    if (text.empty()) return;
    if (parts.empty() || parts.back().kind != TemplatePart::Kind::kText) {
      parts.push_back({TemplatePart::Kind::kText, ""});
    }
    absl::StrAppend(&parts.back().text, text);
  };
  size_t i = 0;
  while (i < value.size()) {
    size_t dollar = value.find('$', i);
    if (dollar == absl::string_view::npos) {
      append_text(value.substr(i));
      break;
    }
    append_text(value.substr(i, dollar - i));
    absl::string_view rest = value.substr(dollar);
    if (absl::StartsWith(rest, "$${")) {
      append_text("${");
      i = dollar + 3;
    } else if (absl::StartsWith(rest, "${")) {
      size_t close = value.find('}', dollar + 2);
      if (close == absl::string_view::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("the \"${\" at character ", dollar + 1,
                         " has no closing \"}\" (write \"$${\" for a literal \"${\")"));
      }
      absl::string_view name = value.substr(dollar + 2, close - dollar - 2);
      if (!IsVariableName(name)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the reference at character ", dollar + 1,
            " does not hold a variable name (letters, digits and '_', not starting with a "
            "digit; write \"$${\" for a literal \"${\")"));
      }
      parts.push_back({TemplatePart::Kind::kVariable, std::string(name)});
      i = close + 1;
    } else {
      append_text("$");
      i = dollar + 1;
    }
  }
  return parts;
}

absl::StatusOr<std::vector<std::string>> ReferencedVariables(absl::string_view value) {
  absl::StatusOr<std::vector<TemplatePart>> parts = ParseTemplate(value);
  if (!parts.ok()) return parts.status();
  std::vector<std::string> names;
  for (const TemplatePart& part : *parts) {
    if (part.kind != TemplatePart::Kind::kVariable) continue;
    if (std::find(names.begin(), names.end(), part.text) == names.end()) {
      names.push_back(part.text);
    }
  }
  return names;
}

}  // namespace raw::config
