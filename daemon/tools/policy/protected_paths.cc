#include "daemon/tools/policy/protected_paths.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/pattern.h"

namespace raw::tools::policy {
namespace {

struct HomeEntry {
  const char* name;  // "~/.ssh"
  bool directory;
};

constexpr HomeEntry kHomeEntries[] = {
    {"~/.ssh", true},
    {"~/.aws", true},
    {"~/.gnupg", true},
    {"~/.config/gcloud", true},
    {"~/.azure", true},
    {"~/.password-store", true},
    {"~/.config/gh", true},
    {"~/.netrc", false},
    {"~/.docker/config.json", false},
    {"~/.kube/config", false},
    {"~/.git-credentials", false},
    {"~/.npmrc", false},
    {"~/.pypirc", false},
    {"~/.pgpass", false},
    {"~/.vault-token", false},
    {"~/.cargo/credentials", false},
    {"~/.cargo/credentials.toml", false},
};

// What a process's files under /proc tell of it that may be secret: its
// environment (the daemon's holds the API keys and every variable withheld
// from bash), its command line and its memory; of every process and
// thread, since /proc/self is a link to the daemon's own number.
constexpr const char* kProcessPatterns[] = {
    "/proc/*/environ", "/proc/*/task/*/environ", "/proc/*/cmdline", "/proc/*/task/*/cmdline",
    "/proc/*/mem",     "/proc/*/task/*/mem",
};

}  // namespace

std::vector<ProtectedPath> ProtectedPaths(const config::Config& config, const EnvLookup& env) {
  std::vector<ProtectedPath> out;
  if (std::optional<std::string> home = env("HOME"); home && (*home)[0] == '/') {
    for (const HomeEntry& entry : kHomeEntries) {
      out.push_back({entry.name, AbsolutePath(std::string(entry.name).substr(2), *home),
                     entry.directory});
    }
  }
  for (const char* pattern : kProcessPatterns) {
    out.push_back({"process-environment", pattern, false, /*pattern=*/true});
  }
  if (absl::StatusOr<RawPaths> raw = ResolvePaths(env); raw.ok()) {
    out.push_back({"raw-config", Dirname(raw->config_file), true});
    out.push_back({"raw-state", raw->state_dir, true});
    out.push_back({"raw-data", raw->data_dir, true});
  }
  // The runtime directory holds raw-dashboard's --open page (the tokened
  // address) besides the socket: the one this environment names, the one a
  // gateway started without XDG_RUNTIME_DIR uses, and the last resort.
  const std::string runtime = ResolveRuntimeDir(env);
  out.push_back({"raw-runtime", runtime, true});
  const std::string fallback =
      ResolveRuntimeDir([&env](const std::string& name) -> std::optional<std::string> {
        if (name == "XDG_RUNTIME_DIR") return std::nullopt;
        return env(name);
      });
  if (fallback != runtime) out.push_back({"raw-runtime", fallback, true});
  const std::string last_resort = LastResortRuntimeDir();
  if (last_resort != runtime && last_resort != fallback) {
    out.push_back({"raw-runtime", last_resort, true});
  }
  if (!config.source_path.empty() && config.source_path[0] == '/') {
    out.push_back({"raw-config", config.source_path, false});
  }
  for (const auto& [name, variable] : config.variables) {
    if (variable.source == config::VariableSource::kFile && !variable.file.empty()) {
      out.push_back({"raw-variables", variable.file, false});
    }
  }
  return out;
}

std::vector<std::pair<config::RuleConfig, std::string>> ProtectedPathRules(
    const std::vector<ProtectedPath>& paths, const config::AgentConfig& agent) {
  std::vector<std::pair<config::RuleConfig, std::string>> rules;
  const auto& lifted = agent.allow_protected_paths;
  for (const ProtectedPath& p : paths) {
    if (std::find(lifted.begin(), lifted.end(), p.name) != lifted.end()) continue;
    std::string label = absl::StrCat("protected path ", p.name, "; an agent lifts it with \"",
                                     "allow_protected_paths\": [\"", p.name, "\"] in agents.",
                                     agent.name);
    config::RuleConfig rule;
    rule.action = config::RuleAction::kDeny;
    rule.tool = "builtin/*";
    rule.path = p.pattern ? p.path : EscapeGlob(p.path);
    rules.emplace_back(rule, label);
    if (p.directory) {
      rule.path = EscapeGlob(p.path) + "/**";
      rules.emplace_back(rule, label);
    }
  }
  return rules;
}

}  // namespace raw::tools::policy
