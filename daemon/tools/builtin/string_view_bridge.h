// Bridges std::string_view, which Raw's interfaces use, and
// absl::string_view, which absl's string functions take: in the absl build
// Raw links against they are distinct types. Header-only; stateless.
#pragma once

#include <string_view>

#include "absl/strings/string_view.h"

namespace raw::tools::builtin {

inline absl::string_view ToAbsl(std::string_view s) { return {s.data(), s.size()}; }
inline std::string_view ToStd(absl::string_view s) { return {s.data(), s.size()}; }

}  // namespace raw::tools::builtin
