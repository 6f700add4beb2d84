#include "daemon/events/payload_strings.h"

#include <variant>

namespace raw::events {
namespace {

// One overload per type; each lists every std::string field of the type.
void Visit(TurnStarted& p, StringVisitor v) { v(p.user_text); }
void Visit(UserMessage& p, StringVisitor v) { v(p.text); }
void Visit(TextDelta& p, StringVisitor v) { v(p.text); }
void Visit(ReasoningDelta& p, StringVisitor v) { v(p.text); }
void Visit(StreamReset& p, StringVisitor v) { v(p.reason); }
void Visit(AssistantMessage& p, StringVisitor v) {
  v(p.text);
  v(p.reasoning);
}
void Visit(ToolCallBatch& p, StringVisitor v) {
  for (ToolCallInfo& c : p.calls) {
    v(c.call_id);
    v(c.name);
    v(c.tool);
    v(c.arguments);
  }
}
void Visit(ToolStarted& p, StringVisitor v) {
  v(p.call_id);
  v(p.name);
  v(p.tool);
}
void Visit(ToolProgress& p, StringVisitor v) {
  v(p.call_id);
  v(p.message);
}
void Visit(ToolResult& p, StringVisitor v) {
  v(p.call_id);
  v(p.name);
  v(p.tool);
  v(p.content);
  v(p.display);
  v(p.meta);
}
void Visit(ApprovalRequested& p, StringVisitor v) {
  v(p.request_id);
  for (ApprovalCall& c : p.calls) {
    v(c.call_id);
    v(c.name);
    v(c.tool);
    v(c.arguments);
    v(c.reason);
  }
}
void Visit(ApprovalResolved& p, StringVisitor v) {
  v(p.request_id);
  for (ApprovalAnswer& a : p.answers) {
    v(a.call_id);
    v(a.message);
  }
}
void Visit(UsageReport&, StringVisitor) {}
void Visit(Notice& p, StringVisitor v) { v(p.text); }
void Visit(TurnEnded& p, StringVisitor v) { v(p.message); }
void Visit(Resync&, StringVisitor) {}
void Visit(CompactionStarted&, StringVisitor) {}
void Visit(CompactionProgress&, StringVisitor) {}
void Visit(CompactionEnded& p, StringVisitor v) {
  v(p.message);
  v(p.summary);
}
void Visit(ContextCleared&, StringVisitor) {}
void Visit(ContextEstimate&, StringVisitor) {}

void Visit(UserText& p, StringVisitor v) {
  v(p.text);
  v(p.turn_id);
}
void Visit(AssistantTurn& p, StringVisitor v) {
  v(p.text);
  v(p.reasoning);
  for (ToolCallRequest& c : p.tool_calls) {
    v(c.call_id);
    v(c.name);
    v(c.arguments);
  }
  for (OpaqueBlob& b : p.opaque) {
    v(b.provider);
    v(b.kind);
    v(b.id);
    v(b.data);
  }
}
void Visit(ToolOutcome& p, StringVisitor v) {
  v(p.call_id);
  v(p.name);
  v(p.content);
}

}  // namespace

void ForEachString(EventPayload& payload, StringVisitor visit) {
  std::visit([visit](auto& alternative) { Visit(alternative, visit); }, payload);
}

void ForEachString(ContextItem& item, StringVisitor visit) {
  std::visit([visit](auto& alternative) { Visit(alternative, visit); }, item);
}

}  // namespace raw::events
