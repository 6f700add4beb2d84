#include "daemon/api/convert/event_to_proto.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>

#include <set>
#include <string>
#include <variant>
#include <vector>

#include "gtest/gtest.h"

namespace raw::api::convert {
namespace {

using events::EventPayload;

struct EventCase {
  const char* name;
  EventPayload payload;
  // The expected payload part of the raw.v1.Event, in text format.
  const char* expected;
};

std::vector<EventCase> Cases() {
  events::Usage partial;
  partial.input_tokens = 1200;
  partial.output_tokens = 80;
  partial.cache_read_tokens = 0;  // known zero: must be sent
  events::Usage full{.input_tokens = 1, .output_tokens = 2, .cache_read_tokens = 3,
                     .cache_write_tokens = 4, .reasoning_tokens = 5};
  return {
      {"turn_started", events::TurnStarted{"fix the build"},
       R"(turn_started { user_text: "fix the build" })"},
      {"user_message", events::UserMessage{"hello"}, R"(user_message { text: "hello" })"},
      {"text_delta", events::TextDelta{"Hel"}, R"(text_delta { text: "Hel" })"},
      {"reasoning_delta", events::ReasoningDelta{"think"},
       R"(reasoning_delta { text: "think" })"},
      {"assistant_message", events::AssistantMessage{"Done.", "because", 3},
       R"(assistant_message { text: "Done." reasoning: "because" step: 3 })"},
      {"tool_call_batch",
       events::ToolCallBatch{{{"call_1", "read_file", "builtin/read_file", R"({"path":"a"})"},
                              {"call_2", "nope", "", "{}"}}},
       R"(tool_call_batch {
            calls { call_id: "call_1" name: "read_file" tool: "builtin/read_file"
                    arguments: "{\"path\":\"a\"}" }
            calls { call_id: "call_2" name: "nope" arguments: "{}" } })"},
      {"tool_started", events::ToolStarted{"call_1", "bash", "builtin/bash"},
       R"(tool_started { call_id: "call_1" name: "bash" tool: "builtin/bash" })"},
      {"tool_result_ok",
       events::ToolResult{
           "call_1", "bash", "builtin/bash", events::ToolStatus::kOk, "out", 12, {}, {}},
       R"(tool_result { call_id: "call_1" name: "bash" tool: "builtin/bash"
                        status: TOOL_RESULT_STATUS_OK content: "out" duration_ms: 12 })"},
      {"tool_result_error",
       events::ToolResult{"c", "x", "", events::ToolStatus::kError, "unknown tool", 0, {}, {}},
       R"(tool_result { call_id: "c" name: "x" status: TOOL_RESULT_STATUS_ERROR
                        content: "unknown tool" })"},
      {"tool_result_cancelled",
       events::ToolResult{"c", "x", "t", events::ToolStatus::kCancelled, "", 0, {}, {}},
       R"(tool_result { call_id: "c" name: "x" tool: "t" status: TOOL_RESULT_STATUS_CANCELLED })"},
      {"tool_result_denied",
       events::ToolResult{"c", "x", "t", events::ToolStatus::kDenied, "", 0, {}, {}},
       R"(tool_result { call_id: "c" name: "x" tool: "t" status: TOOL_RESULT_STATUS_DENIED })"},
      {"tool_result_skipped",
       events::ToolResult{"c", "x", "t", events::ToolStatus::kSkipped, "", 0, {}, {}},
       R"(tool_result { call_id: "c" name: "x" tool: "t" status: TOOL_RESULT_STATUS_SKIPPED })"},
      {"usage_partial", events::UsageReport{partial, 2},
       R"(usage { usage { input_tokens: 1200 output_tokens: 80 cache_read_tokens: 0 } step: 2 })"},
      {"usage_full", events::UsageReport{full, 1},
       R"(usage { usage { input_tokens: 1 output_tokens: 2 cache_read_tokens: 3
                          cache_write_tokens: 4 reasoning_tokens: 5 } step: 1 })"},
      {"usage_unknown", events::UsageReport{events::Usage{}, 1}, R"(usage { usage { } step: 1 })"},
      {"notice_info", events::Notice{events::NoticeLevel::kInfo, "i"},
       R"(notice { level: NOTICE_LEVEL_INFO text: "i" })"},
      {"notice_warning", events::Notice{events::NoticeLevel::kWarning, "w"},
       R"(notice { level: NOTICE_LEVEL_WARNING text: "w" })"},
      {"notice_error", events::Notice{events::NoticeLevel::kError, "e"},
       R"(notice { level: NOTICE_LEVEL_ERROR text: "e" })"},
      {"turn_ended_completed", events::TurnEnded{events::TurnEndReason::kCompleted, "", 2, {}},
       R"(turn_ended { reason: TURN_END_REASON_COMPLETED steps: 2 stop_reason: STOP_REASON_END_TURN })"},
      {"turn_ended_max_steps", events::TurnEnded{events::TurnEndReason::kMaxSteps, "limit", 50, {}},
       R"(turn_ended { reason: TURN_END_REASON_MAX_STEPS message: "limit" steps: 50 stop_reason: STOP_REASON_MAX_STEPS })"},
      {"turn_ended_cancelled", events::TurnEnded{events::TurnEndReason::kCancelled, "", 1, {}},
       R"(turn_ended { reason: TURN_END_REASON_CANCELLED steps: 1 stop_reason: STOP_REASON_CANCELLED })"},
      {"turn_ended_error", events::TurnEnded{events::TurnEndReason::kError, "HTTP 401", 1, {}},
       R"(turn_ended { reason: TURN_END_REASON_ERROR message: "HTTP 401" steps: 1 stop_reason: STOP_REASON_ERROR })"},
      {"turn_ended_max_tokens",
       events::TurnEnded{events::TurnEndReason::kCompleted, "", 1, events::StopReason::kMaxTokens},
       R"(turn_ended { reason: TURN_END_REASON_COMPLETED steps: 1 stop_reason: STOP_REASON_MAX_TOKENS })"},
      {"turn_ended_refusal",
       events::TurnEnded{events::TurnEndReason::kCompleted, "", 1, events::StopReason::kRefusal},
       R"(turn_ended { reason: TURN_END_REASON_COMPLETED steps: 1 stop_reason: STOP_REASON_REFUSAL })"},
      {"stream_reset", events::StreamReset{"retrying after 503"},
       R"(stream_reset { reason: "retrying after 503" })"},
      {"resync", events::Resync{41}, R"(resync { last_delivered_seq: 41 })"},
      {"tool_result_display",
       events::ToolResult{"c", "e", "t", events::ToolStatus::kOk, "ok", 1, "+x", {}},
       R"(tool_result { call_id: "c" name: "e" tool: "t" status: TOOL_RESULT_STATUS_OK
                        content: "ok" duration_ms: 1 display: "+x" })"},
      {"approval_requested",
       events::ApprovalRequested{"apr_1",
                                 {{"c1", "bash", "builtin/bash", "{}",
                                   events::ApprovalState::kPending, "asks"},
                                  {"c2", "x", "", "{", events::ApprovalState::kNotApplicable, ""},
                                  {"c3", "y", "t", "{}", events::ApprovalState::kDenied, "rule"},
                                  {"c4", "z", "t", "{}", events::ApprovalState::kAllowed, ""}},
                                 5000},
       R"(approval_requested { request_id: "apr_1" timeout_ms: 5000
            calls { call_id: "c1" name: "bash" tool: "builtin/bash" arguments: "{}"
                    state: APPROVAL_STATE_PENDING reason: "asks" }
            calls { call_id: "c2" name: "x" arguments: "{" state: APPROVAL_STATE_NOT_APPLICABLE }
            calls { call_id: "c3" name: "y" tool: "t" arguments: "{}"
                    state: APPROVAL_STATE_DENIED reason: "rule" }
            calls { call_id: "c4" name: "z" tool: "t" arguments: "{}"
                    state: APPROVAL_STATE_ALLOWED } })"},
      {"approval_resolved",
       events::ApprovalResolved{"apr_1",
                                {{"c1", events::ApprovalDecision::kAllowOnce, ""},
                                 {"c2", events::ApprovalDecision::kAllowSession, ""},
                                 {"c3", events::ApprovalDecision::kDeny, "no"}},
                                events::ApprovalResolution::kAnswered},
       R"(approval_resolved { request_id: "apr_1" resolution: APPROVAL_RESOLUTION_ANSWERED
            answers { call_id: "c1" decision: APPROVAL_DECISION_ALLOW_ONCE }
            answers { call_id: "c2" decision: APPROVAL_DECISION_ALLOW_SESSION }
            answers { call_id: "c3" decision: APPROVAL_DECISION_DENY message: "no" } })"},
      {"compaction_started",
       events::CompactionStarted{events::CompactionTrigger::kAutomatic, 9000, 2},
       R"(compaction_started { trigger: COMPACTION_TRIGGER_AUTOMATIC tokens_before: 9000
                               chunks: 2 })"},
      {"compaction_progress", events::CompactionProgress{1, 2},
       R"(compaction_progress { chunk: 1 chunks: 2 })"},
      {"compaction_ended",
       events::CompactionEnded{events::CompactionTrigger::kManual,
                               events::CompactionOutcome::kAccepted, "m", 9000, 800, 1, 40, "S"},
       R"(compaction_ended { trigger: COMPACTION_TRIGGER_MANUAL
            outcome: COMPACTION_OUTCOME_ACCEPTED message: "m" tokens_before: 9000
            tokens_after: 800 first_summarized_seq: 1 last_summarized_seq: 40 summary: "S" })"},
      {"compaction_rejected",
       events::CompactionEnded{events::CompactionTrigger::kManual,
                               events::CompactionOutcome::kRejected, "r", 5, 5, 0, 0, ""},
       R"(compaction_ended { trigger: COMPACTION_TRIGGER_MANUAL
            outcome: COMPACTION_OUTCOME_REJECTED message: "r" tokens_before: 5
            tokens_after: 5 })"},
      {"context_cleared", events::ContextCleared{700, 90},
       R"(context_cleared { tokens_before: 700 tokens_after: 90 })"},
      {"context_estimate_window", events::ContextEstimate{500, 1000, true},
       R"(context_estimate { tokens: 500 window_tokens: 1000 percent: 50
                             reported_baseline: true })"},
      {"context_estimate_no_window", events::ContextEstimate{500, std::nullopt, false},
       R"(context_estimate { tokens: 500 })"},
      {"tool_progress", events::ToolProgress{"c1", 3, 10.0, "copying"},
       R"(tool_progress { call_id: "c1" progress: 3 total: 10 message: "copying" })"},
  };
}

TEST(EventToProtoTest, EveryPayloadConvertsFieldForField) {
  for (const EventCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    events::SessionEvent event{.session_id = "s1", .seq = 7, .turn_id = "turn_1",
                               .time_unix_ms = 1700000000123, .payload = c.payload};
    raw::v1::Event expected;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(c.expected, &expected));
    expected.set_session_id("s1");
    expected.set_seq(7);
    expected.set_turn_id("turn_1");
    expected.set_time_unix_ms(1700000000123);
    raw::v1::Event actual = ToProto(event);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(actual, expected))
        << "actual:\n" << actual.DebugString() << "expected:\n" << expected.DebugString();
  }
}

TEST(EventToProtoTest, TheTableCoversEveryPayloadAlternative) {
  std::set<size_t> covered;
  for (const EventCase& c : Cases()) covered.insert(c.payload.index());
  EXPECT_EQ(covered.size(), std::variant_size_v<EventPayload>);
}

TEST(EventToProtoTest, UnknownUsageFieldsStayAbsentNotZero) {
  events::Usage usage;
  usage.output_tokens = 0;
  events::SessionEvent event;
  event.payload = events::UsageReport{usage, 1};
  raw::v1::Event out = ToProto(event);
  const raw::v1::Usage& u = out.usage().usage();
  EXPECT_FALSE(u.has_input_tokens());
  EXPECT_TRUE(u.has_output_tokens());
  EXPECT_EQ(u.output_tokens(), 0);
  EXPECT_FALSE(u.has_cache_read_tokens());
  EXPECT_FALSE(u.has_cache_write_tokens());
  EXPECT_FALSE(u.has_reasoning_tokens());
}

TEST(EventToProtoTest, EventsOutsideATurnHaveNoTurnId) {
  events::SessionEvent event;
  event.session_id = "s1";
  event.payload = events::Resync{3};
  raw::v1::Event out = ToProto(event);
  EXPECT_EQ(out.turn_id(), "");
  EXPECT_EQ(out.seq(), 0u);
  EXPECT_EQ(out.payload_case(), raw::v1::Event::kResync);
}

TEST(EventToProtoTest, EnumsNeverMapToUnspecified) {
  for (auto s : {events::ToolStatus::kOk, events::ToolStatus::kError,
                 events::ToolStatus::kCancelled, events::ToolStatus::kDenied,
                 events::ToolStatus::kSkipped}) {
    EXPECT_NE(ToProto(s), raw::v1::TOOL_RESULT_STATUS_UNSPECIFIED);
  }
  for (auto l : {events::NoticeLevel::kInfo, events::NoticeLevel::kWarning,
                 events::NoticeLevel::kError}) {
    EXPECT_NE(ToProto(l), raw::v1::NOTICE_LEVEL_UNSPECIFIED);
  }
  for (auto r : {events::TurnEndReason::kCompleted, events::TurnEndReason::kMaxSteps,
                 events::TurnEndReason::kCancelled, events::TurnEndReason::kError}) {
    EXPECT_NE(ToProto(r), raw::v1::TURN_END_REASON_UNSPECIFIED);
  }
}

}  // namespace
}  // namespace raw::api::convert
