// The MCP servers an ACP client passes in session/new and session/load, as
// the session's own servers in rawd (v1::SessionMcpServer).
//
//   stdio (no "type", or "stdio")  {name, command (absolute), args, env}
//   "http"                          {name, url, headers}
//   "sse"                           refused: raw-acp advertises sse: false
// `env` and `headers` are [{name, value}] lists. Anything malformed is
// INVALID_ARGUMENT naming the entry.
//
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "raw/v1/raw_service.pb.h"

namespace raw::acp {

absl::StatusOr<std::vector<v1::SessionMcpServer>> SessionMcpServers(const Json& servers);

}  // namespace raw::acp
