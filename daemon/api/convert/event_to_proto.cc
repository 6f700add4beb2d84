#include "daemon/api/convert/event_to_proto.h"

#include <variant>

#include "absl/strings/escaping.h"
#include "daemon/api/convert/session_to_proto.h"

namespace raw::api::convert {

raw::v1::ToolResultStatus ToProto(events::ToolStatus status) {
  switch (status) {
    case events::ToolStatus::kOk: return raw::v1::TOOL_RESULT_STATUS_OK;
    case events::ToolStatus::kError: return raw::v1::TOOL_RESULT_STATUS_ERROR;
    case events::ToolStatus::kCancelled: return raw::v1::TOOL_RESULT_STATUS_CANCELLED;
    case events::ToolStatus::kDenied: return raw::v1::TOOL_RESULT_STATUS_DENIED;
    case events::ToolStatus::kSkipped: return raw::v1::TOOL_RESULT_STATUS_SKIPPED;
  }
  return raw::v1::TOOL_RESULT_STATUS_UNSPECIFIED;
}

raw::v1::NoticeLevel ToProto(events::NoticeLevel level) {
  switch (level) {
    case events::NoticeLevel::kInfo: return raw::v1::NOTICE_LEVEL_INFO;
    case events::NoticeLevel::kWarning: return raw::v1::NOTICE_LEVEL_WARNING;
    case events::NoticeLevel::kError: return raw::v1::NOTICE_LEVEL_ERROR;
  }
  return raw::v1::NOTICE_LEVEL_UNSPECIFIED;
}

raw::v1::TurnEndReason ToProto(events::TurnEndReason reason) {
  switch (reason) {
    case events::TurnEndReason::kCompleted: return raw::v1::TURN_END_REASON_COMPLETED;
    case events::TurnEndReason::kMaxSteps: return raw::v1::TURN_END_REASON_MAX_STEPS;
    case events::TurnEndReason::kCancelled: return raw::v1::TURN_END_REASON_CANCELLED;
    case events::TurnEndReason::kError: return raw::v1::TURN_END_REASON_ERROR;
  }
  return raw::v1::TURN_END_REASON_UNSPECIFIED;
}

raw::v1::StopReason ToProto(events::StopReason reason) {
  switch (reason) {
    case events::StopReason::kEndTurn: return raw::v1::STOP_REASON_END_TURN;
    case events::StopReason::kMaxTokens: return raw::v1::STOP_REASON_MAX_TOKENS;
    case events::StopReason::kRefusal: return raw::v1::STOP_REASON_REFUSAL;
    case events::StopReason::kMaxSteps: return raw::v1::STOP_REASON_MAX_STEPS;
    case events::StopReason::kCancelled: return raw::v1::STOP_REASON_CANCELLED;
    case events::StopReason::kError: return raw::v1::STOP_REASON_ERROR;
  }
  return raw::v1::STOP_REASON_UNSPECIFIED;
}

raw::v1::ApprovalState ToProto(events::ApprovalState state) {
  switch (state) {
    case events::ApprovalState::kPending: return raw::v1::APPROVAL_STATE_PENDING;
    case events::ApprovalState::kAllowed: return raw::v1::APPROVAL_STATE_ALLOWED;
    case events::ApprovalState::kDenied: return raw::v1::APPROVAL_STATE_DENIED;
    case events::ApprovalState::kNotApplicable: return raw::v1::APPROVAL_STATE_NOT_APPLICABLE;
  }
  return raw::v1::APPROVAL_STATE_UNSPECIFIED;
}

raw::v1::ApprovalDecision ToProto(events::ApprovalDecision decision) {
  switch (decision) {
    case events::ApprovalDecision::kAllowOnce: return raw::v1::APPROVAL_DECISION_ALLOW_ONCE;
    case events::ApprovalDecision::kAllowSession: return raw::v1::APPROVAL_DECISION_ALLOW_SESSION;
    case events::ApprovalDecision::kDeny: return raw::v1::APPROVAL_DECISION_DENY;
  }
  return raw::v1::APPROVAL_DECISION_UNSPECIFIED;
}

absl::StatusOr<events::ApprovalDecision> FromProto(raw::v1::ApprovalDecision decision) {
  switch (decision) {
    case raw::v1::APPROVAL_DECISION_ALLOW_ONCE: return events::ApprovalDecision::kAllowOnce;
    case raw::v1::APPROVAL_DECISION_ALLOW_SESSION: return events::ApprovalDecision::kAllowSession;
    case raw::v1::APPROVAL_DECISION_DENY: return events::ApprovalDecision::kDeny;
    default: break;
  }
  return absl::InvalidArgumentError(
      "decision must be APPROVAL_DECISION_ALLOW_ONCE, APPROVAL_DECISION_ALLOW_SESSION or "
      "APPROVAL_DECISION_DENY");
}

raw::v1::ApprovalResolution ToProto(events::ApprovalResolution resolution) {
  switch (resolution) {
    case events::ApprovalResolution::kAnswered: return raw::v1::APPROVAL_RESOLUTION_ANSWERED;
    case events::ApprovalResolution::kTimedOut: return raw::v1::APPROVAL_RESOLUTION_TIMED_OUT;
    case events::ApprovalResolution::kCancelled: return raw::v1::APPROVAL_RESOLUTION_CANCELLED;
  }
  return raw::v1::APPROVAL_RESOLUTION_UNSPECIFIED;
}

namespace {

// Fills the oneof of `out` from one payload alternative. One overload per
// alternative: adding an alternative to EventPayload without a converter
// here fails to compile.
void Fill(const events::TurnStarted& p, raw::v1::Event& out) {
  out.mutable_turn_started()->set_user_text(p.user_text);
}
void Fill(const events::UserMessage& p, raw::v1::Event& out) {
  raw::v1::UserMessage* message = out.mutable_user_message();
  message->set_text(p.text);
  for (const events::ImagePart& part : p.images) {
    raw::v1::Image* image = message->add_images();
    image->set_mime_type(part.mime_type);
    // Stored by the daemon itself, so the base64 is valid; a damaged row
    // leaves the data empty rather than failing the whole event.
    (void)absl::Base64Unescape(part.base64, image->mutable_data());
    image->set_width(part.width);
    image->set_height(part.height);
    image->set_name(part.name);
  }
}
void Fill(const events::TextDelta& p, raw::v1::Event& out) {
  out.mutable_text_delta()->set_text(p.text);
}
void Fill(const events::ReasoningDelta& p, raw::v1::Event& out) {
  out.mutable_reasoning_delta()->set_text(p.text);
}
void Fill(const events::AssistantMessage& p, raw::v1::Event& out) {
  auto* m = out.mutable_assistant_message();
  m->set_text(p.text);
  m->set_reasoning(p.reasoning);
  m->set_step(p.step);
  m->set_interrupted(p.interrupted);
}
void Fill(const events::ToolCallBatch& p, raw::v1::Event& out) {
  auto* m = out.mutable_tool_call_batch();
  for (const events::ToolCallInfo& c : p.calls) {
    auto* call = m->add_calls();
    call->set_call_id(c.call_id);
    call->set_name(c.name);
    call->set_tool(c.tool);
    call->set_arguments(c.arguments);
  }
}
void Fill(const events::ToolStarted& p, raw::v1::Event& out) {
  auto* m = out.mutable_tool_started();
  m->set_call_id(p.call_id);
  m->set_name(p.name);
  m->set_tool(p.tool);
}
void Fill(const events::ToolResult& p, raw::v1::Event& out) {
  auto* m = out.mutable_tool_result();
  m->set_call_id(p.call_id);
  m->set_name(p.name);
  m->set_tool(p.tool);
  m->set_status(ToProto(p.status));
  m->set_content(p.content);
  m->set_duration_ms(p.duration_ms);
  m->set_display(p.display);
}
void Fill(const events::ApprovalRequested& p, raw::v1::Event& out) {
  auto* m = out.mutable_approval_requested();
  m->set_request_id(p.request_id);
  m->set_timeout_ms(p.timeout_ms);
  for (const events::ApprovalCall& c : p.calls) {
    auto* call = m->add_calls();
    call->set_call_id(c.call_id);
    call->set_name(c.name);
    call->set_tool(c.tool);
    call->set_arguments(c.arguments);
    call->set_state(ToProto(c.state));
    call->set_reason(c.reason);
    for (const events::SessionRuleOption& option : c.session_rules) {
      auto* offered = call->add_session_rules();
      for (const std::string& rule : option.rules) offered->add_rules(rule);
    }
  }
}
void Fill(const events::ApprovalResolved& p, raw::v1::Event& out) {
  auto* m = out.mutable_approval_resolved();
  m->set_request_id(p.request_id);
  m->set_resolution(ToProto(p.resolution));
  for (const events::ApprovalAnswer& a : p.answers) {
    auto* answer = m->add_answers();
    answer->set_call_id(a.call_id);
    answer->set_decision(ToProto(a.decision));
    answer->set_message(a.message);
    answer->set_session_rule(a.session_rule);
    answer->set_unattended(a.unattended);
  }
}
void Fill(const events::UsageReport& p, raw::v1::Event& out) {
  auto* m = out.mutable_usage();
  *m->mutable_usage() = ToProto(p.usage);
  m->set_step(p.step);
}
void Fill(const events::Notice& p, raw::v1::Event& out) {
  auto* m = out.mutable_notice();
  m->set_level(ToProto(p.level));
  m->set_text(p.text);
}
void Fill(const events::TurnEnded& p, raw::v1::Event& out) {
  auto* m = out.mutable_turn_ended();
  m->set_reason(ToProto(p.reason));
  m->set_message(p.message);
  m->set_steps(p.steps);
  m->set_stop_reason(ToProto(events::StopReasonOf(p)));
}
void Fill(const events::StreamReset& p, raw::v1::Event& out) {
  out.mutable_stream_reset()->set_reason(p.reason);
}
void Fill(const events::Resync& p, raw::v1::Event& out) {
  out.mutable_resync()->set_last_delivered_seq(p.last_delivered_seq);
}

raw::v1::CompactionTrigger ToProto(events::CompactionTrigger trigger) {
  switch (trigger) {
    case events::CompactionTrigger::kManual: return raw::v1::COMPACTION_TRIGGER_MANUAL;
    case events::CompactionTrigger::kAutomatic: return raw::v1::COMPACTION_TRIGGER_AUTOMATIC;
  }
  return raw::v1::COMPACTION_TRIGGER_UNSPECIFIED;
}

raw::v1::CompactionOutcome ToProto(events::CompactionOutcome outcome) {
  switch (outcome) {
    case events::CompactionOutcome::kAccepted: return raw::v1::COMPACTION_OUTCOME_ACCEPTED;
    case events::CompactionOutcome::kRejected: return raw::v1::COMPACTION_OUTCOME_REJECTED;
    case events::CompactionOutcome::kFailed: return raw::v1::COMPACTION_OUTCOME_FAILED;
    case events::CompactionOutcome::kCancelled: return raw::v1::COMPACTION_OUTCOME_CANCELLED;
    case events::CompactionOutcome::kNothingToCompact:
      return raw::v1::COMPACTION_OUTCOME_NOTHING_TO_COMPACT;
  }
  return raw::v1::COMPACTION_OUTCOME_UNSPECIFIED;
}

void Fill(const events::CompactionStarted& p, raw::v1::Event& out) {
  auto* m = out.mutable_compaction_started();
  m->set_trigger(ToProto(p.trigger));
  m->set_tokens_before(p.tokens_before);
  m->set_chunks(p.chunks);
}
void Fill(const events::CompactionProgress& p, raw::v1::Event& out) {
  auto* m = out.mutable_compaction_progress();
  m->set_chunk(p.chunk);
  m->set_chunks(p.chunks);
}
void Fill(const events::CompactionEnded& p, raw::v1::Event& out) {
  auto* m = out.mutable_compaction_ended();
  m->set_trigger(ToProto(p.trigger));
  m->set_outcome(ToProto(p.outcome));
  m->set_message(p.message);
  m->set_tokens_before(p.tokens_before);
  m->set_tokens_after(p.tokens_after);
  m->set_first_summarized_seq(p.first_summarized_seq);
  m->set_last_summarized_seq(p.last_summarized_seq);
  m->set_summary(p.summary);
}
void Fill(const events::ContextCleared& p, raw::v1::Event& out) {
  auto* m = out.mutable_context_cleared();
  m->set_tokens_before(p.tokens_before);
  m->set_tokens_after(p.tokens_after);
}
void Fill(const events::ToolProgress& p, raw::v1::Event& out) {
  auto* m = out.mutable_tool_progress();
  m->set_call_id(p.call_id);
  m->set_progress(p.progress);
  if (p.total) m->set_total(*p.total);
  m->set_message(p.message);
}
void Fill(const events::ContextEstimate& p, raw::v1::Event& out) {
  *out.mutable_context_estimate() = raw::api::convert::ToProto(p);
}

}  // namespace

raw::v1::Event ToProto(const events::SessionEvent& event) {
  raw::v1::Event out;
  out.set_session_id(event.session_id);
  out.set_seq(event.seq);
  out.set_turn_id(event.turn_id);
  out.set_time_unix_ms(event.time_unix_ms);
  std::visit([&out](const auto& payload) { Fill(payload, out); }, event.payload);
  return out;
}

}  // namespace raw::api::convert
