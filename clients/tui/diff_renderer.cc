#include "clients/tui/diff_renderer.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "clients/tui/text_width.h"

namespace raw::tui {

Lines RenderDiff(std::string_view diff, int width, const StyledLine& indent) {
  Lines out;
  std::string text = SanitizeForTerminal(diff);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    Style style;
    if (absl::StartsWith(line, "+++ ") || absl::StartsWith(line, "--- ") ||
        absl::StartsWith(line, "diff ")) {
      style = Style{Role::kDefault, kAttrBold};
    } else if (absl::StartsWith(line, "@@")) {
      style = Style{Role::kDiffHunk};
    } else if (absl::StartsWith(line, "+")) {
      style = Style{Role::kDiffAdd};
    } else if (absl::StartsWith(line, "-")) {
      style = Style{Role::kDiffDel};
    } else if (absl::StartsWith(line, "\\")) {
      style = Style{Role::kDim};
    }
    for (auto& wrapped : HardWrap(StyledLine(std::string(line), style), width, indent, indent)) {
      out.push_back(std::move(wrapped));
    }
  }
  return out;
}

}  // namespace raw::tui
