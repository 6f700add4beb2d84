// What a variable's command printed, as ReadVariable uses it: the value from
// standard output, and the excerpt of standard error shown in an error.
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace raw::vars {

// Longest excerpt of a command's standard error shown in an error, in bytes.
inline constexpr size_t kMaxStderrShown = 200;

// Removes one trailing line break ("\n" or "\r\n") from `value`.
void StripOneLineBreak(std::string& value);

// ": " and the last non-blank line of `err`, at most kMaxStderrShown bytes
// of it (then "..."), always valid UTF-8 (ill-formed bytes become U+FFFD;
// a cut never splits a character), so that it can travel in the API's
// strings whatever the command printed; "" when `err` has no such line.
std::string StderrExcerpt(absl::string_view err);

}  // namespace raw::vars
