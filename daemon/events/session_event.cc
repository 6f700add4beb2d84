#include "daemon/events/session_event.h"

#include <variant>

namespace raw::events {
namespace {

// One overload per alternative: adding an alternative to EventPayload without
// naming it here fails to compile.
struct KindNamer {
  const char* operator()(const TurnStarted&) const { return "turn_started"; }
  const char* operator()(const UserMessage&) const { return "user_message"; }
  const char* operator()(const TextDelta&) const { return "text_delta"; }
  const char* operator()(const ReasoningDelta&) const { return "reasoning_delta"; }
  const char* operator()(const AssistantMessage&) const { return "assistant_message"; }
  const char* operator()(const ToolCallBatch&) const { return "tool_call_batch"; }
  const char* operator()(const ToolStarted&) const { return "tool_started"; }
  const char* operator()(const ToolResult&) const { return "tool_result"; }
  const char* operator()(const UsageReport&) const { return "usage_report"; }
  const char* operator()(const Notice&) const { return "notice"; }
  const char* operator()(const TurnEnded&) const { return "turn_ended"; }
  const char* operator()(const StreamReset&) const { return "stream_reset"; }
  const char* operator()(const Resync&) const { return "resync"; }
  const char* operator()(const ApprovalRequested&) const { return "approval_requested"; }
  const char* operator()(const ApprovalResolved&) const { return "approval_resolved"; }
  const char* operator()(const CompactionStarted&) const { return "compaction_started"; }
  const char* operator()(const CompactionProgress&) const { return "compaction_progress"; }
  const char* operator()(const CompactionEnded&) const { return "compaction_ended"; }
  const char* operator()(const ContextCleared&) const { return "context_cleared"; }
  const char* operator()(const ContextEstimate&) const { return "context_estimate"; }
  const char* operator()(const ToolProgress&) const { return "tool_progress"; }
};

}  // namespace

StopReason DefaultStopReason(TurnEndReason reason) {
  switch (reason) {
    case TurnEndReason::kCompleted: return StopReason::kEndTurn;
    case TurnEndReason::kMaxSteps: return StopReason::kMaxSteps;
    case TurnEndReason::kCancelled: return StopReason::kCancelled;
    case TurnEndReason::kError: return StopReason::kError;
  }
  return StopReason::kError;
}

StopReason StopReasonOf(const TurnEnded& end) {
  return end.stop_reason.value_or(DefaultStopReason(end.reason));
}

bool IsDurable(const EventPayload& payload) {
  return !(std::holds_alternative<TextDelta>(payload) ||
           std::holds_alternative<ReasoningDelta>(payload) ||
           std::holds_alternative<StreamReset>(payload) || std::holds_alternative<Resync>(payload) ||
           std::holds_alternative<CompactionProgress>(payload) ||
           std::holds_alternative<ContextEstimate>(payload) ||
           std::holds_alternative<ToolProgress>(payload));
}

const char* KindName(const EventPayload& payload) { return std::visit(KindNamer{}, payload); }

}  // namespace raw::events
