// Byte-level helpers of the streaming HTML parser (fast_page_text.h).
#pragma once

#include <cstddef>
#include <string_view>

namespace raw::raven::web::html {

// White space as the tokenizer sees it ('\r' becomes '\n' on input).
inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\f' || c == '\r'; }
inline bool IsAlpha(char c) { return static_cast<unsigned char>((c | 0x20) - 'a') < 26; }
inline bool IsAlnum(char c) { return IsAlpha(c) || static_cast<unsigned char>(c - '0') < 10; }
// What ends a tag name: white space, '/' or '>'.
inline bool EndsName(char c) {
  return c == '>' || c == '/' || c == ' ' || static_cast<unsigned char>(c - '\t') <= '\r' - '\t';
}
inline char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
std::string_view TrimSpace(std::string_view v);

// The first '<' or '&' at or after `from`, or the end.
size_t FindMarkupOrReference(std::string_view s, size_t from);

// True when the input is valid UTF-8 holding no code point that gumbo's
// input stream replaces with U+FFFD (NUL, C0 controls other than white
// space, DEL and C1 controls, noncharacters): then a byte range of the page
// is exactly the characters gumbo reads there.
bool PlainInput(std::string_view s);

}  // namespace raw::raven::web::html
