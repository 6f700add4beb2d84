// StringMapEntry: the string-to-string objects of config.json: HTTP header
// sets (models.<n>.headers, mcp_servers.<n>.headers) and environment
// additions (mcp_servers.<n>.env). Their values may hold variable
// references, so no message here echoes a value. Pure; thread-safe.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/field_reader.h"

namespace raw::config {

// True for an HTTP header name (an RFC 9110 token).
bool IsHttpToken(absl::string_view name);

// Says why a header name (given lowercased) may not be set, or nullopt.
using HeaderRefusal = std::function<std::optional<std::string>(absl::string_view lower_name)>;

// Reads the object under `key` as HTTP headers: names are tokens, each at
// most once ignoring case, and none that `refuse` refuses; values are
// strings without line breaks or NUL. Every problem is recorded at its path.
std::map<std::string, std::string> ReadHeaders(FieldReader& r, absl::string_view key,
                                               const HeaderRefusal& refuse,
                                               std::vector<ConfigProblem>& problems);

// Reads the object under `key` as environment entries: names match
// ^[A-Za-z_][A-Za-z0-9_]*$, values are strings without NUL.
std::map<std::string, std::string> ReadEnvironment(FieldReader& r, absl::string_view key,
                                                   std::vector<ConfigProblem>& problems);

}  // namespace raw::config
