#include "daemon/raven/web/html_input.h"

#include <cstdint>
#include <cstring>

namespace raw::raven::web::html {

size_t FindMarkupOrReference(std::string_view s, size_t from) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  const size_t n = s.size();
  size_t i = from;
  while (i + 8 <= n) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    const uint64_t lt = w ^ (kOnes * '<'), amp = w ^ (kOnes * '&');
    if ((((lt - kOnes) & ~lt) | ((amp - kOnes) & ~amp)) & kHigh) break;
    i += 8;
  }
  while (i < n && s[i] != '<' && s[i] != '&') ++i;
  return i;
}


bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (Lower(a[k]) != Lower(b[k])) return false;
  }
  return true;
}

std::string_view TrimSpace(std::string_view v) {
  while (!v.empty() && IsSpace(v.front())) v.remove_prefix(1);
  while (!v.empty() && IsSpace(v.back())) v.remove_suffix(1);
  return v;
}

bool PlainInput(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
      const uint64_t control = (w - kOnes * 0x20) & ~w & kHigh;          // a byte < 0x20
      const uint64_t del = ((w ^ (kOnes * 0x7F)) - kOnes) & ~(w ^ (kOnes * 0x7F)) & kHigh;
      if (((w & kHigh) | control | del) == 0) {
        i += 8;
        continue;
      }
    }
    const unsigned char c = p[i];
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r') || c == 0x7F) return false;
      ++i;
      continue;
    }
    uint32_t cp;
    size_t len;
    if (c >= 0xC2 && c <= 0xDF) {
      cp = c & 0x1F;
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      cp = c & 0x0F;
      len = 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
      cp = c & 0x07;
      len = 4;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return false;
    if (cp >= 0xD800 && cp <= 0xDFFF) return false;
    if (cp <= 0x9F || (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) return false;
    i += len;
  }
  return true;
}

}  // namespace raw::raven::web::html
