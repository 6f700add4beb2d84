#include "common/utf8.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace raw {
namespace {

// Length of the well-formed sequence starting at s[i], or 0.
size_t SequenceLength(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
  for (size_t k = 1; k < len; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  bool overlong = (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
                  (len == 4 && cp < 0x10000);
  if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

// Characters that move the cursor, change the terminal or reorder text.
bool UnsafeToShow(char32_t cp) {
  if (cp < 0x20) return cp != '\n' && cp != '\t';
  if (cp >= 0x7f && cp < 0xa0) return true;
  return IsBidiFormatting(cp);
}

}  // namespace

size_t Utf8SequenceLength(std::string_view s, size_t i) { return SequenceLength(s, i); }

size_t ValidUtf8Prefix(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // Runs of ASCII, eight bytes at a time: most text is ASCII.
    while (i + 8 <= s.size()) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, sizeof word);
      if ((word & 0x8080808080808080ULL) != 0) break;
      i += 8;
    }
    if (i == s.size()) break;
    size_t len = SequenceLength(s, i);
    if (len == 0) return i;
    i += len;
  }
  return i;
}

size_t Utf8Floor(std::string_view s, size_t n) {
  if (n >= s.size()) return s.size();
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) --n;
  return n;
}

std::string SanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    size_t len = SequenceLength(s, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.data() + i, len);
      i += len;
    }
  }
  return out;
}

std::string SafeDisplayText(std::string_view s, size_t max_bytes) {
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  constexpr std::string_view kCut = "...";
  std::string out;
  out.reserve(std::min(s.size(), max_bytes) + kReplacement.size());
  // Past max_bytes the rest is cut anyway: stop there.
  for (size_t i = 0; i < s.size() && out.size() <= max_bytes;) {
    size_t len = SequenceLength(s, i);
    if (len == 0) {
      out += kReplacement;
      len = 1;
    } else if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') {
      // Dropped: the newline follows.
    } else if (UnsafeToShow(DecodeUtf8At(s, i, len))) {
      out += kReplacement;
    } else {
      out.append(s.data() + i, len);
    }
    i += len;
  }
  if (out.size() <= max_bytes) return out;
  out.resize(Utf8Floor(out, max_bytes - std::min(max_bytes, kCut.size())));
  out += kCut;
  return out;
}

bool LooksBinary(std::string_view s, size_t sniff_bytes) {
  return s.substr(0, std::min(s.size(), sniff_bytes)).find('\0') != std::string_view::npos;
}

void AppendUtf8(char32_t code_point, std::string& out) {
  const uint32_t c = code_point;
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | ((c >> 18) & 0x07)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

char32_t DecodeUtf8At(std::string_view s, size_t i, size_t len) {
  const auto c = static_cast<unsigned char>(s[i]);
  char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  return cp;
}

bool IsBidiFormatting(char32_t cp) {
  return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace raw
