// MakeToolSpec: an MCP tool as a tools::ToolSpec the loop can expose and
// run like a built-in one.
//
// qualified_name "mcp/<server>/<tool>", model-facing name from
// ModelFacingToolName, the server's description (else its title), its
// inputSchema, read_only from its annotations (McpTool::read_only), and a
// validator compiled from the schema (a schema the validator cannot compile
// is replaced by {"type":"object"} for validation, and the server validates
// the arguments itself). The handler holds the ManagedServer weakly (the
// server caches its specs; McpManager owns it) and calls the tool through
// it, passing the turn's cancellation and reporting progress through
// ToolContext::on_progress on the handler's thread; the result becomes the
// text of RenderToolResult, with isError mapped to kError.
//
// Thread-safety: the spec is immutable; its handler may run on any thread.
#pragma once

#include <memory>

#include "daemon/mcp/managed_server.h"
#include "daemon/mcp/mcp_tool.h"
#include "daemon/tools/tool.h"

namespace raw::mcp {

tools::ToolSpec MakeToolSpec(const std::shared_ptr<ManagedServer>& server, const McpTool& tool);

}  // namespace raw::mcp
