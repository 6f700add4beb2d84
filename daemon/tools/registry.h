// ToolRegistry: the tools Raw knows, and the selection an agent exposes.
//
// Thread-safety: built once at start-up, then read-only (any thread).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "daemon/tools/tool.h"

namespace raw::tools {

class ToolRegistry {
 public:
  // Fails on a duplicate qualified or model-facing name, an invalid
  // model-facing name, or an input_schema that is not a valid Draft 7 JSON
  // Schema (the message names the tool). Sets spec.validator.
  absl::Status Register(ToolSpec spec);

  const ToolSpec* FindQualified(const std::string& qualified_name) const;

  // The tools matching `patterns` (exact qualified names or globs with `*`),
  // ordered by qualified name so the definitions are the same bytes on every
  // request. A pattern that matches nothing is an error naming it.
  absl::StatusOr<std::vector<const ToolSpec*>> Select(
      const std::vector<std::string>& patterns) const;

  const std::map<std::string, ToolSpec>& all() const { return tools_; }

 private:
  std::map<std::string, ToolSpec> tools_;  // by qualified name
};

// True when `name` matches glob `pattern` (`*` matches any run, including `/`).
bool GlobMatch(const std::string& pattern, const std::string& name);

// Registers every built-in tool (daemon/tools/builtin/builtin_tools.cc).
absl::Status RegisterBuiltinTools(ToolRegistry& registry);

}  // namespace raw::tools
