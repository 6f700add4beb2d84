#include "clients/acp/tool_calls.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "clients/present/tool_text.h"

namespace raw::acp {
namespace {

std::string StringArg(const Json& args, const char* key) {
  if (!args.is_object()) return "";
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Absolute(const std::string& path, const std::string& cwd) {
  if (path.empty() || cwd.empty()) return path;
  std::filesystem::path p(path);
  if (p.is_absolute()) return p.lexically_normal().string();
  return (std::filesystem::path(cwd) / p).lexically_normal().string();
}

}  // namespace

std::string ToolKind(const std::string& tool) {
  if (tool == "builtin/read_file" || tool == "builtin/list_dir" || tool == "builtin/load_skill") {
    return "read";
  }
  if (tool == "builtin/glob" || tool == "builtin/grep") return "search";
  if (tool == "builtin/edit_file" || tool == "builtin/write_file") return "edit";
  if (tool == "builtin/bash") return "execute";
  if (tool == "builtin/web_fetch") return "fetch";
  return "other";
}

std::string ToolTitle(const std::string& name, const std::string& arguments_json) {
  std::string key = present::KeyArgument(arguments_json);
  return key.empty() ? name : absl::StrCat(name, " ", key);
}

bool TitleIsShortened(const std::string& arguments_json) {
  return present::KeyArgument(arguments_json) != present::KeyArgumentText(arguments_json);
}

std::string FullCallText(const std::string& tool, const std::string& arguments_json) {
  std::string text;
  std::string language = "text";
  Json args = RawInput(arguments_json);
  if (tool == "builtin/bash" && args.is_object() && args.contains("command") &&
      args["command"].is_string()) {
    text = args["command"].get<std::string>();
    language = "sh";
  } else {
    text = absl::StrJoin(present::ArgumentLines(arguments_json), "\n");
  }
  if (text.empty()) return "";
  // A fence longer than any run of backticks in the text, so that the text
  // cannot end the block early.
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  return absl::StrCat(fence, language, "\n", text, "\n", fence);
}

Json RawInput(const std::string& arguments_json) {
  absl::StatusOr<Json> parsed = ParseJson(arguments_json);
  return parsed.ok() ? *parsed : Json(arguments_json);
}

Json Locations(const std::string& tool, const std::string& arguments_json,
               const std::string& cwd) {
  Json locations = Json::array();
  Json args = RawInput(arguments_json);
  std::string path = StringArg(args, "path");
  if (path.empty()) return locations;
  Json location = {{"path", Absolute(path, cwd)}};
  if (tool == "builtin/read_file" && args.contains("offset") && args["offset"].is_number_integer() &&
      args["offset"].get<int64_t>() >= 1) {
    location["line"] = args["offset"];
  }
  locations.push_back(std::move(location));
  return locations;
}

Json EditDiff(const std::string& tool, const std::string& arguments_json, const std::string& cwd) {
  Json content = Json::array();
  Json args = RawInput(arguments_json);
  std::string path = StringArg(args, "path");
  if (path.empty()) return content;
  if (tool == "builtin/edit_file") {
    content.push_back({{"type", "diff"},
                       {"path", Absolute(path, cwd)},
                       {"oldText", StringArg(args, "old_string")},
                       {"newText", StringArg(args, "new_string")}});
  } else if (tool == "builtin/write_file") {
    content.push_back({{"type", "diff"},
                       {"path", Absolute(path, cwd)},
                       {"oldText", nullptr},
                       {"newText", StringArg(args, "content")}});
  }
  return content;
}

Json ToolCallUpdate(const v1::ToolCall& call, const std::string& cwd) {
  Json update = {{"sessionUpdate", "tool_call"},
                 {"toolCallId", call.call_id()},
                 {"title", ToolTitle(call.name(), call.arguments())},
                 {"kind", ToolKind(call.tool())},
                 {"status", "pending"},
                 {"locations", Locations(call.tool(), call.arguments(), cwd)},
                 {"rawInput", RawInput(call.arguments())}};
  Json diff = EditDiff(call.tool(), call.arguments(), cwd);
  if (!diff.empty()) update["content"] = std::move(diff);
  return update;
}

std::string ResultStatus(v1::ToolResultStatus status) {
  return status == v1::TOOL_RESULT_STATUS_OK ? "completed" : "failed";
}

Json TextContent(const std::string& text) {
  return {{"type", "content"}, {"content", {{"type", "text"}, {"text", text}}}};
}

Json ResultContent(const v1::ToolResult& result, const std::string& arguments_json,
                   const std::string& cwd) {
  if (result.status() == v1::TOOL_RESULT_STATUS_OK) {
    Json diff = EditDiff(result.tool(), arguments_json, cwd);
    if (!diff.empty()) return diff;
    return Json::array({TextContent(result.content())});
  }
  return Json::array({TextContent(
      absl::StrCat(present::ToolStatusName(result.status()), ": ", result.content()))});
}

}  // namespace raw::acp
