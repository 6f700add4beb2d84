// PolicyEntry: validation of the tool-contract parts of config.json:
// agents.<name>.{rules, approval_mode, approval_timeout_seconds, hooks,
// skills, allow_private_addresses, allow_protected_paths}, the top-level
// "hooks" map and "skill_dirs". Problems are recorded
// with their exact paths ("agents.coder.rules[2].command: invalid regular
// expression: ..."). Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/field_reader.h"

namespace raw::config {

inline constexpr int64_t kMaxApprovalTimeoutSeconds = 24 * 3600;
inline constexpr int64_t kMaxHookTimeoutSeconds = 3600;

// Reads the agent's rules, approval_mode, approval_timeout_seconds, hooks
// skills, allow_private_addresses and allow_protected_paths into `agent`.
void ReadAgentPolicy(FieldReader& agent_reader, AgentConfig& agent,
                     std::vector<ConfigProblem>& problems);

// Reads one hooks.<name> object (also a package's hook export) found at
// `path`; the result is meaningful only when no problem was added. With a
// `context`, a program path in command[0] (one with a '/'; a bare name is
// looked up on PATH) is made absolute as the file's other paths are
// (ConfigPath), never left to the session's working directory, which the
// project (and so whoever wrote it) controls. Without one (a package's
// export) it is left as written for the package resolver, which takes it
// relative to the package's directory.
HookConfig ReadHook(const std::string& name, const Json& value, const std::string& path,
                    const ParseContext* context, std::vector<ConfigProblem>& problems);

// Reads the top-level "hooks" map and "skill_dirs" list.
void ReadHooksAndSkillDirs(FieldReader& doc, const ParseContext& context, Config& config,
                           std::vector<ConfigProblem>& problems);

// Every agents.<name>.hooks entry names a defined hook.
void CheckAgentHooks(const Config& config, std::vector<ConfigProblem>& problems);

}  // namespace raw::config
