// SessionMcpServers: the MCP servers a front end passes for one session
// (an editor over ACP, say), checked by the rules of config.json's
// mcp_servers entries and turned into McpServerConfig values scoped to the
// session. Pure; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "daemon/config/config.h"

namespace raw::config {

// One server as a client gives it: stdio (`command`, an absolute program
// path, with `args` and extra `env`) or Streamable HTTP (`url` with extra
// `headers`), never both. Values are literal: no variable references.
struct SessionMcpServerSpec {
  std::string name;
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::string url;
  std::map<std::string, std::string> headers;
};

// Checks `specs` (the client's field `field`, entries `field[i]`) and
// returns them by name, each with session_id = `session_id` and the default
// timeouts and limits of a configured server. kInvalidArgument listing
// every problem ("servers[1].command: ..."; one per line) when an entry has
// an invalid or ambiguous name (the rules of mcp_servers.<name>), the name
// of a server under `config.mcp_servers` or of an earlier entry, neither or
// both of command and url, a relative command, args or env without a
// command, headers without a url, or a url, header or env entry that
// mcp_servers.<name> would refuse.
absl::StatusOr<std::map<std::string, McpServerConfig>> CheckSessionMcpServers(
    const std::vector<SessionMcpServerSpec>& specs, const Config& config,
    absl::string_view field, const std::string& session_id);

}  // namespace raw::config
