#include "daemon/vars/redact.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
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

size_t SafeRedactionStart(std::string_view text, size_t start,
                          const std::vector<std::string>& secrets) {
  size_t s = start;
  if (s >= text.size()) return text.size();
  // Moving the start forward can put it inside a later occurrence; repeat
  // until no secret spans it. An occurrence spanning s begins within a
  // secret's length before it (possibly before `text`, where only its
  // visible part can be compared).
  for (bool moved = true; moved;) {
    moved = false;
    for (const std::string& secret : secrets) {
      if (secret.empty()) continue;
      const size_t len = secret.size();
      // Occurrence starts j = s - back for back in [1, len - 1], j possibly
      // negative; it spans s when it does not end at or before s.
      for (size_t back = len - 1; back >= 1; --back) {
        size_t visible_from = back > s ? back - s : 0;  // bytes of the secret before `text`
        size_t begin = s - (back - visible_from);
        size_t available = std::min(len - visible_from, text.size() - begin);
        if (available == 0) continue;  // s is the end of `text`: nothing follows
        if (text.compare(begin, available, secret, visible_from, available) == 0) {
          s = begin + (len - visible_from);  // past it
          if (s >= text.size()) return text.size();
          moved = true;
          break;
        }
      }
    }
  }
  return s;
}

std::string JsonEscapedForm(std::string_view secret) {
  std::string out;
  out.reserve(secret.size() + 8);
  for (char c : secret) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20) {
          absl::StrAppend(&out, "\\u00", absl::Hex(u, absl::kZeroPad2));
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace raw::vars
