#include "daemon/mcp/log_text.h"

#include "absl/strings/str_format.h"
#include "common/utf8.h"

namespace raw::mcp {

std::string LogText(std::string_view text, size_t max_bytes) {
  const bool cut = text.size() > max_bytes;
  if (cut) text = text.substr(0, Utf8Floor(text, max_bytes));
  std::string out;
  out.reserve(text.size() + 8);
  for (size_t i = 0; i < text.size();) {
    const size_t len = Utf8SequenceLength(text, i);
    const auto byte = static_cast<unsigned char>(text[i]);
    if (len == 0) {
      out += absl::StrFormat("\\x%02X", byte);
      ++i;
      continue;
    }
    const char32_t cp = DecodeUtf8At(text, i, len);
    if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp < 0x20 || cp == 0x7f) {
      out += absl::StrFormat("\\x%02X", cp);
    } else if ((cp >= 0x80 && cp < 0xa0) || IsBidiFormatting(cp)) {
      out += absl::StrFormat("\\u%04X", cp);
    } else {
      out.append(text.data() + i, len);
    }
    i += len;
  }
  if (cut) out += "…";
  return out;
}

}  // namespace raw::mcp
