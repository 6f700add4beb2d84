#include "daemon/loop/tool_dispatch.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "common/logging.h"
#include "daemon/tools/schema_validator.h"

namespace raw::loop {

std::string ListToolNames(const ToolTable& table) {
  if (table.empty()) return "none";
  std::vector<std::string> names;
  for (const auto& [name, spec] : table) names.push_back(name);
  return absl::StrJoin(names, ", ");
}

PreparedCall PrepareToolCall(const DispatchInput& input, const ToolTable& table) {
  PreparedCall prepared;
  const auto& call = input.call;
  auto it = table.find(call.name);
  if (it == table.end()) {
    prepared.error = tools::ToolOutput::Error(absl::StrCat(
        "unknown tool \"", call.name, "\". Available tools: ", ListToolNames(table), "."));
    return prepared;
  }
  prepared.spec = it->second;
  if (call.arguments.size() > kMaxToolArgumentBytes) {
    prepared.error = tools::ToolOutput::Error(absl::StrCat(
        "the arguments are ", call.arguments.size(), " bytes, more than the limit of ",
        kMaxToolArgumentBytes, " bytes, so the call was not run."));
    return prepared;
  }
  // A call the output limit cut off is told so first: its arguments
  // usually stop mid-string, and a JSON error would hide the cause (and
  // invite the same oversized call again).
  if (input.cut_off_at_output_limit) {
    prepared.error = tools::ToolOutput::Error(
        "the tool call was cut off at the model's output limit before its arguments were "
        "complete, so it was not run. Call the tool again with complete arguments; split a large "
        "write into smaller steps.");
    return prepared;
  }
  std::string text = call.arguments.empty() ? "{}" : call.arguments;
  auto args = ParseJson(text);
  if (!args.ok()) {
    prepared.error = tools::ToolOutput::Error(absl::StrCat(
        // ParseJson's message gives where and what went wrong, never the
        // text: the model does not get its own arguments back.
        "the arguments are not valid JSON (", args.status().message(),
        "). Send one JSON object that matches the tool's parameter schema."));
    return prepared;
  }
  // A call from a stream that was cut off never runs, even when what
  // arrived happens to parse.
  if (!input.arguments_complete) {
    prepared.error = tools::ToolOutput::Error(
        "the tool call was cut off before its arguments were complete, so it was not run. "
        "Call the tool again with complete arguments.");
    return prepared;
  }
  if (!args->is_object()) {
    prepared.error = tools::ToolOutput::Error(
        "the arguments must be a JSON object that matches the tool's parameter schema.");
    return prepared;
  }
  if (prepared.spec->validator) {
    absl::Status valid = prepared.spec->validator->Validate(*args, call.name);
    if (!valid.ok()) {
      prepared.error = tools::ToolOutput::Error(std::string(valid.message()));
      return prepared;
    }
  }
  prepared.arguments = std::move(*args);
  return prepared;
}

tools::ToolOutput RunPreparedCall(const PreparedCall& prepared, const tools::ToolContext& ctx) {
  if (ctx.cancel.cancelled()) {
    return WithNotRunNote(
        *prepared.spec, ctx.prior_meta,
        tools::ToolOutput::Cancelled("Cancelled: the turn was interrupted before this call ran."));
  }
  return prepared.spec->handler(prepared.arguments, ctx);
}

tools::ToolOutput WithNotRunNote(
    const tools::ToolSpec& spec,
    const std::function<absl::StatusOr<std::vector<std::string>>()>& prior_meta,
    tools::ToolOutput output) {
  if (!spec.not_run_note || !prior_meta) return output;
  absl::StatusOr<std::vector<std::string>> prior = prior_meta();
  if (!prior.ok()) {
    RAW_LOG(Warning) << "the earlier results of " << spec.qualified_name
                     << " could not be read for its note: " << prior.status();
    return output;
  }
  std::string note = spec.not_run_note(*prior);
  if (!note.empty()) absl::StrAppend(&output.content, "\n", note);
  return output;
}

tools::ToolOutput DispatchToolCall(const DispatchInput& input, const ToolTable& table,
                                   const tools::ToolContext& ctx) {
  PreparedCall prepared = PrepareToolCall(input, table);
  if (prepared.error) return *prepared.error;
  return RunPreparedCall(prepared, ctx);
}

}  // namespace raw::loop
