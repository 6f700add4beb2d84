#include "daemon/vars/redact.h"

#include <utility>

#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"

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

}  // namespace raw::vars
