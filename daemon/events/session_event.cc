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
};

}  // namespace

bool IsDurable(const EventPayload& payload) {
  return !(std::holds_alternative<TextDelta>(payload) ||
           std::holds_alternative<ReasoningDelta>(payload) ||
           std::holds_alternative<StreamReset>(payload) || std::holds_alternative<Resync>(payload));
}

const char* KindName(const EventPayload& payload) { return std::visit(KindNamer{}, payload); }

}  // namespace raw::events
