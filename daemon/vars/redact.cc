#include "daemon/vars/redact.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "common/utf8.h"

namespace raw::vars {

std::string Redact(std::string_view text, const std::vector<std::string>& secrets) {
  std::vector<std::pair<absl::string_view, absl::string_view>> replacements;
  replacements.reserve(secrets.size());
  for (const std::string& secret : secrets) {
    if (!secret.empty()) replacements.emplace_back(secret, kRedactedMarker);
  }
  if (replacements.empty()) return std::string(text);
  // StrReplaceAll takes the leftmost match, the longest at a position, and
  // never rescans replaced text.
  return absl::StrReplaceAll(absl::string_view(text.data(), text.size()), replacements);
}

void SanitizeAndRedact(std::string& text, const std::vector<std::string>& secrets) {
  if (ValidUtf8Prefix(text) != text.size()) text = SanitizeUtf8(text);
  const bool holds_secret = std::any_of(secrets.begin(), secrets.end(), [&text](const auto& s) {
    return !s.empty() && text.find(s) != std::string::npos;
  });
  if (holds_secret) text = Redact(text, secrets);
}

size_t SafeRedactionCut(std::string_view text, const std::vector<std::string>& secrets) {
  size_t cut = text.size();
  // Moving the cut back can put it inside an earlier occurrence; repeat
  // until no secret spans it. Only starts within the longest secret's
  // length before the cut can span it, so each pass is bounded by the
  // secrets' sizes, not by the text's.
  for (bool moved = true; moved;) {
    moved = false;
    for (const std::string& secret : secrets) {
      if (secret.empty()) continue;
      size_t first = cut >= secret.size() ? cut - secret.size() + 1 : 0;
      for (size_t start = first; start < cut; ++start) {
        size_t available = std::min(secret.size(), text.size() - start);
        if (text.compare(start, available, secret, 0, available) == 0) {
          cut = start;
          moved = true;
          break;
        }
      }
    }
  }
  return cut;
}

}  // namespace raw::vars
