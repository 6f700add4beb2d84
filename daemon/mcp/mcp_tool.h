// McpTool and CallToolResult: the values of tools/list and tools/call, as
// parsed from a server's JSON. Pure data and parsing; no I/O.
//
// Thread-safety: plain values.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/json.h"

namespace raw::mcp {

struct McpTool {
  std::string name;
  std::string title;  // title, else annotations.title; may be empty
  std::string description;
  OrderedJson input_schema;
  // Hints from annotations (untrusted; absent = not given).
  std::optional<bool> read_only_hint;
  std::optional<bool> destructive_hint;
  std::optional<bool> open_world_hint;
  // execution.taskSupport == "required": callable only as a task, which Raw
  // does not implement.
  bool task_required = false;

  // Allowed by default only when the server says it is read-only, does not
  // say it is destructive, and says it deals with no outside entity
  // (openWorldHint false; absent means true, as the protocol has it): a
  // read-only search of the web still carries its arguments out.
  bool read_only() const {
    return read_only_hint == true && destructive_hint != true && open_world_hint == false;
  }

  bool operator==(const McpTool&) const = default;
};

// Parses one element of tools/list's `tools`. InvalidArgument names what is
// missing (a name, an object inputSchema).
absl::StatusOr<McpTool> ParseTool(const Json& value);

struct CallToolResult {
  Json content = Json::array();  // content blocks
  Json structured_content;       // null when absent
  bool is_error = false;
};

// Parses a tools/call result. A missing `content` is taken as empty.
absl::StatusOr<CallToolResult> ParseCallToolResult(const Json& value);

}  // namespace raw::mcp
