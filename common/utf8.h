// UTF-8 helpers: validating text that comes from outside (a tool's output, a
// hook's or a server's stderr) before it goes where only UTF-8 may go (the
// API's string fields, JSON), and cutting text without splitting a character.
//
// Stateless functions; safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace raw {

// Length of the longest prefix of `s` that is well-formed UTF-8 (no
// overlong forms, surrogates or code points above U+10FFFF); s.size() when
// all of it is.
size_t ValidUtf8Prefix(std::string_view s);

// Length of the well-formed UTF-8 sequence that starts at s[i] (1 for an
// ASCII byte), or 0 when the bytes there are not one. `i` < s.size().
size_t Utf8SequenceLength(std::string_view s, size_t i);

// `n` or less, so that s[0, result) does not end inside a UTF-8 sequence.
size_t Utf8Floor(std::string_view s, size_t n);

// The code point of the well-formed sequence of `len` bytes at `s[i]`
// (`len` from Utf8SequenceLength, not 0).
char32_t DecodeUtf8At(std::string_view s, size_t i, size_t len);

// The bidirectional formatting characters: U+061C, U+200E, U+200F,
// U+202A-U+202E, U+2066-U+2069 (they reorder the text around them).
bool IsBidiFormatting(char32_t code_point);

// Appends the UTF-8 encoding of `code_point`, which must be at most
// U+10FFFF (a surrogate is encoded as it is: callers replace what they must
// not write).
void AppendUtf8(char32_t code_point, std::string& out);

// `s` with every ill-formed byte replaced by U+FFFD.
std::string SanitizeUtf8(std::string_view s);

// Text from a source Raw does not control (a server's stderr or error
// message), made safe for any front end to show: ill-formed bytes, control
// characters (C0 except newline and tab, DEL, C1) and the bidirectional
// formatting characters (U+061C, U+200E, U+200F, U+202A-U+202E,
// U+2066-U+2069) become U+FFFD, so no escape sequence acts on a terminal
// and no override reorders what is shown; a CR before a newline is dropped.
// Longer than `max_bytes`: cut at a character boundary and ended with
// "...", at most `max_bytes` in all (`max_bytes` >= 3).
std::string SafeDisplayText(std::string_view s, size_t max_bytes);

// True when the first `sniff_bytes` of `s` hold a NUL byte: the heuristic
// git and grep use to call a file binary.
bool LooksBinary(std::string_view s, size_t sniff_bytes = 8 * 1024);

}  // namespace raw
