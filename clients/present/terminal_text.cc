#include "clients/present/terminal_text.h"

#include <utf8proc.h>

namespace raw::present {

std::string SanitizeForTerminal(std::string_view text, Tabs tabs) {
  std::string out;
  out.reserve(text.size());
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  const auto size = static_cast<utf8proc_ssize_t>(text.size());
  utf8proc_ssize_t pos = 0;
  int column = 0;  // for tab stops, counted in code points since the last newline
  while (pos < size) {
    unsigned char c = bytes[pos];
    if (c < 0x80) {
      if (c == '\n') {
        out.push_back('\n');
        column = 0;
      } else if (c == '\t' && tabs == Tabs::kKeep) {
        out.push_back('\t');
        column = 0;
      } else if (c == '\t') {
        int spaces = 4 - column % 4;
        out.append(static_cast<size_t>(spaces), ' ');
        column += spaces;
      } else if (c == '\r') {
        // Dropped: a lone CR would move the cursor.
      } else if (c < 0x20 || c == 0x7f) {
        out.append("\xEF\xBF\xBD");
        ++column;
      } else {
        out.push_back(static_cast<char>(c));
        ++column;
      }
      ++pos;
      continue;
    }
    utf8proc_int32_t cp = -1;
    utf8proc_ssize_t n = utf8proc_iterate(bytes + pos, size - pos, &cp);
    if (n <= 0 || (cp >= 0x80 && cp < 0xa0)) {
      out.append("\xEF\xBF\xBD");
      pos += n <= 0 ? 1 : n;
    } else {
      out.append(text.substr(static_cast<size_t>(pos), static_cast<size_t>(n)));
      pos += n;
    }
    ++column;
  }
  return out;
}

size_t IncompleteUtf8Tail(std::string_view text) {
  // Look back over at most 3 continuation bytes for the lead byte.
  size_t n = text.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    unsigned char c = static_cast<unsigned char>(text[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte
    size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

}  // namespace raw::present
