// Redact: hides known secret values in text before it is stored, such as a
// tool's output that printed an API key.
//
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace raw::vars {

inline constexpr char kRedactedMarker[] = "[redacted]";

// `text` with every occurrence of each of `secrets` replaced by
// kRedactedMarker, in one pass from the left; where several secrets match at
// the same position, the longest wins, so a secret that contains another is
// hidden whole. Empty secrets are ignored. Typically called with
// VariableStore::SecretValues().
std::string Redact(std::string_view text, const std::vector<std::string>& secrets);

// `text` = Redact(SanitizeUtf8(text), secrets) (common/utf8.h), as the
// store keeps every string: made valid UTF-8, then redacted. Text that is
// already valid and holds no secret is left as it is, without a copy.
void SanitizeAndRedact(std::string& text, const std::vector<std::string>& secrets);

// For text that arrives in pieces (streamed model output): the largest
// length c <= text.size() such that no secret occurs across position c,
// counting an occurrence that `text` ends in the middle of (a prefix of a
// secret at its end, which the next piece may complete). Redact(text[0, c))
// can then be shown at once: nothing shown later can turn it into part of
// a secret, and Redact of a longer text agrees with it up to c.
size_t SafeRedactionCut(std::string_view text, const std::vector<std::string>& secrets);

// The other end of SafeRedactionCut, for text cut off at its front (the
// tail of a long output): the smallest s >= start such that no secret
// occurs across position s, counting an occurrence that began before
// `text` (a suffix of a secret at the front of `text`). Showing text[s, end)
// then shows no part of a secret that Redact of the whole would hide.
size_t SafeRedactionStart(std::string_view text, size_t start,
                          const std::vector<std::string>& secrets);

// `secret` as it reads inside a JSON string: `"` and `\` escaped, control
// characters as \b \f \n \r \t or \u00XX, the rest as it is (a tool
// call's arguments are JSON text, so a secret there is written so).
std::string JsonEscapedForm(std::string_view secret);

}  // namespace raw::vars
