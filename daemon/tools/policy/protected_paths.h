// Protected paths: where secrets live (SSH and cloud credentials, Raw's own
// config, variables, state and runtime files), which every built-in file
// tool is denied by default whatever the agent's rules and approval mode
// say. A prompt
// injection in a README must not be able to ask read_file for ~/.ssh/id_rsa
// and have a hurried user (or allow_all) say yes.
//
// The protected paths, by the names agents.<name>.allow_protected_paths
// takes (config::kProtectedPathNames):
//   ~/.ssh ~/.aws ~/.gnupg ~/.config/gcloud ~/.azure ~/.password-store
//   ~/.config/gh                            directories, with all below
//   ~/.netrc ~/.docker/config.json ~/.kube/config ~/.git-credentials
//   ~/.npmrc ~/.pypirc ~/.pgpass ~/.vault-token ~/.cargo/credentials
//   ~/.cargo/credentials.toml               files
//   process-environment  /proc/*/environ, cmdline and mem, and those of
//                  every thread (/proc/self/environ is the daemon's, with
//                  its API keys)
//   raw-config     $XDG_CONFIG_HOME/raw (and the config file in use)
//   raw-state      $XDG_STATE_HOME/raw (sessions database, log)
//   raw-data       $XDG_DATA_HOME/raw
//   raw-runtime    $XDG_RUNTIME_DIR/raw, its fallback $XDG_STATE_HOME/raw/run
//                  and /tmp/raw-$UID (the daemon socket, raw-dashboard's
//                  --open page with its token)
//   raw-variables  the file of every file-sourced variable
// An agent lifts one by naming it in allow_protected_paths; its own rules
// and approval mode then decide as for any other path.
// Pure apart from reading the environment given; thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/paths.h"
#include "daemon/config/config.h"

namespace raw::tools::policy {

struct ProtectedPath {
  std::string name;  // as in config::kProtectedPathNames
  std::string path;  // absolute
  bool directory = false;  // the path and everything below it
  bool pattern = false;    // `path` is a glob (kPath style), not a path
};

// Every protected path for `config` under `env` (HOME and the XDG
// variables); those that cannot be resolved (no HOME) are left out.
std::vector<ProtectedPath> ProtectedPaths(const config::Config& config, const EnvLookup& env);

// Deny rules for every builtin/* path tool, with the label reasons name
// them by ("protected path ~/.ssh; lift it with
// agents.coder.allow_protected_paths"), for the protected paths `agent` does
// not lift. For RuleSet::PrependRules.
std::vector<std::pair<config::RuleConfig, std::string>> ProtectedPathRules(
    const std::vector<ProtectedPath>& paths, const config::AgentConfig& agent);

}  // namespace raw::tools::policy
