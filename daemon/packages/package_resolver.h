// ResolvePackages: applies the package exports one agent refers to, so that
// the rest of the daemon sees plain config (docs/packages.md, "Use").
//
// Only the selected agent is looked at: its `extends` preset, `pkg/...`
// entries of its tools.use, skills, hooks and prompts, a `pkg/...` model,
// and the `from` of the MCP servers its tools.use may select (by name or by
// a glob over server names such as mcp/* or mcp/gh*/*). Other agents' references
// (broken or not) are not read. For each package used, the alias is looked
// up in the index beside the config file, the store entry is re-hashed
// (a changed entry is refused, naming `raw package verify`; see EntryCheck)
// and its manifest read. Errors name the JSON path and the alias.
//
// The result is a copy of the config in which:
// - the agent holds the preset's fields it did not set itself (tools that
//   neither sets are the default, builtin/*);
// - a package MCP server used as pkg/<a>/mcp/<s>/<tool> is defined as
//   mcp_servers.<s> (an existing server of that name that is not the same
//   export is an error) and the entry reads mcp/<s>/<tool>; a server
//   with "from" holds the package's definition;
// - package skills are selected by name, their folders added to skill_dirs;
// - package hooks are defined under hooks."pkg/<a>/hook/<n>";
// - a package model is defined under models."pkg/<a>/model/<n>";
// - the texts of its prompt sections follow its system prompt, in order,
//   each after a blank line;
// and "${package}" in commands and env values is the entry's directory.
// Pure apart from reading the index and the store; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/config/config.h"
#include "daemon/packages/package_loader.h"
#include "daemon/packages/package_store.h"

namespace raw::packages {

struct PackagedConfig {
  config::Config config;
  // alias -> hash of every package the agent used.
  std::map<std::string, std::string> packages;
};

// `agent_name` "" = the default agent. An unknown agent is left for
// config::ResolveAgent to report: the config is returned unchanged.
absl::StatusOr<PackagedConfig> ResolvePackages(const config::Config& config,
                                               const std::string& agent_name,
                                               const PackageStore& store,
                                               EntryCheck check = EntryCheck::kRehash);

// The same with the store of the user whose environment `env` is; the store
// is located only when the agent uses a package.
absl::StatusOr<PackagedConfig> ResolvePackages(const config::Config& config,
                                               const std::string& agent_name, const EnvLookup& env,
                                               EntryCheck check = EntryCheck::kRehash);

// The same through `loader`, which must read the index of `config`'s file
// (config.source_path): resolving several agents of one config through one
// loader reads each store entry once (package_loader.h).
absl::StatusOr<PackagedConfig> ResolvePackages(const config::Config& config,
                                               const std::string& agent_name,
                                               PackageLoader& loader);

// A server an agent takes from a package directly: `server` has its name
// and "from" (the export) set, and the package's definition when it
// resolves; else `error` says why it does not.
struct AgentMcpServer {
  config::McpServerConfig server;
  std::string error;
};

// The config's MCP servers with every server defined with "from" holding its
// package's definition, as ResolvePackages gives it to an agent that uses
// it (so it is the definition a running instance was started from): for
// describing the servers (ListMcpServers). A "from" that does not resolve
// (alias not installed, no such export, a refused entry) is left as
// written, and `errors` holds the reason by server name. `agent_servers`
// holds the servers agents take from a package directly
// (pkg/<alias>/mcp/<server>/<tool> in their tools.use or their preset's),
// once per name and export, by name, as ResolvePackages defines them for
// such an agent; a name under mcp_servers is not repeated there. With
// kTrust (the default) nothing is hashed, so it is cheap enough for an API
// thread.
struct ResolvedMcpServers {
  std::map<std::string, config::McpServerConfig> servers;
  std::map<std::string, std::string> errors;
  std::vector<AgentMcpServer> agent_servers;
};
ResolvedMcpServers ResolveMcpServers(const config::Config& config, const PackageStore& store,
                                     EntryCheck check = EntryCheck::kTrust);
// The same with the user's store; it is located only when a server has
// "from" or an agent extends a preset or names a package's server.
ResolvedMcpServers ResolveMcpServers(const config::Config& config, const EnvLookup& env,
                                     EntryCheck check = EntryCheck::kTrust);

}  // namespace raw::packages
