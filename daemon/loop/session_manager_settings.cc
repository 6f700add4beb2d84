// The daemon's settings outside sessions: the config file's check and the
// plugin settings kept in the store (the dashboard's Raven card).
#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/json.h"
#include "common/status_macros.h"
#include "daemon/config/named_paths.h"
#include "daemon/config/raven_overrides.h"
#include "daemon/loop/agent_check.h"
#include "daemon/loop/session_manager.h"
#include "daemon/loop/turn_planner.h"

namespace raw::loop {

absl::StatusOr<PluginSettingsView> SessionManager::GetPluginSettings(const std::string& ns) {
  PluginSettingsView view;
  ASSIGN_OR_RETURN(view.stored, deps_.store.GetPluginSettings(ns));
  if (ns == config::kRavenSettingsNamespace) {
    ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
    view.schema_json = config::RavenOverrideSchema().dump();
    view.config_values_json = config::RavenOverridableValues(cfg.raven).dump();
    const Json inactive = config::RavenInactiveSections(cfg.raven);
    for (const auto& [section, why] : inactive.items()) {
      view.inactive_sections[section] = why.get<std::string>();
    }
    // A stored override the config refuses now is not in effect either
    // (keyed "section.field"); the other overrides are.
    if (absl::StatusOr<Json> stored = ParseJson(view.stored.settings_json); stored.ok()) {
      for (const auto& [path, why] : config::ApplyRavenOverridesByField(cfg, *stored).broken) {
        view.inactive_sections.emplace(path, why);
      }
    }
  }
  return view;
}

void SessionManager::SetPluginSettings(std::string ns, std::string settings_json,
                                       int64_t expected_revision,
                                       Reply<store::PluginSettings> reply) {
  bool scheduled =
      pool_.Schedule([this, ns = std::move(ns), settings_json = std::move(settings_json),
                      expected_revision, reply] {
        if (ns == config::kRavenSettingsNamespace) {
          absl::StatusOr<config::Config> cfg = LoadConfig();
          if (!cfg.ok()) {
            reply(cfg.status());
            return;
          }
          absl::StatusOr<Json> parsed = ParseJson(settings_json);
          if (!parsed.ok()) {
            reply(parsed.status());
            return;
          }
          // What the save replaces. Read at another revision, the write is
          // refused as stale anyway: compare with nothing then.
          absl::StatusOr<store::PluginSettings> current = deps_.store.GetPluginSettings(ns);
          if (!current.ok()) {
            reply(current.status());
            return;
          }
          absl::StatusOr<Json> stored = current->revision == expected_revision
                                            ? ParseJson(current->settings_json)
                                            : absl::StatusOr<Json>(*parsed);
          if (!stored.ok()) {
            reply(stored.status());
            return;
          }
          if (absl::Status s = config::CheckRavenOverridesSave(*cfg, *stored, *parsed); !s.ok()) {
            reply(s);
            return;
          }
        }
        reply(deps_.store.SetPluginSettings(ns, settings_json, expected_revision));
      });
  if (!scheduled) reply(absl::UnavailableError("the daemon is shutting down"));
}

void SessionManager::CheckConfig(std::string path, Reply<ConfigCheck> reply) {
  bool scheduled =
      pool_.Schedule([this, path = std::move(path), reply] { reply(CheckConfigNow(path)); });
  if (!scheduled) reply(absl::UnavailableError("the daemon is shutting down"));
}

ConfigCheck SessionManager::CheckConfigNow(const std::string& path) {
  ConfigCheck check;
  check.path = path.empty() ? deps_.config_path : path;
  struct stat st;
  check.exists = stat(check.path.c_str(), &st) == 0;
  std::vector<config::ConfigProblem> problems;
  auto cfg = config::LoadConfigFile(check.path, &problems);
  if (!cfg.ok()) {
    if (problems.empty()) {
      check.errors.push_back(std::string(cfg.status().message()));
    } else {
      for (const auto& p : problems) check.errors.push_back(p.ToString());
    }
    return check;
  }
  // Tool selections are checked against the registry as well.
  for (const auto& [name, agent] : cfg->agents) {
    // mcp/ and pkg/ entries are checked by the loader. Each entry on its
    // own, so that every one matching no tool is named with its index.
    for (size_t i = 0; i < agent.tools_use.size(); ++i) {
      if (NonMcpPatterns({agent.tools_use[i]}).empty()) continue;
      auto selected = deps_.tools.Select({agent.tools_use[i]});
      if (selected.ok()) continue;
      absl::string_view message = selected.status().message();
      absl::ConsumePrefix(&message, "tools.use: ");
      check.errors.push_back(absl::StrCat("agents.", name, ".tools.use[", i, "]: ", message));
    }
  }
  std::vector<config::ConfigProblem> missing = config::CheckNamedPaths(*cfg);
  for (const auto& p : missing) check.errors.push_back(p.ToString());
  if (missing.empty()) {
    CheckAgents(*cfg, packages::PackageStore::ForUser(deps_.env), check.errors);
  }
  return check;
}

}  // namespace raw::loop
