#include "clients/present/diff_text.h"

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace raw::present {

bool LooksLikeDiff(std::string_view text) {
  auto starts = [text](std::string_view p) { return text.substr(0, p.size()) == p; };
  auto contains = [text](std::string_view p) { return text.find(p) != std::string_view::npos; };
  if (starts("diff ")) return true;
  bool headers = starts("--- ") || contains("\n--- ");
  return headers && (starts("@@ ") || contains("\n@@ "));
}

DiffCounts CountDiff(std::string_view diff) {
  DiffCounts counts;
  for (absl::string_view line : absl::StrSplit(absl::string_view(diff.data(), diff.size()), '\n')) {
    if (absl::StartsWith(line, "+++") || absl::StartsWith(line, "---")) continue;
    if (absl::StartsWith(line, "+")) ++counts.added;
    if (absl::StartsWith(line, "-")) ++counts.removed;
  }
  return counts;
}

}  // namespace raw::present
