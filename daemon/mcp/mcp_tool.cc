#include "daemon/mcp/mcp_tool.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace raw::mcp {
namespace {

std::string StringField(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<bool> BoolField(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

}  // namespace

absl::StatusOr<McpTool> ParseTool(const Json& value) {
  if (!value.is_object()) return absl::InvalidArgumentError("a tool entry is not an object");
  McpTool tool;
  tool.name = StringField(value, "name");
  if (tool.name.empty()) return absl::InvalidArgumentError("a tool has no name");
  auto schema = value.find("inputSchema");
  if (schema == value.end() || !schema->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tool ", tool.name, " has no inputSchema object"));
  }
  // Keys come out sorted (Json is ordered by key), so the schema's bytes are
  // the same on every run whatever order the server used.
  absl::StatusOr<OrderedJson> ordered = ParseOrderedJson(DumpJson(*schema));
  if (!ordered.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tool ", tool.name, " has an invalid inputSchema"));
  }
  tool.input_schema = *std::move(ordered);
  tool.description = StringField(value, "description");
  tool.title = StringField(value, "title");
  if (auto annotations = value.find("annotations");
      annotations != value.end() && annotations->is_object()) {
    if (tool.title.empty()) tool.title = StringField(*annotations, "title");
    tool.read_only_hint = BoolField(*annotations, "readOnlyHint");
    tool.destructive_hint = BoolField(*annotations, "destructiveHint");
    tool.open_world_hint = BoolField(*annotations, "openWorldHint");
  }
  if (auto execution = value.find("execution");
      execution != value.end() && execution->is_object()) {
    tool.task_required = StringField(*execution, "taskSupport") == "required";
  }
  return tool;
}

absl::StatusOr<CallToolResult> ParseCallToolResult(const Json& value) {
  if (!value.is_object()) {
    return absl::InvalidArgumentError("the tools/call result is not an object");
  }
  CallToolResult result;
  if (auto content = value.find("content"); content != value.end()) {
    if (!content->is_array()) {
      return absl::InvalidArgumentError("the tools/call result's content is not an array");
    }
    result.content = *content;
  }
  if (auto structured = value.find("structuredContent"); structured != value.end()) {
    result.structured_content = *structured;
  }
  if (auto is_error = value.find("isError"); is_error != value.end() && is_error->is_boolean()) {
    result.is_error = is_error->get<bool>();
  }
  return result;
}

}  // namespace raw::mcp
