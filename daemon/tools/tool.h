// Tool: one handler the model can call, described by a ToolSpec.
//
// Every tool has a qualified name ("builtin/read_file"; later
// "mcp/<server>/<tool>") and a model-facing name matching
// ^[a-zA-Z0-9_-]{1,64}$ that every provider accepts.
//
// Handler contract: runs on the session's turn thread; may block; must
// return promptly once `ctx.cancel` is cancelled (killing whatever it
// started), reporting ToolOutput{status = kCancelled}. It never throws.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/cancel_token.h"
#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/events/session_event.h"

namespace raw::tools {

struct ToolContext {
  std::string cwd;  // the session's working directory (absolute)
  const config::ToolSettings& settings;
  const CancelToken& cancel;
};

struct ToolOutput {
  events::ToolStatus status = events::ToolStatus::kOk;
  std::string content;  // what the model receives

  static ToolOutput Ok(std::string content) { return {events::ToolStatus::kOk, std::move(content)}; }
  static ToolOutput Error(std::string content) {
    return {events::ToolStatus::kError, std::move(content)};
  }
  static ToolOutput Cancelled(std::string content) {
    return {events::ToolStatus::kCancelled, std::move(content)};
  }
};

using ToolHandler = std::function<ToolOutput(const Json& arguments, const ToolContext& ctx)>;

struct ToolSpec {
  std::string qualified_name;
  std::string model_name;
  std::string description;
  OrderedJson input_schema;
  // Conservative: true only for tools that cannot change anything.
  bool read_only = false;
  ToolHandler handler;
};

}  // namespace raw::tools
