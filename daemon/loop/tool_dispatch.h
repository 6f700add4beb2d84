// Runs one committed tool call and turns every outcome into a ToolOutput:
// an unknown tool, arguments that are cut off, not JSON or not an object,
// a handler error and a cancellation each become a result the model can
// read. Never throws; never runs a call whose arguments were incomplete.
#pragma once

#include <map>
#include <string>

#include "daemon/events/conversation.h"
#include "daemon/tools/tool.h"

namespace raw::loop {

// The agent's selected tools by model-facing name.
using ToolTable = std::map<std::string, const tools::ToolSpec*>;

struct DispatchInput {
  const events::ToolCallRequest& call;
  bool arguments_complete = true;
};

tools::ToolOutput DispatchToolCall(const DispatchInput& input, const ToolTable& table,
                                   const tools::ToolContext& ctx);

// "read_file, write_file" (sorted), or "none" when empty.
std::string ListToolNames(const ToolTable& table);

}  // namespace raw::loop
