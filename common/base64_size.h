// The size base64 text decodes to, without decoding it.
#pragma once

#include <cstddef>
#include <string_view>

namespace raw {

// For standard base64, padded or not; trailing '=' and whitespace are not
// counted. Text that is not base64 gets a size, not an error.
inline size_t Base64DecodedSize(std::string_view base64) {
  size_t length = base64.size();
  while (length > 0) {
    const char c = base64[length - 1];
    if (c != '=' && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') {
      break;
    }
    --length;
  }
  return length * 3 / 4;
}

}  // namespace raw
