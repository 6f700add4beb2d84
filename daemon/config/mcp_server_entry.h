// McpServerEntry: validation of the top-level "mcp_servers" map of
// config.json into McpServerConfig values, and the check that every
// agents.<a>.tools.use entry under mcp/ names a defined server. Pure;
// thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "daemon/config/config.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/field_reader.h"

namespace raw::config {

// ^[a-zA-Z0-9_-]{1,32}$: the <server> of mcp/<server>/<tool>.
bool IsMcpServerName(absl::string_view name);

// Why `name` (an IsMcpServerName) cannot be a server's name although its
// characters are fine, or nullopt when it can: it holds "__" or ends with
// '_', either of which would let two different (server, tool) pairs share
// the model-facing name mcp__<server>__<tool> (see mcp/tool_naming.h).
std::optional<std::string> AmbiguousServerName(absl::string_view name);

// Reads one server definition (the object under mcp_servers.<name>, or an
// equivalent built from another source) at `path`; problems are recorded
// at their paths below it. `name` must already be a valid server name.
McpServerConfig ReadMcpServerEntry(const std::string& name, const Json& value,
                                   const std::string& path, const ParseContext& context,
                                   std::vector<ConfigProblem>& problems);

// True when the <server> part of a tools.use entry mcp/<server>/... is a
// glob over server names ("*", "fs-*"): it may match configured servers and
// a session's own servers (see session_mcp_servers.h), which need not exist
// when the config is read.
bool IsMcpServerGlob(absl::string_view server);

// True when the tools.use entry `use` ("mcp/<server or glob>/<tool or
// glob>") may select tools of MCP server `server`: some qualified tool name
// "mcp/<server>/<tool>" matches it, in the glob syntax of tools.use ('*'
// matches any run, '/' included; McpManager selects servers the same way).
// False for an entry that is not "mcp/...".
bool McpEntryMayCoverServer(absl::string_view use, absl::string_view server);

// Reads "mcp_servers" into config.mcp_servers.
void ReadMcpServers(FieldReader& doc, const ParseContext& context, Config& config,
                    std::vector<ConfigProblem>& problems);

// Every tools.use entry "mcp/<server>/<tool or glob>" names one defined
// server, or a glob over server names (IsMcpServerGlob).
void CheckAgentMcpTools(const Config& config, std::vector<ConfigProblem>& problems);

}  // namespace raw::config
