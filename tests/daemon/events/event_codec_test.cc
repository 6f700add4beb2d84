#include "daemon/events/event_codec.h"

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::events {
namespace {

using ::testing::HasSubstr;

// One sample per payload alternative, with non-default values in every field.
std::vector<EventPayload> SamplePayloads() {
  Usage partial;
  partial.input_tokens = 1200;
  partial.cache_read_tokens = 0;  // known zero, distinct from unknown
  Usage full{10, 20, 30, 40, 5};
  return {
      TurnStarted{"fix the \"build\"\nplease"},
      UserMessage{"héllo ✓"},
      UserMessage{"", {{"image/jpeg", "/9j/4AAQ", 1920, 1080}, {"image/gif", "R0lGODlh", 0, 0}}},
      TextDelta{"partial"},
      ReasoningDelta{"thinking…"},
      AssistantMessage{"answer", "because", 3},
      AssistantMessage{"half an ans", "", 1, /*interrupted=*/true},
      ToolCallBatch{{{"call_1", "read_file", "builtin/read_file", R"({"path":"a.txt"})"},
                     {"call_2", "nope", "", "{}"}}},
      ToolCallBatch{},
      ToolStarted{"call_1", "read_file", "builtin/read_file"},
      ToolResult{
          "call_1", "read_file", "builtin/read_file", ToolStatus::kDenied, "denied", 42, {}, {}},
      ToolResult{"c", "n", "t", ToolStatus::kSkipped, "", -1, {}, {}},
      UsageReport{partial, 2},
      UsageReport{full, 1},
      UsageReport{Usage{}, 7},
      Notice{NoticeLevel::kWarning, "careful"},
      TurnEnded{TurnEndReason::kMaxSteps, "limit", 8, {}},
      StreamReset{"retry after 429"},
      Resync{18446744073709551615ull},
      ToolResult{"c",
                 "edit_file",
                 "builtin/edit_file",
                 ToolStatus::kOk,
                 "Replaced",
                 3,
                 "--- a\n+++ b\n",
                 {}},
      ApprovalRequested{
          "apr_1",
          {{"c1", "bash", "builtin/bash", R"({"command":"ls"})", ApprovalState::kAllowed, "rule 0"},
           {"c2",
            "write_file",
            "builtin/write_file",
            "{}",
            ApprovalState::kPending,
            "asks",
            {{{"allow builtin/write_file path \"/p/a\""}},
             {{"allow builtin/bash command \"echo *\"", "allow builtin/bash redirect \"/p/o\""}}}},
           {"c3", "x", "", "{", ApprovalState::kNotApplicable, "invalid"},
           {"c4", "y", "t", "{}", ApprovalState::kDenied, "deny rule"}},
          300000},
      ApprovalResolved{"apr_1",
                       {{"c2", ApprovalDecision::kAllowSession, "", 1},
                        {"c3", ApprovalDecision::kDeny, "no"},
                        {"c5", ApprovalDecision::kDeny, "no terminal", 0, true},
                        {"c4", ApprovalDecision::kAllowOnce, ""}},
                       ApprovalResolution::kTimedOut},
      ApprovalResolved{"apr_2", {}, ApprovalResolution::kCancelled},
      CompactionStarted{CompactionTrigger::kAutomatic, 812000, 3},
      CompactionProgress{2, 3},
      CompactionEnded{CompactionTrigger::kManual, CompactionOutcome::kAccepted, "ok", 900, 120, 4,
                      77, "summary text"},
      CompactionEnded{CompactionTrigger::kAutomatic, CompactionOutcome::kNothingToCompact,
                      "nothing older", 5, 5, 0, 0, ""},
      ContextCleared{4000, 300},
      ContextEstimate{12345, 200000, true},
      ContextEstimate{10, std::nullopt, false},
      ToolProgress{"c1", 2.5, 10.0, "halfway"},
      ToolProgress{"c2", 1, std::nullopt, ""},
  };
}

TEST(EventCodecTest, EveryPayloadAlternativeRoundTrips) {
  std::set<size_t> covered;
  for (const EventPayload& payload : SamplePayloads()) {
    covered.insert(payload.index());
    std::string json = EncodePayload(payload);
    absl::StatusOr<EventPayload> decoded = DecodePayload(KindName(payload), json);
    ASSERT_TRUE(decoded.ok()) << KindName(payload) << ": " << decoded.status() << "\n" << json;
    EXPECT_EQ(*decoded, payload) << json;
    // Encoding is deterministic.
    EXPECT_EQ(EncodePayload(*decoded), json);
  }
  EXPECT_EQ(covered.size(), std::variant_size_v<EventPayload>);
}

TEST(EventCodecTest, EncodingIsStable) {
  EXPECT_EQ(EncodePayload(AssistantMessage{"hi", "r", 2}),
            R"({"kind":"assistant_message","text":"hi","reasoning":"r","step":2})");
  // The flag is written only when set, so rows stored before it existed and
  // rows without it read the same.
  EXPECT_EQ(EncodePayload(AssistantMessage{"h", "", 1, true}),
            R"({"kind":"assistant_message","text":"h","reasoning":"","step":1,"interrupted":true})");
  EXPECT_EQ(
      EncodePayload(ToolResult{"c1", "ls", "builtin/ls", ToolStatus::kError, "boom", 9, {}, {}}),
      R"({"kind":"tool_result","call_id":"c1","name":"ls","tool":"builtin/ls",)"
      R"("status":"error","content":"boom","duration_ms":9})");
  EXPECT_EQ(EncodePayload(TurnEnded{TurnEndReason::kCancelled, "", 1, {}}),
            R"({"kind":"turn_ended","reason":"cancelled","message":"","steps":1})");
  // Images are written only when there are any, as rows before them read.
  EXPECT_EQ(EncodePayload(UserMessage{"hi"}), R"({"kind":"user_message","text":"hi"})");
  EXPECT_EQ(EncodePayload(UserMessage{"", {{"image/png", "iVBO", 2, 3}}}),
            R"({"kind":"user_message","text":"","images":[{"mime_type":"image/png",)"
            R"("base64":"iVBO","width":2,"height":3}]})");
  // So is an image's name, which came later still.
  UserMessage named{"", {{"image/png", "iVBO", 2, 3, "a.png"}}};
  EXPECT_EQ(EncodePayload(named),
            R"({"kind":"user_message","text":"","images":[{"mime_type":"image/png",)"
            R"("base64":"iVBO","width":2,"height":3,"name":"a.png"}]})");
  absl::StatusOr<EventPayload> named_back = DecodePayload("user_message", EncodePayload(named));
  ASSERT_TRUE(named_back.ok()) << named_back.status();
  EXPECT_EQ(std::get<UserMessage>(*named_back), named);
  EXPECT_EQ(EncodeContextItem(ToolOutcome{"c1", "ls", "out", true}),
            R"({"kind":"tool_outcome","call_id":"c1","name":"ls","content":"out","is_error":true})");
}

TEST(EventCodecTest, TurnEndedStopReasonIsWrittenOnlyWhenSet) {
  TurnEnded cut{TurnEndReason::kCompleted, "", 1, StopReason::kMaxTokens};
  std::string json = EncodePayload(cut);
  EXPECT_EQ(json, R"({"kind":"turn_ended","reason":"completed","message":"","steps":1,)"
                  R"("stop_reason":"max_tokens"})");
  absl::StatusOr<EventPayload> decoded = DecodePayload("turn_ended", json);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(std::get<TurnEnded>(*decoded), cut);
  // A row stored before the field existed: the reason tells.
  absl::StatusOr<EventPayload> old =
      DecodePayload("turn_ended", R"({"reason":"cancelled","message":"","steps":1})");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(StopReasonOf(std::get<TurnEnded>(*old)), StopReason::kCancelled);
  absl::StatusOr<EventPayload> bad = DecodePayload(
      "turn_ended", R"({"reason":"completed","message":"","steps":1,"stop_reason":"tired"})");
  EXPECT_FALSE(bad.ok());
}

TEST(EventCodecTest, UnknownUsageFieldsStayAbsent) {
  Usage usage;
  usage.output_tokens = 0;
  std::string json = EncodePayload(UsageReport{usage, 1});
  EXPECT_EQ(json, R"({"kind":"usage_report","usage":{"output_tokens":0},"step":1})");
  absl::StatusOr<EventPayload> decoded = DecodePayload("usage_report", json);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const Usage& back = std::get<UsageReport>(*decoded).usage;
  EXPECT_FALSE(back.input_tokens.has_value());
  EXPECT_EQ(back.output_tokens, 0);
  EXPECT_FALSE(back.cache_read_tokens.has_value());
  EXPECT_FALSE(back.cache_write_tokens.has_value());
  EXPECT_FALSE(back.reasoning_tokens.has_value());
  // null is read as unknown too.
  decoded = DecodePayload("usage_report", R"({"usage":{"input_tokens":null},"step":1})");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_FALSE(std::get<UsageReport>(*decoded).usage.input_tokens.has_value());
}

TEST(EventCodecTest, EveryContextItemAlternativeRoundTrips) {
  std::vector<ContextItem> items = {
      UserText{"please\tlist files"},
      AssistantTurn{"text",
                    "reasoning",
                    {{"call_1", "ls", R"({"dir":"."})"}, {"call_2", "x", ""}},
                    {{"anthropic", "thinking_signature", "sig_1", "c2lnbmF0dXJl"}}},
      AssistantTurn{
          "", "r", {}, {{"google", "thought_signature", "thought", "c2ln"}}, "gemini-2.5-pro"},
      AssistantTurn{},
      ToolOutcome{"call_1", "ls", "a\nb", false},
      ToolOutcome{"call_2", "x", "unknown tool", true},
  };
  std::set<size_t> covered;
  for (const ContextItem& item : items) {
    covered.insert(item.index());
    std::string json = EncodeContextItem(item);
    absl::StatusOr<ContextItem> decoded = DecodeContextItem(json);
    ASSERT_TRUE(decoded.ok()) << decoded.status() << "\n" << json;
    EXPECT_EQ(*decoded, item) << json;
  }
  EXPECT_EQ(covered.size(), std::variant_size_v<ContextItem>);
}

TEST(EventCodecTest, SummaryAndTurnIdOfUserTextRoundTripAndOldRowsStillDecode) {
  for (const UserText& item : {UserText{"task", UserTextKind::kPrompt, "turn_1"},
                               UserText{"summary", UserTextKind::kSummary, ""}}) {
    std::string json = EncodeContextItem(item);
    absl::StatusOr<ContextItem> decoded = DecodeContextItem(json);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, ContextItem(item)) << json;
  }
  // A plain prompt keeps the bytes it was stored with before.
  EXPECT_EQ(EncodeContextItem(UserText{"hi"}), R"({"kind":"user_text","text":"hi"})");
  absl::StatusOr<ContextItem> old = DecodeContextItem(R"({"kind":"user_text","text":"hi"})");
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(std::get<UserText>(*old).kind, UserTextKind::kPrompt);
  EXPECT_EQ(std::get<UserText>(*old).turn_id, "");
}

TEST(EventCodecTest, FieldsAddedLaterAreIgnored) {
  absl::StatusOr<EventPayload> decoded =
      DecodePayload("user_message", R"({"kind":"user_message","text":"hi","future":[1,2]})");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(std::get<UserMessage>(*decoded).text, "hi");
}

struct BadPayload {
  std::string kind;
  std::string json;
  std::string message;  // expected in the error
};

TEST(EventCodecTest, MalformedPayloadsAreInvalidArgumentNamingTheProblem) {
  std::vector<BadPayload> cases = {
      {"user_message", "", "invalid JSON"},
      {"user_message", R"({"text":"unterminated)", "invalid JSON"},
      {"user_message", "[1,2]", "expected a JSON object, got array"},
      {"user_message", "{}", "user_message: missing field \"text\""},
      {"user_message", R"({"text":5})", "user_message.text: expected a string, got number"},
      {"user_message", R"({"text":null})", "user_message.text: expected a string, got null"},
      {"no_such_kind", R"({"text":"x"})", "unknown event kind \"no_such_kind\""},
      {"user_message", R"({"kind":"notice","text":"x"})", "says its kind is \"notice\""},
      {"assistant_message", R"({"text":"a","reasoning":"","step":1.5})",
       "assistant_message.step: expected an integer, got number"},
      {"assistant_message", R"({"text":"a","reasoning":"","step":4294967296})",
       "assistant_message.step: value 4294967296 is out of range"},
      {"tool_result",
       R"({"call_id":"c","name":"n","tool":"t","status":"maybe","content":"","duration_ms":0})",
       "tool_result.status: unknown value \"maybe\" (expected one of ok, error, cancelled"},
      {"tool_call_batch", R"({"calls":{}})", "tool_call_batch.calls: expected an array"},
      {"tool_call_batch", R"({"calls":[{"call_id":"c","name":"n","tool":"t"}]})",
       "tool_call_batch.calls[0]: missing field \"arguments\""},
      {"tool_call_batch", R"({"calls":["x"]})",
       "tool_call_batch.calls[0]: expected a JSON object, got string"},
      {"usage_report", R"({"usage":{"input_tokens":-1},"step":1})",
       "usage_report.usage.input_tokens: value -1 is out of range"},
      {"usage_report", R"({"usage":{"input_tokens":"12"},"step":1})",
       "usage_report.usage.input_tokens: expected an integer, got string"},
      {"usage_report", R"({"usage":7,"step":1})",
       "usage_report.usage: expected a JSON object, got number"},
      {"notice", R"({"level":"loud","text":"x"})", "notice.level: unknown value \"loud\""},
      {"turn_ended", R"({"reason":"completed","message":""})",
       "turn_ended: missing field \"steps\""},
      {"resync", R"({"last_delivered_seq":-3})", "resync.last_delivered_seq: value -3 is negative"},
  };
  for (const BadPayload& c : cases) {
    absl::StatusOr<EventPayload> decoded = DecodePayload(c.kind, c.json);
    ASSERT_FALSE(decoded.ok()) << c.kind << " " << c.json;
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument) << c.json;
    EXPECT_THAT(std::string(decoded.status().message()), HasSubstr(c.message)) << c.json;
  }
}

TEST(EventCodecTest, MalformedContextItemsAreInvalidArgument) {
  std::vector<std::pair<std::string, std::string>> cases = {
      {"nope", "context item: invalid JSON"},
      {"3", "context item: expected a JSON object, got number"},
      {R"({"text":"x"})", "context item: missing field \"kind\""},
      {R"({"kind":1})", "context item.kind: expected a string, got number"},
      {R"({"kind":"system_prompt","text":"x"})", "unknown context item kind \"system_prompt\""},
      {R"({"kind":"tool_outcome","call_id":"c","name":"n","content":"x","is_error":"yes"})",
       "tool_outcome.is_error: expected a boolean, got string"},
      {R"({"kind":"assistant_turn","text":"","reasoning":"","tool_calls":[],"opaque":[{}]})",
       "assistant_turn.opaque[0]: missing field \"provider\""},
  };
  for (const auto& [json, message] : cases) {
    absl::StatusOr<ContextItem> decoded = DecodeContextItem(json);
    ASSERT_FALSE(decoded.ok()) << json;
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument) << json;
    EXPECT_THAT(std::string(decoded.status().message()), HasSubstr(message)) << json;
  }
}

TEST(EventCodecTest, CorruptedEnumValueDoesNotDecode) {
  ToolResult result;
  result.status = static_cast<ToolStatus>(99);
  absl::StatusOr<EventPayload> decoded = DecodePayload("tool_result", EncodePayload(result));
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(std::string(decoded.status().message()), HasSubstr("\"invalid\""));
}

}  // namespace
}  // namespace raw::events
