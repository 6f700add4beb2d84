// UpdateMapper, the tool call mapping and the permission options: Raw
// events as ACP session/update updates, live and replayed.
#include "clients/acp/update_mapper.h"

#include "clients/acp/config_options.h"
#include "clients/acp/permissions.h"
#include "clients/acp/prompt_text.h"
#include "clients/acp/session_modes.h"
#include "clients/acp/stop_reason.h"
#include "clients/acp/tool_calls.h"
#include "gtest/gtest.h"

namespace raw::acp {
namespace {

v1::Event Text(const std::string& t) {
  v1::Event e;
  e.mutable_text_delta()->set_text(t);
  return e;
}

v1::Event Batch(const std::string& id, const std::string& name, const std::string& args) {
  v1::Event e;
  e.set_turn_id("t1");
  v1::ToolCall* c = e.mutable_tool_call_batch()->add_calls();
  c->set_call_id(id);
  c->set_name(name);
  c->set_tool("builtin/" + name);
  c->set_arguments(args);
  return e;
}

v1::Event Result(const std::string& id, const std::string& name, v1::ToolResultStatus status,
                 const std::string& content) {
  v1::Event e;
  v1::ToolResult* r = e.mutable_tool_result();
  r->set_call_id(id);
  r->set_name(name);
  r->set_tool("builtin/" + name);
  r->set_status(status);
  r->set_content(content);
  return e;
}

TEST(UpdateMapperTest, DeltasStreamAndCommittedTextIsNotRepeated) {
  UpdateMapper m("/w");
  auto u = m.Live(Text("Hel"), false);
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0]["sessionUpdate"], "agent_message_chunk");
  EXPECT_EQ(u[0]["content"]["text"], "Hel");
  v1::Event committed;
  committed.mutable_assistant_message()->set_text("Hello");
  EXPECT_TRUE(m.Live(committed, false).empty());
  // A provider that did not stream: the committed text is sent once.
  auto whole = m.Live(committed, false);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0]["content"]["text"], "Hello");
}

TEST(UpdateMapperTest, ADeltaTakenAloneCountsAsStreamed) {
  UpdateMapper m("/w");
  const v1::Event text = Text("Hel");  // the delta points into its event
  std::optional<UpdateMapper::Delta> delta = m.LiveDelta(text);
  ASSERT_TRUE(delta.has_value());
  EXPECT_STREQ(delta->kind, "agent_message_chunk");
  EXPECT_EQ(*delta->text, "Hel");
  v1::Event thought;
  thought.mutable_reasoning_delta()->set_text("hmm");
  delta = m.LiveDelta(thought);
  ASSERT_TRUE(delta.has_value());
  EXPECT_STREQ(delta->kind, "agent_thought_chunk");
  EXPECT_EQ(*delta->text, "hmm");
  EXPECT_FALSE(m.LiveDelta(Batch("c1", "bash", "{}")).has_value());
  // What was streamed is not sent again with the committed message.
  v1::Event committed;
  committed.mutable_assistant_message()->set_text("Hello");
  committed.mutable_assistant_message()->set_reasoning("hmm");
  EXPECT_TRUE(m.Live(committed, false).empty());
}

TEST(UpdateMapperTest, ToolCallsCarryKindLocationsAndDiff) {
  UpdateMapper m("/w");
  auto opened = m.Live(Batch("c1", "edit_file", R"({"path":"src/a.cc","old_string":"a","new_string":"b"})"), false);
  ASSERT_EQ(opened.size(), 1u);
  const Json& call = opened[0];
  EXPECT_EQ(call["sessionUpdate"], "tool_call");
  EXPECT_EQ(call["kind"], "edit");
  EXPECT_EQ(call["status"], "pending");
  EXPECT_EQ(call["locations"][0]["path"], "/w/src/a.cc");
  EXPECT_EQ(call["content"][0]["type"], "diff");
  EXPECT_EQ(call["content"][0]["oldText"], "a");
  auto finished = m.Live(Result("c1", "edit_file", v1::TOOL_RESULT_STATUS_OK, "Replaced"), false);
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0]["status"], "completed");
  EXPECT_EQ(finished[0]["content"][0]["newText"], "b");
  auto denied = m.Live(Result("c2", "bash", v1::TOOL_RESULT_STATUS_DENIED, "no"), false);
  EXPECT_EQ(denied[0]["status"], "failed");
  EXPECT_EQ(denied[0]["content"][0]["content"]["text"], "denied: no");
}

TEST(UpdateMapperTest, KindsOfTheBuiltinTools) {
  EXPECT_EQ(ToolKind("builtin/read_file"), "read");
  EXPECT_EQ(ToolKind("builtin/grep"), "search");
  EXPECT_EQ(ToolKind("builtin/glob"), "search");
  EXPECT_EQ(ToolKind("builtin/write_file"), "edit");
  EXPECT_EQ(ToolKind("builtin/bash"), "execute");
  EXPECT_EQ(ToolKind("builtin/web_fetch"), "fetch");
  EXPECT_EQ(ToolKind("mcp/fs/read"), "other");
  Json loc = Locations("builtin/read_file", R"({"path":"/x/y","offset":12})", "/w");
  EXPECT_EQ(loc[0]["line"], 12);
}

TEST(UpdateMapperTest, ReplayShowsEachCallOnceWithItsFinalStatus) {
  UpdateMapper m("/w");
  v1::Event user;
  user.mutable_user_message()->set_text("do it");
  v1::Event answer;
  answer.mutable_assistant_message()->set_text("done");
  answer.mutable_assistant_message()->set_reasoning("thinking");
  auto u = m.Replay({user, Batch("c1", "bash", R"({"command":"ls"})"),
                     Result("c1", "bash", v1::TOOL_RESULT_STATUS_OK, "a b"), answer});
  ASSERT_EQ(u.size(), 4u);
  EXPECT_EQ(u[0]["sessionUpdate"], "user_message_chunk");
  EXPECT_EQ(u[1]["sessionUpdate"], "tool_call");
  EXPECT_EQ(u[1]["status"], "completed");
  EXPECT_EQ(u[1]["content"][0]["content"]["text"], "a b");
  EXPECT_EQ(u[2]["sessionUpdate"], "agent_thought_chunk");
  EXPECT_EQ(u[3]["sessionUpdate"], "agent_message_chunk");
}

// A provider may give a later step's call an id an earlier one had: each
// call is replayed with the result that followed its own batch, and gets a
// toolCallId of its own, replayed and live alike.
TEST(UpdateMapperTest, ACallIdUsedAgainKeepsEachCallsOwnResultAndId) {
  UpdateMapper m("/w");
  auto u = m.Replay({Batch("call_1", "bash", R"({"command":"ls"})"),
                     Result("call_1", "bash", v1::TOOL_RESULT_STATUS_OK, "listed"),
                     Batch("call_1", "bash", R"({"command":"rm x"})"),
                     Result("call_1", "bash", v1::TOOL_RESULT_STATUS_DENIED, "denied")});
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0]["toolCallId"], "call_1");
  EXPECT_EQ(u[0]["status"], "completed");
  EXPECT_EQ(u[0]["content"][0]["content"]["text"], "listed");
  EXPECT_EQ(u[1]["toolCallId"], "call_1~2");
  EXPECT_EQ(u[1]["status"], "failed");
  EXPECT_EQ(u[1]["content"][0]["content"]["text"], "denied: denied");

  // Live after the replay, the third batch with that id.
  auto batch = m.Live(Batch("call_1", "bash", R"({"command":"pwd"})"), false);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0]["toolCallId"], "call_1~3");
  EXPECT_EQ(m.ToolCallId("call_1"), "call_1~3");
  v1::ApprovalCall call;
  call.set_call_id("call_1");
  call.set_name("bash");
  call.set_tool("builtin/bash");
  call.set_arguments(R"({"command":"pwd"})");
  EXPECT_EQ(PermissionRequest("s", call, "/w", m.ToolCallId("call_1"))["toolCall"]["toolCallId"],
            "call_1~3");
  v1::Event started;
  started.mutable_tool_started()->set_call_id("call_1");
  EXPECT_EQ(m.Live(started, false)[0]["toolCallId"], "call_1~3");
  auto result = m.Live(Result("call_1", "bash", v1::TOOL_RESULT_STATUS_OK, "/w"), false);
  EXPECT_EQ(result[0]["toolCallId"], "call_1~3");
  EXPECT_EQ(result[0]["status"], "completed");
  // A call whose id no batch held stays as it is.
  EXPECT_EQ(m.ToolCallId("other"), "other");
  // A provider's own id that looks like a given one gets one of its own.
  auto lookalike = m.Live(Batch("call_1~2", "bash", R"({"command":"ls"})"), false);
  EXPECT_EQ(lookalike[0]["toolCallId"], "call_1~2~2");
  EXPECT_EQ(m.Live(Batch("call_1", "bash", R"({"command":"ls"})"), false)[0]["toolCallId"],
            "call_1~4");
}

TEST(PermissionsTest, OptionsMapBackOntoDecisions) {
  v1::ApprovalCall call;
  call.set_call_id("c1");
  call.set_name("bash");
  call.set_tool("builtin/bash");
  call.set_arguments(R"({"command":"git status -s"})");
  call.add_session_rules()->add_rules("allow builtin/bash command \"git status -s\"");
  call.add_session_rules()->add_rules("allow builtin/bash command \"git status *\"");
  Json request = PermissionRequest("s", call, "/w");
  EXPECT_EQ(request["toolCall"]["toolCallId"], "c1");
  EXPECT_EQ(request["options"].size(), 5u);
  auto choose = [&](const std::string& id) {
    RpcResponse r;
    r.ok = true;
    r.result = {{"outcome", {{"outcome", "selected"}, {"optionId", id}}}};
    return PermissionAnswer(call, r);
  };
  EXPECT_EQ(choose("allow_once").decision(), v1::APPROVAL_DECISION_ALLOW_ONCE);
  EXPECT_EQ(choose("allow_session").decision(), v1::APPROVAL_DECISION_ALLOW_SESSION);
  EXPECT_EQ(choose("allow_session_wide").session_rule(), 1);
  EXPECT_EQ(choose("reject_once").decision(), v1::APPROVAL_DECISION_DENY);
  EXPECT_FALSE(choose("reject_always").message().empty());
  EXPECT_EQ(choose("bogus").decision(), v1::APPROVAL_DECISION_DENY);
  RpcResponse cancelled;
  cancelled.ok = true;
  cancelled.result = {{"outcome", {{"outcome", "cancelled"}}}};
  EXPECT_EQ(PermissionAnswer(call, cancelled).decision(), v1::APPROVAL_DECISION_DENY);
}

TEST(StopReasonTest, TurnEndsMapOntoStopReasons) {
  v1::TurnEnded ended;
  ended.set_reason(v1::TURN_END_REASON_COMPLETED);
  ended.set_stop_reason(v1::STOP_REASON_END_TURN);
  EXPECT_EQ(*StopReason(ended, false), "end_turn");
  ended.set_stop_reason(v1::STOP_REASON_MAX_TOKENS);
  EXPECT_EQ(*StopReason(ended, false), "max_tokens");
  ended.set_stop_reason(v1::STOP_REASON_REFUSAL);
  EXPECT_EQ(*StopReason(ended, false), "refusal");
  ended.set_reason(v1::TURN_END_REASON_MAX_STEPS);
  ended.set_stop_reason(v1::STOP_REASON_MAX_STEPS);
  EXPECT_EQ(*StopReason(ended, false), "max_turn_requests");
  ended.set_reason(v1::TURN_END_REASON_CANCELLED);
  ended.set_stop_reason(v1::STOP_REASON_CANCELLED);
  EXPECT_EQ(*StopReason(ended, false), "cancelled");
  ended.set_reason(v1::TURN_END_REASON_ERROR);
  ended.set_stop_reason(v1::STOP_REASON_ERROR);
  ended.set_message("HTTP 500");
  EXPECT_FALSE(StopReason(ended, false).ok());
  EXPECT_EQ(*StopReason(ended, true), "cancelled");
}

TEST(StopReasonTest, WithoutAStopReasonTheTurnEndReasonDecides) {
  v1::TurnEnded ended;
  ended.set_reason(v1::TURN_END_REASON_COMPLETED);
  EXPECT_EQ(*StopReason(ended, false), "end_turn");
  ended.set_reason(v1::TURN_END_REASON_MAX_STEPS);
  EXPECT_EQ(*StopReason(ended, false), "max_turn_requests");
  ended.set_reason(v1::TURN_END_REASON_ERROR);
  EXPECT_FALSE(StopReason(ended, false).ok());
}

TEST(SessionModesTest, TheModesAreRawsApprovalModes) {
  Json modes = SessionModes("allow_all");
  EXPECT_EQ(modes["currentModeId"], "allow_all");
  ASSERT_EQ(modes["availableModes"].size(), 4u);
  EXPECT_EQ(modes["availableModes"][3]["id"], "deny_all");
  EXPECT_EQ(*CheckModeId(Json("ask_all")), "ask_all");
  absl::StatusOr<std::string> unknown = CheckModeId(Json("yolo"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(CheckModeId(Json(3)).ok());
  std::vector<v1::AgentInfo> agents(1);
  agents[0].set_name("coder");
  agents[0].set_approval_mode("ask_all");
  EXPECT_EQ(AgentMode(agents, "coder"), "ask_all");
  EXPECT_EQ(AgentMode(agents, "other"), "default");
  // The mode config option asks rawd for the same change as set_mode.
  absl::StatusOr<v1::ConfigureSessionRequest> request =
      ConfigureRequest(Json{{"configId", "mode"}, {"value", "deny_all"}}, agents, {});
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->approval_mode(), "deny_all");
  EXPECT_FALSE(request->has_agent());
  EXPECT_FALSE(ConfigureRequest(Json{{"configId", "mode"}, {"value", "x"}}, agents, {}).ok());
}

TEST(PromptTextTest, BlocksBecomeOneMessage) {
  Json blocks = Json::parse(R"([{"type":"text","text":"see "},
    {"type":"resource_link","uri":"file:///w/a.txt","name":"a.txt"},
    {"type":"resource","resource":{"uri":"file:///w/b","text":"x"}}])");
  EXPECT_EQ(*PromptText(blocks),
            "see [a.txt](file:///w/a.txt)[b](file:///w/b)\n\nContents of file:///w/b:\n```\nx\n```");
  EXPECT_FALSE(PromptText(Json::parse(R"([{"type":"image","data":"","mimeType":"image/png"}])")).ok());
  EXPECT_FALSE(
      PromptText(Json::parse(R"([{"type":"audio","data":"AAAA","mimeType":"audio/wav"}])")).ok());
  EXPECT_FALSE(PromptText(Json::array()).ok());
}

TEST(PromptTextTest, ImagesGoWithTheTextDecoded) {
  absl::StatusOr<AcpPrompt> prompt = PromptOf(Json::parse(R"([{"type":"text","text":"look"},
    {"type":"image","mimeType":"image/png","data":"aGVsbG8="}])"));
  ASSERT_TRUE(prompt.ok()) << prompt.status();
  EXPECT_EQ(prompt->text, "look");
  ASSERT_EQ(prompt->images.size(), 1u);
  EXPECT_EQ(prompt->images[0].mime_type(), "image/png");
  EXPECT_EQ(prompt->images[0].data(), "hello");
  EXPECT_EQ(prompt->images[0].name(), "");
  // An image's uri, when the client gives one rawd takes, names it.
  prompt = PromptOf(Json::parse(R"([{"type":"image","mimeType":"image/png","data":"aGVsbG8=",
    "uri":"file:///home/u/shot.png"},{"type":"image","data":"aGVsbG8=","uri":"a\nb"}])"));
  ASSERT_TRUE(prompt.ok()) << prompt.status();
  EXPECT_EQ(prompt->images[0].name(), "file:///home/u/shot.png");
  EXPECT_EQ(prompt->images[1].name(), "");
  // Images alone make a prompt; data that is not base64 does not.
  EXPECT_TRUE(PromptOf(Json::parse(R"([{"type":"image","data":"aGVsbG8="}])")).ok());
  absl::StatusOr<AcpPrompt> bad =
      PromptOf(Json::parse(R"([{"type":"image","mimeType":"image/png","data":"%%%"}])"));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(UpdateMapperTest, AUserMessagesImagesAreReplayedAfterItsText) {
  v1::Event user;
  user.mutable_user_message()->set_text("look");
  v1::Image* image = user.mutable_user_message()->add_images();
  image->set_mime_type("image/gif");
  image->set_data("GIF89a");
  std::vector<Json> out = UpdateMapper("/w").Replay({user});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["content"], Json::parse(R"({"type":"text","text":"look"})"));
  EXPECT_EQ(out[1], Json::parse(R"({"sessionUpdate":"user_message_chunk",
    "content":{"type":"image","mimeType":"image/gif","data":"R0lGODlh"}})"));
}

TEST(ConfigOptionsTest, ImagesAreOfferedWhenTheAgentsModelTakesThem) {
  v1::AgentInfo seer, plain, picked;
  seer.set_name("seer");
  seer.set_model("vision");
  seer.set_is_default(true);
  plain.set_name("plain");
  plain.set_model("text");
  picked.set_name("picked");  // its model is picked at session start
  v1::ModelInfo vision, text;
  vision.set_name("vision");
  vision.set_images(true);
  text.set_name("text");
  const std::vector<v1::AgentInfo> agents = {seer, plain, picked};
  EXPECT_TRUE(AgentTakesImages(agents, {vision, text}, ""));
  EXPECT_TRUE(AgentTakesImages(agents, {vision, text}, "seer"));
  EXPECT_FALSE(AgentTakesImages(agents, {vision, text}, "plain"));
  EXPECT_TRUE(AgentTakesImages(agents, {vision, text}, "picked"));
  EXPECT_FALSE(AgentTakesImages(agents, {text}, "picked"));
  EXPECT_FALSE(AgentTakesImages(agents, {vision, text}, "nobody"));
  EXPECT_FALSE(AgentTakesImages({}, {}, ""));
}

}  // namespace
}  // namespace raw::acp
