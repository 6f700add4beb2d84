// The MCP servers an ACP client passes in session/new and session/load, as
// the session's own servers in rawd (v1::SessionMcpServer).
//
//   stdio (no "type", or "stdio")  {name, command (absolute), args, env}
//   "http"                          {name, url, headers}
//   "sse"                           refused: raw-acp advertises sse: false
// `env` and `headers` are [{name, value}] lists. Anything malformed is
// INVALID_ARGUMENT naming the entry.
//
// In ACP a server's `name` is the client's label for it (for Zed, the key of
// its settings), while rawd wants a server name (1 to 32 letters, digits,
// '_' or '-', no "__", no trailing '_') that no configured server has.
// AssignServerNames turns the labels into such names; see docs/acp.md.
//
// Pure functions; thread-safe.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "raw/v1/raw_service.pb.h"

namespace raw::acp {

absl::StatusOr<std::vector<v1::SessionMcpServer>> SessionMcpServers(const Json& servers);

// Renames `servers` in place to valid server names, unique among
// themselves and not in `taken` (the configured servers' names). A name
// that is already valid and free is kept. Otherwise each run of other
// characters becomes one '-', "__" becomes '_', the name is cut to 32
// characters without a trailing '_' ("server" when nothing is left), and a
// name already used gets the first free suffix "-2", "-3", ...
void AssignServerNames(std::vector<v1::SessionMcpServer>& servers, std::set<std::string> taken);

}  // namespace raw::acp
