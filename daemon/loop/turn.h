// Turn: one run of the agent loop, from one user message to one TurnEnded.
//
// The rules (each is tested end to end):
// - at most max_steps inference requests;
// - text is streamed as it arrives; the assistant message is committed only
//   after its stream finished; a stream that breaks is an error and its tool
//   calls never run;
// - a batch of tool calls is committed first, then the calls run in the
//   order the model listed them, and every call gets a result that is
//   committed before the next request;
// - the loop stops when the model answers without a tool call, at the step
//   limit (if the last permitted request asks for tools, they are recorded
//   as not run), on an error, or on cancellation (completed results stay,
//   every unfinished call gets a cancelled result);
// - the request contains only the system prompt, the selected tools'
//   schemas and the model context.
// Run() does not record TurnEnded itself: it returns it, and the runner
// commits it (see SessionRunner), so that a turn ends exactly once.
//
// Runs on its own thread; the context vector is owned by the runner and only
// touched by the running turn.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/cancel_token.h"
#include "daemon/config/config_loader.h"
#include "daemon/events/session_event.h"
#include "daemon/loop/session_log.h"
#include "daemon/loop/step_collector.h"
#include "daemon/loop/tool_dispatch.h"
#include "daemon/providers/provider.h"

namespace raw::loop {

// Everything a turn needs, resolved before it starts.
struct TurnPlan {
  std::string turn_id;
  std::string user_text;
  std::string cwd;
  config::ResolvedAgent agent;
  config::ToolSettings tool_settings;
  std::unique_ptr<providers::Provider> provider;
  std::vector<providers::ToolDefinition> tool_definitions;  // sorted, stable
  ToolTable tools;
};

class Turn {
 public:
  Turn(TurnPlan plan, SessionLog& log, std::vector<events::ContextItem>& context,
       const CancelToken& cancel);

  // Returns the TurnEnded to record. Never throws.
  events::TurnEnded Run();

 private:
  enum class StepOutcome { kContinue, kDone };

  StepOutcome RunStep(int step, events::TurnEnded* end);
  // Commits the step's assistant message, tool-call batch and usage.
  absl::Status CommitAssistant(int step, const StepResult& result);
  // Runs (or, at the step limit, skips) the committed calls.
  absl::Status RunCalls(const StepResult& result, bool skip_all);
  absl::Status CommitResult(const CollectedCall& call, const tools::ToolOutput& output,
                            int64_t duration_ms);
  absl::Status Notice(events::NoticeLevel level, std::string text);
  std::string ToolFor(const std::string& model_name) const;
  events::TurnEnded End(events::TurnEndReason reason, std::string message);

  TurnPlan plan_;
  SessionLog& log_;
  std::vector<events::ContextItem>& context_;
  const CancelToken& cancel_;
  int steps_ = 0;
};

}  // namespace raw::loop
