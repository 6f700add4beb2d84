#include "daemon/packages/package_commands.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "daemon/config/field_reader.h"
#include "daemon/config/script_args.h"
#include "daemon/packages/manifest.h"

namespace raw::packages {
namespace {

using config::ConfigProblem;
using config::IndexPath;
using config::JoinPath;

// True when `text` has a ".." path component. Components are split at '/'
// and at ':' (a list of paths, as in PATH="${package}/bin:${package}/..").
bool HasParentComponent(absl::string_view text) {
  for (absl::string_view part : absl::StrSplit(text, absl::ByAnyChar("/:"))) {
    if (part == "..") return true;
  }
  return false;
}

// "package \"kit\", hook \"audit\"": who declared the string.
std::string Owner(const std::string& package, const char* kind, const std::string& name) {
  return absl::StrCat("package \"", package.empty() ? "(unnamed)" : package, "\", ", kind, " \"",
                      name, "\"");
}

// A string that uses ${package} names a file of the package: no "..".
void CheckPackageString(const std::string& text, const std::string& owner, const std::string& path,
                        std::vector<ConfigProblem>& problems) {
  if (!absl::StrContains(text, kPackageDirVariable) || !HasParentComponent(text)) return;
  problems.push_back(
      {path, absl::StrCat(owner, ": \"", text,
                          "\" has a \"..\" component, which leads outside the package; ",
                          kPackageDirVariable,
                          "/... names a file of the package, by a path without \"..\"")});
}

}  // namespace

void CheckHookCommand(const std::string& package, const std::string& name,
                      const config::HookConfig& hook, const std::string& path,
                      std::vector<ConfigProblem>& problems) {
  const std::string owner = Owner(package, "hook", name);
  const std::string command = JoinPath(path, "command");
  const std::vector<size_t> scripts = config::ScriptArguments(hook.command);
  // Judged with ${package} as the absolute path it becomes.
  std::vector<std::string> expanded = hook.command;
  for (std::string& arg : expanded) arg = absl::StrReplaceAll(arg, {{kPackageDirVariable, "/"}});
  const std::vector<config::UnresolvedArgument> unresolved = config::UnresolvedArguments(expanded);
  if (!unresolved.empty()) {
    const config::UnresolvedArgument& u = unresolved.front();
    problems.push_back(
        {IndexPath(command, u.index),
         absl::StrCat(owner, ": \"", hook.command[u.index], "\" is a relative path ", u.reason,
                      ", so it is not resolved against the package's directory and would name a "
                      "file of the session's working directory; write it as ",
                      kPackageDirVariable, "/<its path in the package>")});
  }
  for (size_t i = 0; i < hook.command.size(); ++i) {
    const std::string& arg = hook.command[i];
    const bool script = std::find(scripts.begin(), scripts.end(), i) != scripts.end();
    const bool file_path = (script || (i == 0 && arg.find('/') != std::string::npos)) &&
                           !absl::StartsWith(arg, kPackageDirVariable);
    if (!file_path) {
      CheckPackageString(arg, owner, IndexPath(command, i), problems);
      continue;
    }
    // The program path, and an interpreter's script, are resolved against
    // the package's directory.
    const char* what = i == 0 ? "program path" : "script";
    if (arg[0] == '/') {
      problems.push_back(
          {IndexPath(command, i),
           absl::StrCat(owner, ": \"", arg, "\" is an absolute path; a hook's ", what,
                        " names a file of the package, relative to the package's directory "
                        "(such as \"bin/audit.sh\" or \"${package}/bin/audit.sh\")",
                        i == 0 ? ", or a program on PATH by its bare name (such as \"sh\")" : "")});
    } else if (HasParentComponent(arg)) {
      problems.push_back({IndexPath(command, i),
                          absl::StrCat(owner, ": \"", arg,
                                       "\" has a \"..\" component, which leads outside the "
                                       "package; a hook's ",
                                       what,
                                       " names a file of the "
                                       "package, relative to its directory, without \"..\"")});
    }
  }
}

void CheckServerCommand(const std::string& package, const std::string& name,
                        const config::McpServerConfig& server, const std::string& path,
                        std::vector<ConfigProblem>& problems) {
  const std::string owner = Owner(package, "MCP server", name);
  const std::string command = JoinPath(path, "command");
  for (size_t i = 0; i < server.command.size(); ++i) {
    const std::string& arg = server.command[i];
    if (i == 0 && arg.find('/') != std::string::npos && arg[0] != '/' &&
        !absl::StartsWith(arg, kPackageDirVariable)) {
      problems.push_back(
          {IndexPath(command, 0),
           absl::StrCat(owner, ": \"", arg,
                        "\" is a relative path; a package's server starts in the daemon's "
                        "directory, so it would name a file there, not one of the package: name "
                        "the package's own program as ${package}/<its path in the package> "
                        "(without \"..\"), or a program on PATH by its bare name (such as "
                        "\"python3\")")});
      continue;
    }
    CheckPackageString(arg, owner, IndexPath(command, i), problems);
  }
  const std::string env = JoinPath(path, "env");
  for (const auto& [key, value] : server.env) {
    CheckPackageString(value, owner, JoinPath(env, key), problems);
  }
}

}  // namespace raw::packages
