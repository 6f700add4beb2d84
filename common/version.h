#pragma once

namespace raw {

inline constexpr char kVersion[] = "0.1.0";
// Bumped on incompatible changes of proto/raw/v1 semantics.
inline constexpr int kProtocolVersion = 2;

}  // namespace raw
