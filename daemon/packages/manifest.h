// Manifest: the validated form of a package's raw-package.json
// (docs/packages.md; docs/package.schema.json describes it for editors).
//
// Every problem is collected with its JSON path, like the config's:
//   exports.hooks.audit.event: "pre_tool" is not one of: session_start, ...
// Exports reuse the config's own entry readers (hooks, MCP servers, agents,
// models), so a definition means the same in a package and in config.json.
// "${package}" in a hook's or MCP server's command and env stands for the
// package's directory in the store; it is substituted when an agent using
// the export is resolved. What those commands name of the package stays
// inside it (package_commands.h). Pure; thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/config/config.h"
#include "daemon/config/config_loader.h"
#include "daemon/packages/package_tree.h"

namespace raw::packages {

inline constexpr char kPackageDirVariable[] = "${package}";
inline constexpr int64_t kMaxManifestBytes = 1 << 20;
// The largest prompt file (a prompt export's "path") a session reads;
// install and inspect refuse a larger one (CheckExportFiles).
inline constexpr int64_t kMaxPromptFileBytes = 1 << 20;

struct SkillExport {
  std::string name;
  std::string path;  // relative folder holding SKILL.md
  bool operator==(const SkillExport&) const = default;
};

struct PromptExport {
  std::string name;
  std::string text;  // inline text, or
  std::string path;  // a relative file holding it
  bool operator==(const PromptExport&) const = default;
};

struct Manifest {
  std::string name;
  std::string version;
  std::string description;
  std::string homepage;
  std::string license;
  std::map<std::string, SkillExport> skills;
  std::map<std::string, config::HookConfig> hooks;
  std::map<std::string, config::McpServerConfig> mcp;
  // Agent presets: partial agents; explicit_keys says what each sets.
  std::map<std::string, config::AgentConfig> agents;
  std::map<std::string, PromptExport> prompts;
  std::map<std::string, config::ModelConfig> models;

  // "skill/review", "mcp/notes", ... sorted by kind then name.
  std::vector<std::string> ExportNames() const;
};

// Parses `text` (the manifest) of a package whose files are `files`
// (relative paths, see package_tree.h): paths it names must be there. On
// failure returns kInvalidArgument listing the problems one per line, and
// fills `problems` if given.
absl::StatusOr<Manifest> ParseManifest(std::string_view text, const std::set<std::string>& files,
                                       std::vector<config::ConfigProblem>* problems = nullptr);

// Reads and parses <root>/raw-package.json for the package whose files are
// `files`; errors name the file.
absl::StatusOr<Manifest> ReadManifest(const std::string& root, const std::set<std::string>& files);

// What the manifest alone cannot tell, checked against the files under
// `root` (whose tree is `entries`) when a package is installed or
// inspected: a prompt's path must name a regular file (the resolver reads
// it without following links) of at most kMaxPromptFileBytes (a session
// reads no more), and each skill export's SKILL.md must
// have a valid front matter that names the skill as the export is named
// (the skill is selected by that name). kInvalidArgument naming the file
// and, one per line, the JSON path of each unusable export. Reads a few
// small files; runs nothing.
absl::Status CheckExportFiles(const std::string& root, const std::vector<TreeEntry>& entries,
                              const Manifest& manifest);

}  // namespace raw::packages
