#include "daemon/vars/command_output.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/utf8.h"

namespace raw::vars {

void StripOneLineBreak(std::string& value) {
  if (!value.empty() && value.back() == '\n') {
    value.pop_back();
    if (!value.empty() && value.back() == '\r') value.pop_back();
  }
}

std::string StderrExcerpt(absl::string_view err) {
  absl::string_view last;
  for (absl::string_view line : absl::StrSplit(err, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) last = line;
  }
  if (last.empty()) return "";
  std::string text = SanitizeUtf8(std::string_view(last.data(), last.size()));
  if (text.size() <= kMaxStderrShown) return absl::StrCat(": ", text);
  text.resize(Utf8Floor(text, kMaxStderrShown));
  return absl::StrCat(": ", text, "...");
}

}  // namespace raw::vars
