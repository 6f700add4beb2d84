// UpdateMapper, the tool call mapping and the permission options: Raw
// events as ACP session/update updates, live and replayed.
#include "clients/acp/update_mapper.h"

#include "clients/acp/permissions.h"
#include "clients/acp/prompt_text.h"
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
  EXPECT_EQ(*StopReason(ended, {}, false), "end_turn");
  ended.set_reason(v1::TURN_END_REASON_MAX_STEPS);
  EXPECT_EQ(*StopReason(ended, {}, false), "max_turn_requests");
  ended.set_reason(v1::TURN_END_REASON_CANCELLED);
  EXPECT_EQ(*StopReason(ended, {}, false), "cancelled");
  ended.set_reason(v1::TURN_END_REASON_ERROR);
  ended.set_message("HTTP 500");
  EXPECT_FALSE(StopReason(ended, {}, false).ok());
  EXPECT_EQ(*StopReason(ended, {}, true), "cancelled");
  v1::Notice filtered;
  filtered.set_level(v1::NOTICE_LEVEL_WARNING);
  filtered.set_text("The provider's content filter stopped the answer.");
  ended.set_reason(v1::TURN_END_REASON_COMPLETED);
  EXPECT_EQ(*StopReason(ended, {filtered}, false), "refusal");
}

TEST(PromptTextTest, BlocksBecomeOneMessage) {
  Json blocks = Json::parse(R"([{"type":"text","text":"see "},
    {"type":"resource_link","uri":"file:///w/a.txt","name":"a.txt"},
    {"type":"resource","resource":{"uri":"file:///w/b","text":"x"}}])");
  EXPECT_EQ(*PromptText(blocks),
            "see [a.txt](file:///w/a.txt)[b](file:///w/b)\n\nContents of file:///w/b:\n```\nx\n```");
  EXPECT_FALSE(PromptText(Json::parse(R"([{"type":"image","data":"","mimeType":"image/png"}])")).ok());
  EXPECT_FALSE(PromptText(Json::array()).ok());
}

}  // namespace
}  // namespace raw::acp
