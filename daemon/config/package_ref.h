// PackageRef: a reference from config.json to one export of an installed
// package, "pkg/<alias>/<kind>/<name>" (docs/packages.md). The config checks
// only the shape of a reference; what it names is looked up in the package
// store when an agent that uses it is resolved (daemon/packages). Pure;
// thread-safe.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace raw::config {

// The kinds of export a package may hold, as written in references.
inline constexpr char kExportSkill[] = "skill";
inline constexpr char kExportHook[] = "hook";
inline constexpr char kExportMcp[] = "mcp";
inline constexpr char kExportAgent[] = "agent";
inline constexpr char kExportPrompt[] = "prompt";
inline constexpr char kExportModel[] = "model";

struct PackageRef {
  std::string alias;  // the per-config name the package was installed as
  std::string kind;   // one of kExport*
  std::string name;   // the export's name in the package's manifest
  // tools.use only: what follows "pkg/<alias>/mcp/<server>/", a tool name
  // or glob ("*", "search").
  std::string tool;

  // "pkg/<alias>/<kind>/<name>" (without `tool`).
  std::string ExportId() const;
};

// ^[a-z0-9][a-z0-9_.-]{0,63}$
bool IsPackageAlias(absl::string_view alias);

// True when `text` starts with "pkg/".
bool IsPackageRef(absl::string_view text);

// Parses "pkg/<alias>/<kind>/<name>" where <kind> must be `kind`. With
// `with_tool`, a fourth part "/<tool or glob>" is required (tools.use). The
// error message says what was expected, for "<path>: <message>".
absl::StatusOr<PackageRef> ParsePackageRef(absl::string_view text, absl::string_view kind,
                                           bool with_tool = false);

}  // namespace raw::config
