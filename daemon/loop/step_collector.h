// StepCollector: consumes one inference request's ProviderEvents, streams
// the deltas to the session's subscribers, and assembles what the step
// produced (text, reasoning, tool calls, usage, finish or error). An attempt
// that is retried is dropped, but counts in the session's usage totals as a
// request of its own (committed with the retry's notice). Runs on the turn
// thread; not thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "daemon/events/conversation.h"
#include "daemon/loop/session_log.h"
#include "daemon/providers/provider.h"

namespace raw::loop {

struct CollectedCall {
  events::ToolCallRequest request;
  bool complete = false;
  // Not complete, in a response that ended at the model's output limit.
  bool cut_off_at_output_limit = false;
};

struct StepResult {
  std::string text;
  std::string reasoning;
  std::vector<events::OpaqueBlob> opaque;
  std::vector<CollectedCall> calls;
  std::optional<events::Usage> usage;
  std::optional<providers::FinishEvent> finish;
  std::optional<providers::ErrorEvent> error;
  bool any_output = false;  // some delta was published
};

// Adds `result`'s usage to a commit as one request of step `step`: the
// session's request total counts it whether or not it reported usage
// ("N of M requests reported X" needs the true M), and a usage it reported
// becomes a UsageReport event.
void AddRequestUsage(int step, const StepResult& result,
                     std::vector<events::EventPayload>& payloads, CommitExtras& extras);

class StepCollector : public providers::ProviderEventSink {
 public:
  // `step`: the turn's step the request belongs to.
  StepCollector(SessionLog& log, std::string turn_id, int step)
      : log_(log), turn_id_(std::move(turn_id)), step_(step) {}

  void OnEvent(const providers::ProviderEvent& event) override;

  StepResult& result() { return result_; }

 private:
  void OnRetry(const providers::RetryEvent& retry);

  SessionLog& log_;
  std::string turn_id_;
  int step_;
  StepResult result_;
};

}  // namespace raw::loop
