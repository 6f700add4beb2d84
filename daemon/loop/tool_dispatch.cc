#include "daemon/loop/tool_dispatch.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"

namespace raw::loop {

std::string ListToolNames(const ToolTable& table) {
  if (table.empty()) return "none";
  std::vector<std::string> names;
  for (const auto& [name, spec] : table) names.push_back(name);
  return absl::StrJoin(names, ", ");
}

tools::ToolOutput DispatchToolCall(const DispatchInput& input, const ToolTable& table,
                                   const tools::ToolContext& ctx) {
  const auto& call = input.call;
  auto it = table.find(call.name);
  if (it == table.end()) {
    return tools::ToolOutput::Error(absl::StrCat("unknown tool \"", call.name,
                                                 "\". Available tools: ", ListToolNames(table),
                                                 "."));
  }
  std::string text = call.arguments.empty() ? "{}" : call.arguments;
  auto args = ParseJson(text);
  if (!args.ok()) {
    return tools::ToolOutput::Error(absl::StrCat(
        "the arguments are not valid JSON (", args.status().message(),
        "). Send one JSON object that matches the tool's parameter schema."));
  }
  // A call from a stream that was cut off never runs, even when what
  // arrived happens to parse.
  if (!input.arguments_complete) {
    return tools::ToolOutput::Error(
        "the tool call was cut off before its arguments were complete, so it was not run. "
        "Call the tool again with complete arguments.");
  }
  if (!args->is_object()) {
    return tools::ToolOutput::Error(
        "the arguments must be a JSON object that matches the tool's parameter schema.");
  }
  if (ctx.cancel.cancelled()) {
    return tools::ToolOutput::Cancelled("Cancelled: the turn was interrupted before this call ran.");
  }
  return it->second->handler(*args, ctx);
}

}  // namespace raw::loop
