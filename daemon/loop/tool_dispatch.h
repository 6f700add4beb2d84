// Tool dispatch in two halves. PrepareToolCall turns one committed call into
// either a runnable call (the tool's spec and its parsed, schema-valid
// arguments) or the error result the model gets instead: an unknown tool,
// arguments that were cut off, too large, not JSON, not an object or not
// matching the tool's schema (the message names the failing path and what
// was expected). RunPreparedCall runs the handler. Never throws; never runs
// a call whose arguments were incomplete or invalid. A result of a call that
// never reached its handler carries the tool's not_run_note
// (WithNotRunNote), so a tool can tell the model how to recover.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "daemon/events/conversation.h"
#include "daemon/tools/tool.h"

namespace raw::loop {

// The agent's selected tools by model-facing name.
using ToolTable = std::map<std::string, const tools::ToolSpec*>;

// Arguments larger than this are refused unparsed.
inline constexpr size_t kMaxToolArgumentBytes = 4 << 20;

struct DispatchInput {
  const events::ToolCallRequest& call;
  // The provider's ToolCallEndEvent::complete: closed, a JSON object, and
  // in a response that ended normally.
  bool arguments_complete = true;
  // The response ended at the model's output limit before the call was
  // complete: whatever its arguments, it was cut off.
  bool cut_off_at_output_limit = false;
};

struct PreparedCall {
  const tools::ToolSpec* spec = nullptr;  // null for an unknown tool
  Json arguments;                         // an object when `error` is unset
  std::optional<tools::ToolOutput> error;
};

PreparedCall PrepareToolCall(const DispatchInput& input, const ToolTable& table);

// REQUIRES: !prepared.error.
tools::ToolOutput RunPreparedCall(const PreparedCall& prepared, const tools::ToolContext& ctx);

// `output`, the result of a call of `spec` that never reached its handler
// (refused or cancelled), with the tool's ToolSpec::not_run_note appended
// on a line of its own. Unchanged when the tool has no note, `prior_meta`
// is null or fails (logged), or the note is "".
tools::ToolOutput WithNotRunNote(
    const tools::ToolSpec& spec,
    const std::function<absl::StatusOr<std::vector<std::string>>()>& prior_meta,
    tools::ToolOutput output);

// Both halves; for callers that need no approval step.
tools::ToolOutput DispatchToolCall(const DispatchInput& input, const ToolTable& table,
                                   const tools::ToolContext& ctx);

// "read_file, write_file" (sorted), or "none" when empty.
std::string ListToolNames(const ToolTable& table);

}  // namespace raw::loop
