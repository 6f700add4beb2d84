// StarGlob: the glob syntax of `tools.use` entries, whose only wildcard is
// `*` (any run of characters, '/' included). Shared by the tool registry's
// selection, the MCP manager's choice of servers to start and the config's
// resolution of package servers, so the three always agree.
#pragma once

#include <string_view>

namespace raw {

// True when `name` matches `pattern`. Greedy with one backtrack point (the
// last `*` seen): linear in practice, never exponential.
bool StarGlobMatch(std::string_view pattern, std::string_view name);

// True when `pattern` matches some name that starts with `prefix`: whether
// a tools.use entry may select tools of a server ("mcp/<server>/").
bool StarGlobMayMatchPrefix(std::string_view pattern, std::string_view prefix);

}  // namespace raw
