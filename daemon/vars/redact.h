// Redact: hides known secret values in text before it is stored, such as a
// tool's output that printed an API key.
//
// Pure; thread-safe.
#pragma once

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

}  // namespace raw::vars
