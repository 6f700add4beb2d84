// `raw agents` and `raw mcp`: what the daemon's config offers, as the daemon
// sees it now — the agents (which one is the default, its model, tools and
// skills) and the MCP servers (state, transport, last error, tools). Both
// only read; listing MCP servers never starts one. See docs/cli.md.
#pragma once

#include <string>
#include <vector>

#include "clients/cli/args.h"
#include "clients/cli/cli_context.h"

namespace raw::cli {

extern const char kAgentsUsage[];
extern const char kMcpUsage[];

// Run the commands; return the exit code.
int AgentsCommand(const std::vector<std::string>& args, CliContext& ctx);
int McpCommand(const std::vector<std::string>& args, CliContext& ctx);

// The options the command takes (for help and shell completion).
const std::vector<OptionSpec>& CatalogOptionSpecs();

}  // namespace raw::cli
