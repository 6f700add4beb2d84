// What a package's hooks and MCP servers may run: the files of a package
// they name stay inside the package (docs/packages.md, "Format").
//
// A package names its own files in a command in two ways: a hook's program
// path (a command[0] with a '/') and the script its interpreter runs
// (config/script_args.h, `["sh", "bin/audit.sh"]`) are relative to the
// package's directory, and "${package}/..." in any command or env string is
// the package's directory. Neither may leave it: a ".." component is
// refused in both, and a hook's program path or script may not be
// absolute. A hook's relative argument that cannot be resolved against the
// package's directory (config::UnresolvedArguments: behind env -C, in env
// -S's string, after xargs) is refused; "${package}/..." is not. A bare program name (no '/',
// such as "sh" or "python3") is found on PATH and stays allowed, as is an
// MCP server's absolute program path (a program of the system, not a file
// of the package). An MCP server's relative program path is refused: a
// package's server starts in the daemon's directory, so it would name a
// file there, not one of the package.
//
// The manifest check (ParseManifest) applies these to every export, so a
// package is refused when it is installed or inspected, and its entry when
// an agent resolves it. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "daemon/config/config.h"
#include "daemon/config/config_loader.h"

namespace raw::packages {

// Appends one problem per offending string of hook `name` of package
// `package`, at `path` (exports.hooks.<name>) and below; each names the
// package, the hook and the string.
void CheckHookCommand(const std::string& package, const std::string& name,
                      const config::HookConfig& hook, const std::string& path,
                      std::vector<config::ConfigProblem>& problems);

// The same for MCP server `name` (exports.mcp.<name>): its command and env.
void CheckServerCommand(const std::string& package, const std::string& name,
                        const config::McpServerConfig& server, const std::string& path,
                        std::vector<config::ConfigProblem>& problems);

}  // namespace raw::packages
