#include "daemon/packages/package_resolver.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "common/paths.h"
#include "common/status_macros.h"
#include "daemon/config/builtin_defaults.h"
#include "daemon/config/field_reader.h"
#include "daemon/config/mcp_server_entry.h"
#include "daemon/config/package_ref.h"
#include "daemon/config/script_args.h"
#include "daemon/packages/package_files.h"

namespace raw::packages {
namespace {

using config::IndexPath;
using config::JoinPath;
using config::PackageRef;

bool UsesPackages(const config::Config& config, const config::AgentConfig& agent) {
  auto any = [](const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(),
                       [](const std::string& s) { return config::IsPackageRef(s); });
  };
  if (!agent.extends.empty() || config::IsPackageRef(agent.model) || any(agent.tools_use) ||
      any(agent.skills) || any(agent.hooks) || !agent.prompts.empty()) {
    return true;
  }
  // An mcp/ entry, a glob over servers included, that selects a server
  // defined with "from".
  for (const std::string& use : agent.tools_use) {
    for (const auto& [name, server] : config.mcp_servers) {
      if (!server.from.empty() && config::McpEntryMayCoverServer(use, name)) return true;
    }
  }
  return false;
}

std::string Expand(const std::string& text, const std::string& dir) {
  return absl::StrReplaceAll(text, {{kPackageDirVariable, dir}});
}

// One resolution's reads through a PackageLoader (which reads each entry
// once, for this resolution and any other through it), and the packages
// this resolution used.
class Loader {
 public:
  explicit Loader(PackageLoader& packages) : packages_(packages) {}

  // The stored package of `alias`; errors name `path`.
  absl::StatusOr<const StoredPackage*> Get(const std::string& alias, const std::string& path) {
    ASSIGN_OR_RETURN(const StoredPackage* stored, packages_.Get(alias, path));
    used_[alias] = stored->hash;
    return stored;
  }

  static absl::Status Error(const std::string& path, const std::string& message) {
    return PackageLoader::Error(path, message);
  }

  const std::map<std::string, std::string>& used() const { return used_; }
  EntryCheck check() const { return packages_.check(); }

 private:
  PackageLoader& packages_;
  std::map<std::string, std::string> used_;
};

// The export `ref` names in `map`, or an error naming `path` and the
// exports there are.
template <typename Map>
absl::StatusOr<const typename Map::mapped_type*> FindExport(const Map& map, const PackageRef& ref,
                                                            const StoredPackage& pkg,
                                                            const std::string& path) {
  auto it = map.find(ref.name);
  if (it != map.end()) return &it->second;
  std::vector<std::string> names;
  for (const auto& [name, unused] : map) names.push_back(name);
  return Loader::Error(
      path,
      absl::StrCat("package \"", ref.alias, "\" (", pkg.manifest.name, " ", pkg.manifest.version,
                   ") has no ", ref.kind, " export \"", ref.name, "\" (its ", ref.kind,
                   " exports: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<PackageRef> Parse(const std::string& text, const char* kind, const std::string& path,
                                 bool with_tool = false) {
  absl::StatusOr<PackageRef> ref = config::ParsePackageRef(text, kind, with_tool);
  if (!ref.ok()) return Loader::Error(path, std::string(ref.status().message()));
  return ref;
}

config::McpServerConfig ExpandServer(config::McpServerConfig server, const std::string& name,
                                     const std::string& dir) {
  server.name = name;
  for (std::string& arg : server.command) arg = Expand(arg, dir);
  for (auto& [key, value] : server.env) value = Expand(value, dir);
  return server;
}

// Fills the agent's unset fields from the preset `extends` names, turning
// the preset's own references into references to its package.
absl::Status ApplyPreset(config::AgentConfig& agent, Loader& loader, const std::string& base) {
  const std::string path = JoinPath(base, "extends");
  ASSIGN_OR_RETURN(PackageRef ref, Parse(agent.extends, config::kExportAgent, path));
  ASSIGN_OR_RETURN(const StoredPackage* pkg, loader.Get(ref.alias, path));
  ASSIGN_OR_RETURN(const config::AgentConfig* preset,
                   FindExport(pkg->manifest.agents, ref, *pkg, path));
  const std::string prefix = absl::StrCat("pkg/", ref.alias, "/");
  auto set_here = [&](const char* key) {
    return std::find(agent.explicit_keys.begin(), agent.explicit_keys.end(), key) !=
           agent.explicit_keys.end();
  };
  for (const std::string& key : preset->explicit_keys) {
    if (set_here(key.c_str())) continue;
    if (key == "system_prompt") agent.system_prompt = preset->system_prompt;
    if (key == "max_steps") agent.max_steps = preset->max_steps;
    if (key == "rules") agent.rules = preset->rules;
    if (key == "approval_mode") agent.approval_mode = preset->approval_mode;
    if (key == "compact") agent.compact = preset->compact;
    if (key == "skills") {
      agent.skills.clear();
      for (const std::string& s : preset->skills) agent.skills.push_back(prefix + "skill/" + s);
    }
    if (key == "prompts") {
      agent.prompts.clear();
      for (const std::string& p : preset->prompts) agent.prompts.push_back(prefix + "prompt/" + p);
    }
    if (key == "hooks") {
      agent.hooks.clear();
      for (const std::string& h : preset->hooks) agent.hooks.push_back(prefix + "hook/" + h);
    }
    if (key == "tools") {
      agent.tools_use.clear();
      for (const std::string& use : preset->tools_use) {
        absl::string_view rest = use;
        agent.tools_use.push_back(
            absl::ConsumePrefix(&rest, "mcp/") ? absl::StrCat(prefix, "mcp/", rest) : use);
      }
    }
  }
  // Set neither here nor by the preset: the default, as for any agent
  // (the config leaves an extending agent's own list empty).
  const bool preset_sets_tools =
      std::find(preset->explicit_keys.begin(), preset->explicit_keys.end(), "tools") !=
      preset->explicit_keys.end();
  if (!set_here("tools") && !preset_sets_tools) agent.tools_use = config::DefaultToolsUse();
  return absl::OkStatus();
}

// Gives mcp_servers.<name>, when it is defined with "from", its package's
// definition; once (a server filled in already is left as it is).
absl::Status ExpandFromServer(const std::string& name, config::McpServerConfig& server,
                              Loader& loader) {
  if (server.from.empty() || !server.command.empty() || !server.url.empty()) {
    return absl::OkStatus();  // not from a package, or filled in already
  }
  const std::string from_path = JoinPath(JoinPath("mcp_servers", name), "from");
  ASSIGN_OR_RETURN(PackageRef ref, Parse(server.from, config::kExportMcp, from_path));
  ASSIGN_OR_RETURN(const StoredPackage* pkg, loader.Get(ref.alias, from_path));
  ASSIGN_OR_RETURN(const config::McpServerConfig* exported,
                   FindExport(pkg->manifest.mcp, ref, *pkg, from_path));
  std::string from = std::move(server.from);
  server = ExpandServer(*exported, name, pkg->dir);
  server.from = std::move(from);
  return absl::OkStatus();
}

// The server a tools.use entry pkg/<alias>/mcp/<server>/<tool> names, as
// the agent gets it: mcp_servers.<server> with the package's definition and
// "from" the export.
absl::StatusOr<config::McpServerConfig> PackageServer(const PackageRef& ref, Loader& loader,
                                                      const std::string& path) {
  ASSIGN_OR_RETURN(const StoredPackage* pkg, loader.Get(ref.alias, path));
  ASSIGN_OR_RETURN(const config::McpServerConfig* server,
                   FindExport(pkg->manifest.mcp, ref, *pkg, path));
  config::McpServerConfig expanded = ExpandServer(*server, ref.name, pkg->dir);
  expanded.from = ref.ExportId();
  return expanded;
}

absl::Status ApplyTools(config::Config& config, config::AgentConfig& agent, Loader& loader,
                        const std::string& base) {
  const std::string use_path = JoinPath(JoinPath(base, "tools"), "use");
  for (size_t i = 0; i < agent.tools_use.size(); ++i) {
    std::string& use = agent.tools_use[i];
    const std::string path = IndexPath(use_path, i);
    if (config::IsPackageRef(use)) {
      ASSIGN_OR_RETURN(PackageRef ref, Parse(use, config::kExportMcp, path, /*with_tool=*/true));
      ASSIGN_OR_RETURN(config::McpServerConfig expanded, PackageServer(ref, loader, path));
      auto existing = config.mcp_servers.find(ref.name);
      if (existing != config.mcp_servers.end() && existing->second.from != ref.ExportId()) {
        return Loader::Error(
            path,
            absl::StrCat("the package's MCP server \"", ref.name, "\" has the name of mcp_servers.",
                         ref.name, "; give the package's server another name: \"mcp_servers\": {\"",
                         ref.alias, "-", ref.name, "\": {\"from\": \"", ref.ExportId(),
                         "\"}} and use mcp/", ref.alias, "-", ref.name, "/", ref.tool));
      }
      config.mcp_servers[ref.name] = std::move(expanded);
      use = absl::StrCat("mcp/", ref.name, "/", ref.tool);
      continue;
    }
    // Every server with "from" the entry may select (by name or by a glob
    // over server names, as McpManager selects them).
    for (auto& [name, server] : config.mcp_servers) {
      if (config::McpEntryMayCoverServer(use, name)) {
        RETURN_IF_ERROR(ExpandFromServer(name, server, loader));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ApplySkillsHooksModel(config::Config& config, config::AgentConfig& agent,
                                   Loader& loader, const std::string& base) {
  for (size_t i = 0; i < agent.skills.size(); ++i) {
    if (!config::IsPackageRef(agent.skills[i])) continue;
    const std::string path = IndexPath(JoinPath(base, "skills"), i);
    ASSIGN_OR_RETURN(PackageRef ref, Parse(agent.skills[i], config::kExportSkill, path));
    ASSIGN_OR_RETURN(const StoredPackage* pkg, loader.Get(ref.alias, path));
    ASSIGN_OR_RETURN(const SkillExport* skill, FindExport(pkg->manifest.skills, ref, *pkg, path));
    config.skill_dirs.push_back(absl::StrCat(pkg->dir, "/", skill->path));
    agent.skills[i] = skill->name;
  }
  for (size_t i = 0; i < agent.hooks.size(); ++i) {
    if (!config::IsPackageRef(agent.hooks[i])) continue;
    const std::string path = IndexPath(JoinPath(base, "hooks"), i);
    ASSIGN_OR_RETURN(PackageRef ref, Parse(agent.hooks[i], config::kExportHook, path));
    ASSIGN_OR_RETURN(const StoredPackage* pkg, loader.Get(ref.alias, path));
    ASSIGN_OR_RETURN(const config::HookConfig* hook,
                     FindExport(pkg->manifest.hooks, ref, *pkg, path));
    config::HookConfig expanded = *hook;
    expanded.name = agent.hooks[i];
    for (std::string& arg : expanded.command) arg = Expand(arg, pkg->dir);
    // A program path, and the script an interpreter runs, is the package's
    // own file, never one of the session's working directory (which the
    // project controls).
    for (size_t script : config::ScriptArguments(expanded.command)) {
      expanded.command[script] = AbsolutePath(expanded.command[script], pkg->dir);
    }
    if (!expanded.command.empty() && expanded.command[0].find('/') != std::string::npos) {
      expanded.command[0] = AbsolutePath(expanded.command[0], pkg->dir);
    }
    config.hooks[agent.hooks[i]] = std::move(expanded);
  }
  if (config::IsPackageRef(agent.model)) {
    const std::string path = JoinPath(base, "model");
    ASSIGN_OR_RETURN(PackageRef ref, Parse(agent.model, config::kExportModel, path));
    ASSIGN_OR_RETURN(const StoredPackage* pkg, loader.Get(ref.alias, path));
    ASSIGN_OR_RETURN(const config::ModelConfig* model,
                     FindExport(pkg->manifest.models, ref, *pkg, path));
    config::ModelConfig copy = *model;
    copy.name = agent.model;
    config.models[agent.model] = std::move(copy);
  }
  return absl::OkStatus();
}

// Appends the agent's prompt sections to its system prompt, in order.
absl::Status ApplyPrompts(config::AgentConfig& agent, Loader& loader, const std::string& base) {
  for (size_t i = 0; i < agent.prompts.size(); ++i) {
    const std::string path = IndexPath(JoinPath(base, "prompts"), i);
    ASSIGN_OR_RETURN(PackageRef ref, Parse(agent.prompts[i], config::kExportPrompt, path));
    ASSIGN_OR_RETURN(const StoredPackage* pkg, loader.Get(ref.alias, path));
    ASSIGN_OR_RETURN(const PromptExport* prompt,
                     FindExport(pkg->manifest.prompts, ref, *pkg, path));
    std::string text = prompt->text;
    if (!prompt->path.empty()) {
      // Checked: the bytes that were hashed. Trusted (nothing runs): the
      // file as it is.
      auto kept = pkg->prompt_texts.find(prompt->path);
      absl::StatusOr<std::string> read =
          loader.check() == EntryCheck::kRehash
              ? (kept != pkg->prompt_texts.end()
                     ? kept->second
                     : absl::InternalError(absl::StrCat("the prompt file ", prompt->path,
                                                        " was not kept with the entry's check")))
              : ReadSmallFile(absl::StrCat(pkg->dir, "/", prompt->path), kMaxPromptFileBytes);
      if (!read.ok()) {
        return Loader::Error(
            path, absl::StrCat("package \"", ref.alias, "\": ", read.status().message()));
      }
      text = std::move(*read);
    }
    absl::StrAppend(&agent.system_prompt, agent.system_prompt.empty() ? "" : "\n\n", text);
  }
  return absl::OkStatus();
}

// Adds to `out` the servers agents take from a package directly (their own
// or their preset's pkg/<alias>/mcp/<server>/... entries), once per name
// and export, by name; one that does not resolve with the reason.
void AddAgentServers(const config::Config& config, Loader& loader, ResolvedMcpServers& out) {
  std::map<std::pair<std::string, std::string>, AgentMcpServer> found;
  for (const auto& [agent_name, configured] : config.agents) {
    config::AgentConfig agent = configured;
    const std::string base = JoinPath("agents", agent_name);
    // A preset that does not resolve leaves no server known; a session of
    // the agent reports why.
    if (!agent.extends.empty() && !ApplyPreset(agent, loader, base).ok()) continue;
    const std::string use_path = JoinPath(JoinPath(base, "tools"), "use");
    for (size_t i = 0; i < agent.tools_use.size(); ++i) {
      const std::string& use = agent.tools_use[i];
      if (!config::IsPackageRef(use)) continue;
      const std::string path = IndexPath(use_path, i);
      absl::StatusOr<PackageRef> ref = Parse(use, config::kExportMcp, path, /*with_tool=*/true);
      // A config server of that name is listed as configured: the same
      // export with "from", or a clash a session of the agent reports.
      if (!ref.ok() || config.mcp_servers.contains(ref->name)) continue;
      auto key = std::make_pair(ref->name, ref->ExportId());
      if (found.contains(key)) continue;
      AgentMcpServer entry;
      absl::StatusOr<config::McpServerConfig> server = PackageServer(*ref, loader, path);
      if (server.ok()) {
        entry.server = std::move(*server);
      } else {
        entry.server.name = ref->name;
        entry.server.from = ref->ExportId();
        entry.error = std::string(server.status().message());
      }
      found.emplace(std::move(key), std::move(entry));
    }
  }
  for (auto& [key, entry] : found) out.agent_servers.push_back(std::move(entry));
}

const config::AgentConfig* SelectedAgent(const config::Config& config,
                                         const std::string& agent_name) {
  auto it = config.agents.find(agent_name.empty() ? config.default_agent : agent_name);
  return it == config.agents.end() ? nullptr : &it->second;
}

}  // namespace

absl::StatusOr<PackagedConfig> ResolvePackages(const config::Config& config,
                                               const std::string& agent_name, const EnvLookup& env,
                                               EntryCheck check) {
  const config::AgentConfig* agent = SelectedAgent(config, agent_name);
  if (agent == nullptr || !UsesPackages(config, *agent)) return PackagedConfig{config, {}};
  ASSIGN_OR_RETURN(PackageStore store, PackageStore::ForUser(env));
  return ResolvePackages(config, agent_name, store, check);
}

absl::StatusOr<PackagedConfig> ResolvePackages(const config::Config& config,
                                               const std::string& agent_name,
                                               const PackageStore& store, EntryCheck check) {
  PackageLoader packages(config.source_path, store, check);
  return ResolvePackages(config, agent_name, packages);
}

absl::StatusOr<PackagedConfig> ResolvePackages(const config::Config& config,
                                               const std::string& agent_name,
                                               PackageLoader& packages) {
  PackagedConfig out{config, {}};
  const std::string name = agent_name.empty() ? config.default_agent : agent_name;
  auto it = out.config.agents.find(name);
  if (it == out.config.agents.end() || !UsesPackages(config, it->second)) return out;
  config::AgentConfig& agent = it->second;
  const std::string base = JoinPath("agents", name);
  Loader loader(packages);
  if (!agent.extends.empty()) RETURN_IF_ERROR(ApplyPreset(agent, loader, base));
  RETURN_IF_ERROR(ApplyTools(out.config, agent, loader, base));
  RETURN_IF_ERROR(ApplySkillsHooksModel(out.config, agent, loader, base));
  RETURN_IF_ERROR(ApplyPrompts(agent, loader, base));
  out.packages = loader.used();
  return out;
}

ResolvedMcpServers ResolveMcpServers(const config::Config& config, const PackageStore& store,
                                     EntryCheck check) {
  ResolvedMcpServers out;
  out.servers = config.mcp_servers;
  PackageLoader packages(config.source_path, store, check);
  Loader loader(packages);
  for (auto& [name, server] : out.servers) {
    if (absl::Status s = ExpandFromServer(name, server, loader); !s.ok()) {
      out.errors[name] = std::string(s.message());
    }
  }
  AddAgentServers(config, loader, out);
  return out;
}

ResolvedMcpServers ResolveMcpServers(const config::Config& config, const EnvLookup& env,
                                     EntryCheck check) {
  const bool any_from = std::any_of(config.mcp_servers.begin(), config.mcp_servers.end(),
                                    [](const auto& entry) { return !entry.second.from.empty(); });
  // Only an agent that extends a preset or names a package server directly
  // can take a server from a package.
  const bool any_agent = std::any_of(config.agents.begin(), config.agents.end(), [](const auto& a) {
    return !a.second.extends.empty() ||
           std::any_of(a.second.tools_use.begin(), a.second.tools_use.end(),
                       [](const std::string& use) { return config::IsPackageRef(use); });
  });
  if (!any_from && !any_agent) return ResolvedMcpServers{config.mcp_servers, {}, {}};
  absl::StatusOr<PackageStore> store = PackageStore::ForUser(env);
  if (!store.ok()) {
    ResolvedMcpServers out{config.mcp_servers, {}, {}};
    for (const auto& [name, server] : config.mcp_servers) {
      if (!server.from.empty()) out.errors[name] = std::string(store.status().message());
    }
    return out;
  }
  return ResolveMcpServers(config, *store, check);
}

}  // namespace raw::packages
