// raw-acp over stdio, driven by the official ACP SDK (2.x) against a real
// rawd and the fake provider: initialize, sessions (new, load with replay,
// list, resume, close), prompts with streamed text and tool calls,
// permissions, cancellation, the write lease, and the client going away.
#include <filesystem>
#include <fstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "common/version.h"
#include "gmock/gmock.h"
#include "tests/e2e/acp/acp_fixture.h"
#include "tests/support/test_images.h"
#include "tests/support/test_leases.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

constexpr char kStdioDriver[] = "stdio_driver.mjs";

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> Kinds(const Json& updates) {
  std::vector<std::string> out;
  for (const Json& u : updates) out.push_back(u.value("sessionUpdate", ""));
  return out;
}

// The updates of kind `kind` (in order).
std::vector<Json> OfKind(const Json& updates, const std::string& kind) {
  std::vector<Json> out;
  for (const Json& u : updates) {
    if (u.value("sessionUpdate", "") == kind) out.push_back(u);
  }
  return out;
}

// Every update of the turn was written before the prompt's answer (the
// session's new title, read once the turn has ended, may follow it).
void ExpectUpdatesBeforeAnswer(const Json& wire) {
  ASSERT_TRUE(wire.is_array());
  std::vector<std::string> order;
  for (const Json& w : wire) {
    if (w != "session_info_update") order.push_back(w);
  }
  ASSERT_FALSE(order.empty());
  EXPECT_EQ(order.back(), "response") << wire.dump();
}

std::optional<raw::v1::TurnEnded> LastTurnEnd(const std::vector<raw::v1::Event>& history) {
  std::optional<raw::v1::TurnEnded> out;
  for (const auto& e : history) {
    if (e.has_turn_ended()) out = e.turn_ended();
  }
  return out;
}

// A streamed answer parked after its first text chunk until the gate opens.
testing::ScriptedResponse ParkedStream() {
  testing::ScriptedResponse r = chat::Stream({chat::RoleChunk(), chat::TextChunk("partial "),
                                              chat::TextChunk("rest"), chat::FinishChunk("stop"),
                                              chat::UsageChunk(10, 2), chat::Done()});
  r.gate_before_chunk = 2;
  return r;
}

TEST_F(AcpTest, InitializeAdvertisesTheAgent) {
  Json r = Drive(kStdioDriver, "initialize");
  const Json& init = r["init"];
  EXPECT_EQ(init["protocolVersion"], 1);
  const Json& caps = init["agentCapabilities"];
  EXPECT_EQ(caps["loadSession"], true);
  EXPECT_EQ(caps["promptCapabilities"],
            Json::parse(R"({"image":true,"audio":false,"embeddedContext":true})"));
  EXPECT_EQ(caps["mcpCapabilities"], Json::parse(R"({"http":true,"sse":false})"));
  EXPECT_EQ(caps["sessionCapabilities"], Json::parse(R"({"list":{},"resume":{},"close":{}})"));
  EXPECT_EQ(init["agentInfo"]["name"], "raw");
  EXPECT_EQ(init["agentInfo"]["version"], kVersion);
  EXPECT_EQ(init["authMethods"], Json::array());
  EXPECT_EQ(r["exit"]["code"], 0);
}

// The default agent's model takes images: an image block goes to the model
// after the text, the session keeps it, and session/load replays it.
TEST_F(AcpTest, APromptsImageReachesTheModelAndLoadReplaysIt) {
  const std::string png = raw::test_images::PngBytes(20, 10);
  fake_.Enqueue(chat::TextAnswer("A small picture."));
  Json r = Drive(kStdioDriver, "image_prompt",
                 {{"IMAGE_B64", absl::Base64Escape(png)}, {"IMAGE_MIME", "image/png"}});
  EXPECT_EQ(r["init"]["agentCapabilities"]["promptCapabilities"]["image"], true);
  EXPECT_EQ(r["stopReason"], "end_turn");
  EXPECT_EQ(r["text"], "A small picture.");
  EXPECT_EQ(r["refused"]["code"], -32602);
  EXPECT_THAT(r["refused"]["message"].get<std::string>(), HasSubstr("base64"));

  ASSERT_EQ(fake_.requests().size(), 1u);
  absl::StatusOr<Json> body = fake_.requests()[0].BodyJson();
  ASSERT_TRUE(body.ok());
  const Json& user = (*body)["messages"].back();
  EXPECT_EQ(user["content"][0], Json::parse(R"({"type":"text","text":"what is this?"})"));
  EXPECT_EQ(user["content"][1]["image_url"]["url"],
            absl::StrCat("data:image/png;base64,", absl::Base64Escape(png)));

  const std::string id = r["sessionId"];
  int images = 0;
  for (const raw::v1::Event& e : History(id)) {
    if (!e.has_user_message()) continue;
    ASSERT_EQ(e.user_message().images_size(), 1);
    EXPECT_EQ(e.user_message().images(0).data(), png);
    ++images;
  }
  EXPECT_EQ(images, 1);

  Json loaded = Drive(kStdioDriver, "load", {{"SESSION_ID", id}});
  std::vector<Json> chunks = OfKind(loaded["updates"], "user_message_chunk");
  ASSERT_EQ(chunks.size(), 2u) << loaded["updates"].dump();
  EXPECT_EQ(chunks[0]["content"], Json::parse(R"({"type":"text","text":"what is this?"})"));
  EXPECT_EQ(
      chunks[1]["content"],
      (Json{{"type", "image"}, {"mimeType", "image/png"}, {"data", absl::Base64Escape(png)}}));
}

TEST_F(AcpTest, ProtocolVersion2IsAnsweredWith1) {
  Json r = Drive(kStdioDriver, "version2");
  EXPECT_EQ(r["init"]["protocolVersion"], 1);
}

TEST_F(AcpTest, PromptStreamsTextAndAnEditWithItsDiff) {
  const std::string file = daemon_->workdir() + "/a.txt";
  WriteFile(file, "hello old world\n");
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "edit_file", R"({"path":"a.txt","old_string":"old","new_string":"new"})"}}));
  fake_.Enqueue(chat::Stream({chat::RoleChunk(), chat::TextChunk("Edited "),
                              chat::TextChunk("the file."), chat::FinishChunk("stop"),
                              chat::UsageChunk(20, 3), chat::Done()}));
  Json r = Drive(kStdioDriver, "prompt");

  EXPECT_EQ(r["stopReason"], "end_turn");
  EXPECT_EQ(r["responseStopReason"], "end_turn");
  EXPECT_EQ(r["text"], "Edited the file.");
  std::vector<Json> calls = OfKind(r["updates"], "tool_call");
  ASSERT_EQ(calls.size(), 1u) << r["updates"].dump();
  const Json& call = calls[0];
  EXPECT_EQ(call["toolCallId"], "c1");
  EXPECT_EQ(call["kind"], "edit");
  EXPECT_EQ(call["status"], "pending");
  EXPECT_EQ(call["title"], "edit_file a.txt");
  EXPECT_EQ(call["locations"][0]["path"], file);
  EXPECT_EQ(call["rawInput"]["old_string"], "old");
  Json diff = {{"type", "diff"}, {"path", file}, {"oldText", "old"}, {"newText", "new"}};
  EXPECT_EQ(call["content"][0], diff);
  std::vector<Json> updates = OfKind(r["updates"], "tool_call_update");
  ASSERT_EQ(updates.size(), 2u);
  EXPECT_EQ(updates[0]["status"], "in_progress");
  EXPECT_EQ(updates[1]["status"], "completed");
  EXPECT_EQ(updates[1]["content"][0], diff);
  // Wire order: the call, its progress, then the streamed answer, then the
  // prompt's answer.
  std::vector<std::string> kinds = Kinds(r["updates"]);
  auto at = [&](const std::string& k) { return std::find(kinds.begin(), kinds.end(), k) - kinds.begin(); };
  EXPECT_LT(at("tool_call"), at("agent_message_chunk"));
  ExpectUpdatesBeforeAnswer(r["wire"]);
  EXPECT_EQ(ReadFile(file), "hello new world\n");
  // A client that sent clientInfo gets the context use (the model has a window).
  EXPECT_FALSE(OfKind(r["updates"], "usage_update").empty());

  // The provider got the edit's result in the second request.
  ASSERT_EQ(fake_.requests().size(), 2u);
  EXPECT_THAT(fake_.requests()[1].body, HasSubstr("Replaced 1 occurrence"));
  // The same session, seen from `raw`.
  std::string id = r["sessionId"];
  EXPECT_EQ(GetSession(id).agent(), "coder");
  CommandResult list = daemon_->RunRaw({"sessions", "list"});
  EXPECT_THAT(list.out, HasSubstr(id.substr(0, 8)));
}

TEST_F(AcpTest, PermissionAllowedOnceRunsTheCall) {
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo permitted"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  Json r = Drive(kStdioDriver, "permission", {{"DECISION", "allow_once"}}, {"--agent", "asker"});

  ASSERT_EQ(r["permissions"].size(), 1u);
  const Json& asked = r["permissions"][0];
  EXPECT_EQ(asked["toolCall"]["toolCallId"], "c1");
  EXPECT_EQ(asked["toolCall"]["kind"], "execute");
  std::vector<std::string> kinds;
  for (const Json& o : asked["options"]) kinds.push_back(o["kind"]);
  EXPECT_THAT(kinds, ::testing::IsSupersetOf({"allow_once", "allow_always", "reject_once",
                                             "reject_always"}));
  // The tool call went out before its permission request.
  std::vector<std::string> wire = r["wire"];
  auto call = std::find(wire.begin(), wire.end(), "tool_call");
  auto permission = std::find(wire.begin(), wire.end(), "request_permission");
  EXPECT_LT(call, permission);
  std::vector<Json> done = OfKind(r["updates"], "tool_call_update");
  ASSERT_FALSE(done.empty());
  EXPECT_EQ(done.back()["status"], "completed");
  EXPECT_THAT(done.back()["content"][0]["content"]["text"].get<std::string>(), HasSubstr("permitted"));
  EXPECT_EQ(r["stopReason"], "end_turn");
  ASSERT_EQ(fake_.requests().size(), 2u);
  EXPECT_THAT(fake_.requests()[1].body, HasSubstr("permitted"));
}

// The editor's permission card gets the command in full and why Raw asks,
// not only the title's first 80 characters: a harmless-looking start cannot
// hide what follows it.
TEST_F(AcpTest, PermissionRequestShowsTheWholeCommandAndWhyItAsks) {
  const std::string command = "echo " + std::string(90, 'x') + "; touch ran";
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", Json({{"command", command}}).dump()}}));
  fake_.Enqueue(chat::TextAnswer("ok, I will not"));
  Json r = Drive(kStdioDriver, "permission", {{"DECISION", "reject_once"}}, {"--agent", "asker"});
  ASSERT_EQ(r["permissions"].size(), 1u);
  const Json& shown = r["permissions"][0]["toolCall"];
  const std::string title = shown["title"];
  EXPECT_EQ(title.find("touch"), std::string::npos) << title;
  EXPECT_THAT(title, ::testing::EndsWith("(shortened; in full below)"));
  ASSERT_EQ(shown["content"].size(), 2u) << shown.dump();
  EXPECT_EQ(shown["content"][0]["content"]["text"], "```sh\n" + command + "\n```");
  EXPECT_THAT(shown["content"][1]["content"]["text"].get<std::string>(),
              ::testing::StartsWith("Needs approval: "));
  EXPECT_THAT(shown["content"][1]["content"]["text"].get<std::string>(),
              HasSubstr("no rule matched"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/ran"));
}

TEST_F(AcpTest, PermissionAllowedForTheSessionAddsTheRule) {
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo once"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  Json r = Drive(kStdioDriver, "permission", {{"DECISION", "allow_always"}}, {"--agent", "asker"});
  EXPECT_EQ(r["stopReason"], "end_turn");
  std::string id = r["sessionId"];
  bool session_rule = false;
  for (const auto& e : History(id)) {
    if (!e.has_approval_resolved()) continue;
    ASSERT_EQ(e.approval_resolved().answers_size(), 1);
    session_rule = e.approval_resolved().answers(0).decision() == raw::v1::APPROVAL_DECISION_ALLOW_SESSION;
  }
  EXPECT_TRUE(session_rule);
}

TEST_F(AcpTest, PermissionRejectedDeniesTheCall) {
  const std::string marker = daemon_->workdir() + "/ran";
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"touch ran"})"}}));
  fake_.Enqueue(chat::TextAnswer("ok, I will not"));
  Json r = Drive(kStdioDriver, "permission", {{"DECISION", "reject_once"}}, {"--agent", "asker"});
  std::vector<Json> done = OfKind(r["updates"], "tool_call_update");
  ASSERT_FALSE(done.empty());
  EXPECT_EQ(done.back()["status"], "failed");
  EXPECT_THAT(done.back()["content"][0]["content"]["text"].get<std::string>(), HasSubstr("denied"));
  EXPECT_EQ(r["stopReason"], "end_turn");
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// The client answers the two permission requests of a batch with a wrongly
// typed error and a wrongly typed result: both calls are denied, the bridge
// keeps going, and the prompt answers.
TEST_F(AcpTest, WronglyTypedPermissionAnswersDenyTheCalls) {
  const std::string marker = daemon_->workdir() + "/ran";
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"touch ran"})"},
                                       {"c2", "bash", R"({"command":"touch ran2"})"}}));
  fake_.Enqueue(chat::TextAnswer("ok, I will not"));
  Json r = Drive("raw_turns.mjs", "bad_answers", {}, {"--agent", "asker"});
  EXPECT_EQ(r["permissions"], 2);
  EXPECT_EQ(r["response"]["result"]["stopReason"], "end_turn") << r["response"].dump();
  EXPECT_THAT(r["toolStatuses"], ::testing::Contains("failed"));
  EXPECT_THAT(r["toolStatuses"], ::testing::Not(::testing::Contains("completed")));
  EXPECT_TRUE(r["afterwards"]["result"]["sessions"].is_array());
  EXPECT_EQ(r["exit"]["code"], 0);
  EXPECT_FALSE(std::filesystem::exists(marker));
  ASSERT_EQ(fake_.requests().size(), 2u);
  EXPECT_THAT(fake_.requests()[1].body, HasSubstr("denied"));
}

// $/cancel_request on a running prompt cancels it as session/cancel does:
// the prompt answers `cancelled` (not -32800) after the turn's updates, and
// the session takes the next prompt at once.
TEST_F(AcpTest, CancelRequestOnAPromptAnswersCancelledAtTheTurnsEnd) {
  fake_.Enqueue(ParkedStream());
  fake_.Enqueue(chat::TextAnswer("next one"));
  Json r = Drive("raw_turns.mjs", "cancel_request");
  EXPECT_EQ(r["response"]["result"]["stopReason"], "cancelled") << r["response"].dump();
  EXPECT_EQ(r["next"]["result"]["stopReason"], "end_turn") << r["next"].dump();
  auto history = History(r["sessionId"]);
  int cancelled = 0;
  for (const auto& e : history) {
    if (e.has_turn_ended() && e.turn_ended().reason() == raw::v1::TURN_END_REASON_CANCELLED) {
      ++cancelled;
    }
  }
  EXPECT_EQ(cancelled, 1);
}

// A prompt cancelled with $/cancel_request while it waits on a permission
// request withdraws that request (nothing else would close the client's
// dialog) before it answers `cancelled`; the call never runs.
TEST_F(AcpTest, CancelRequestOnAPromptWithdrawsItsPermissionRequests) {
  const std::string marker = daemon_->workdir() + "/ran";
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"touch ran"})"}}));
  Json r = Drive("raw_turns.mjs", "cancel_request_permission", {}, {"--agent", "asker"});
  ASSERT_EQ(r["permissionIds"].size(), 1u) << r.dump();
  EXPECT_EQ(r["response"]["result"]["stopReason"], "cancelled") << r["response"].dump();
  ASSERT_EQ(r["withdrawn"].size(), 1u) << r.dump();
  EXPECT_EQ(r["withdrawn"][0], r["permissionIds"][0]);
  EXPECT_FALSE(std::filesystem::exists(marker));
  auto end = LastTurnEnd(History(r["sessionId"]));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->reason(), raw::v1::TURN_END_REASON_CANCELLED);
}

TEST_F(AcpTest, CancelDuringTheStreamAnswersCancelled) {
  fake_.Enqueue(ParkedStream());
  Json r = Drive(kStdioDriver, "cancel_stream");
  EXPECT_EQ(r["stopReason"], "cancelled");
  EXPECT_EQ(r["response"]["stopReason"], "cancelled");
  auto end = LastTurnEnd(History(r["sessionId"]));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->reason(), raw::v1::TURN_END_REASON_CANCELLED);
}

TEST_F(AcpTest, CancelDuringAPermissionRequestAnswersCancelled) {
  const std::string marker = daemon_->workdir() + "/ran";
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"touch ran"})"}}));
  Json r = Drive(kStdioDriver, "cancel_permission", {}, {"--agent", "asker"});
  EXPECT_EQ(r["permissions"].size(), 1u);
  EXPECT_EQ(r["stopReason"], "cancelled");
  auto history = History(r["sessionId"]);
  auto end = LastTurnEnd(history);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->reason(), raw::v1::TURN_END_REASON_CANCELLED);
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_EQ(fake_.requests().size(), 1u);
}

TEST_F(AcpTest, LoadReplaysASessionMadeByRawRun) {
  WriteFile(daemon_->workdir() + "/a.txt", "hi\n");
  std::vector<std::string> first = {chat::RoleChunk(), chat::ReasoningChunk("Let me read it.")};
  for (const std::string& c : chat::ToolCallChunks(0, "r1", "read_file", R"({"path":"a.txt"})")) {
    first.push_back(c);
  }
  first.insert(first.end(), {chat::FinishChunk("tool_calls"), chat::UsageChunk(10, 2), chat::Done()});
  fake_.Enqueue(chat::Stream(first));
  fake_.Enqueue(chat::TextAnswer("It says hi."));
  CommandResult run = daemon_->RunRaw({"run", "--cwd", daemon_->workdir(), "what is in a.txt?"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  raw::v1::ListSessionsResponse sessions;
  {
    grpc::ClientContext ctx;
    ASSERT_TRUE(stub().ListSessions(&ctx, raw::v1::ListSessionsRequest(), &sessions).ok());
  }
  ASSERT_EQ(sessions.sessions_size(), 1);
  std::string id = sessions.sessions(0).id();

  Json r = Drive(kStdioDriver, "load", {{"SESSION_ID", id}});
  EXPECT_TRUE(r["result"].is_object());
  EXPECT_TRUE(r["result"]["configOptions"].is_array());
  std::vector<std::string> kinds = Kinds(r["updates"]);
  // The replay, in order, then the commands (after the answer).
  std::vector<std::string> replay(kinds.begin(), kinds.begin() + std::min<size_t>(4, kinds.size()));
  EXPECT_THAT(replay, ::testing::ElementsAre("user_message_chunk", "agent_thought_chunk",
                                             "tool_call", "agent_message_chunk"));
  EXPECT_EQ(r["updates"][0]["content"]["text"], "what is in a.txt?");
  EXPECT_EQ(r["updates"][1]["content"]["text"], "Let me read it.");
  const Json& call = r["updates"][2];
  EXPECT_EQ(call["kind"], "read");
  EXPECT_EQ(call["status"], "completed");
  EXPECT_THAT(call["content"][0]["content"]["text"].get<std::string>(), HasSubstr("hi"));
  EXPECT_EQ(r["updates"][3]["content"]["text"], "It says hi.");
  // Every replayed update was written before the answer to session/load.
  // (The last response is session/load's; the first, initialize's.)
  std::vector<std::string> wire = r["wire"];
  auto answer = std::find(wire.rbegin(), wire.rend(), "response").base() - 1;
  ASSERT_EQ(*answer, "response");
  EXPECT_EQ(std::count(wire.begin(), answer, "tool_call"), 1);
  EXPECT_EQ(std::count(wire.begin(), answer, "agent_message_chunk"), 1);
  EXPECT_EQ(std::count(answer, wire.end(), "agent_message_chunk"), 0);
}

// Opening the session again would replace the bridge that runs its prompt,
// leaving that prompt unanswered: refused while the prompt runs; the prompt
// stays cancellable and answers cancelled.
TEST_F(AcpTest, LoadOrResumeWhileItsPromptRunsIsRefused) {
  fake_.Enqueue(ParkedStream());
  Json r = Drive(kStdioDriver, "reopen_running");
  for (const char* method : {"load", "resume"}) {
    EXPECT_EQ(r[method]["code"], -32600) << method << ": " << r[method].dump();
    EXPECT_THAT(r[method]["message"].get<std::string>(), HasSubstr("a prompt is running in it"));
  }
  EXPECT_EQ(r["stopReason"], "cancelled");
  auto end = LastTurnEnd(History(r["sessionId"]));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->reason(), raw::v1::TURN_END_REASON_CANCELLED);
}

// session/close of a session whose load or resume is still opening: the
// open is answered (-32800, before the close's {}), never left without an
// answer, and the session is closed.
TEST_F(AcpTest, CloseWhileTheSessionOpensAnswersTheOpen) {
  Json r = Drive("raw_turns.mjs", "close_while_opening");
  for (const char* how : {"load", "resume"}) {
    SCOPED_TRACE(how);
    const Json& open = r[how];
    EXPECT_EQ(open["answers"],
              Json::array({how == std::string("load") ? 4 : 6, how == std::string("load") ? 5 : 7}))
        << open.dump();
    EXPECT_EQ(open["open"]["error"]["code"], -32800) << open.dump();
    EXPECT_THAT(open["open"]["error"]["message"].get<std::string>(),
                HasSubstr("closed (session/close) before it finished opening"));
    EXPECT_EQ(open["close"]["result"], Json::object()) << open.dump();
  }
  EXPECT_EQ(r["prompt"]["error"]["code"], -32002) << r["prompt"].dump();
  EXPECT_EQ(r["exit"]["code"], 0);
  EXPECT_EQ(GetSession(r["sessionId"]).writer(), "");
}

// $/cancel_request for an open answers -32800 and leaves nothing behind: no
// bridge holds the session or streams it, and it opens again at once.
TEST_F(AcpTest, CancelRequestOnAnOpenLeavesNoBridgeBehind) {
  Json r = Drive("raw_turns.mjs", "cancel_open");
  EXPECT_EQ(r["cancelledLoad"]["error"]["code"], -32800) << r["cancelledLoad"].dump();
  EXPECT_EQ(r["cancelledNew"]["error"]["code"], -32800) << r["cancelledNew"].dump();
  EXPECT_TRUE(r["load"]["result"].is_object()) << r["load"].dump();
  ASSERT_TRUE(r["createdId"].is_string()) << r["created"].dump();
  const std::string id = r["sessionId"];
  const std::string created = r["createdId"];
  // Updates came for the two sessions opened normally only, each with its
  // commands once.
  std::vector<std::string> sessions;
  for (const auto& [session, kinds] : r["updates"].items()) sessions.push_back(session);
  EXPECT_THAT(sessions, ::testing::UnorderedElementsAre(id, created)) << r["updates"].dump();
  EXPECT_EQ(r["updates"][id], Json::array({"available_commands_update"})) << r["updates"].dump();
  EXPECT_EQ(r["exit"]["code"], 0);
}

// session/cancel during a slash command answers `cancelled`, never an error
// nor end_turn (rawd is stopped until the cancel has been read).
TEST_F(AcpTest, CancelDuringASlashCommandAnswersCancelled) {
  Json r = Drive("raw_turns.mjs", "cancel_command", {{"RAWD_PID", absl::StrCat(daemon_->pid())}});
  for (const char* command : {"/stats", "/clear", "/agent"}) {
    SCOPED_TRACE(command);
    const Json& c = r["commands"][command];
    EXPECT_EQ(c["marker"]["error"]["code"], -32600) << c.dump();
    EXPECT_EQ(c["response"]["result"]["stopReason"], "cancelled") << c.dump();
  }
  EXPECT_EQ(r["exit"]["code"], 0);
}

// session/close during `/agent NAME`: the prompt answers cancelled and the
// close {} at once (there is no turn to interrupt), and the daemon's late
// answer to the command (success, or a refusal when the lease went first)
// finds the bridge gone: nothing more is sent for the session and raw-acp
// goes on.
TEST_F(AcpTest, CloseDuringAnAgentCommandDropsItsLateAnswer) {
  Json r = Drive("raw_turns.mjs", "close_during_agent_command",
                 {{"RAWD_PID", absl::StrCat(daemon_->pid())}});
  EXPECT_EQ(r["beforeRawd"], Json::array({3, 4})) << r.dump();
  EXPECT_EQ(r["prompt"]["result"]["stopReason"], "cancelled") << r["prompt"].dump();
  EXPECT_EQ(r["close"]["result"], Json::object()) << r["close"].dump();
  EXPECT_TRUE(r["list"]["result"].is_object()) << r["list"].dump();
  EXPECT_EQ(r["afterClose"], Json::array()) << r.dump();
  EXPECT_EQ(r["exit"]["code"], 0) << r["exit"].dump();
}

// session/close of a session whose bridge waits on rawd (/stats, rawd
// stopped): the close is answered, and so is the next request raw-acp
// answers itself, while rawd is still stopped; once rawd is back the other
// session takes a prompt, and the closed one, its lease released, opens
// and takes one again.
TEST_F(AcpTest, CloseWhileRawdIsStoppedKeepsTheBridgeAnswering) {
  fake_.Enqueue(chat::TextAnswer("other done"));
  fake_.Enqueue(chat::TextAnswer("again done"));
  Json r = Drive("raw_turns.mjs", "close_while_rawd_stopped",
                 {{"RAWD_PID", absl::StrCat(daemon_->pid())}});
  EXPECT_EQ(r["prompt"]["result"]["stopReason"], "cancelled") << r["prompt"].dump();
  EXPECT_EQ(r["close"]["result"], Json::object()) << r["close"].dump();
  EXPECT_EQ(r["unknown"]["error"]["code"], -32601) << r["unknown"].dump();
  EXPECT_EQ(r["other"]["result"]["stopReason"], "end_turn") << r["other"].dump();
  EXPECT_TRUE(r["resume"]["result"].is_object()) << r["resume"].dump();
  EXPECT_EQ(r["again"]["result"]["stopReason"], "end_turn") << r["again"].dump();
  EXPECT_EQ(r["exit"]["code"], 0) << r["exit"].dump();
}

// session/close while the prompt's StartTurn waits on a stopped rawd: the
// close does not wait for rawd to take the interrupt (at most
// kShutdownWait), and both are answered while rawd is still stopped.
TEST_F(AcpTest, CloseDuringAPromptWhileRawdIsStoppedAnswers) {
  fake_.Enqueue(chat::TextAnswer("late"));
  Json r = Drive("raw_turns.mjs", "close_prompt_while_rawd_stopped",
                 {{"RAWD_PID", absl::StrCat(daemon_->pid())}});
  EXPECT_EQ(r["prompt"]["result"]["stopReason"], "cancelled") << r["prompt"].dump();
  EXPECT_EQ(r["close"]["result"], Json::object()) << r["close"].dump();
  EXPECT_TRUE(r["list"]["result"].is_object()) << r["list"].dump();
  EXPECT_EQ(r["exit"]["code"], 0) << r["exit"].dump();
}

// The client going away while a call waits on a stopped rawd: raw-acp
// exits at once (the driver allows 10 s), without waiting for rawd.
TEST_F(AcpTest, ExitsAtOnceWhileRawdIsStopped) {
  Json r = Drive("raw_turns.mjs", "exit_while_rawd_stopped",
                 {{"RAWD_PID", absl::StrCat(daemon_->pid())}});
  EXPECT_EQ(r["exit"]["code"], 0) << r["exit"].dump();
}

// One connection keeps at most 32 sessions open: opens beyond are refused
// with an error naming the cap, counting opens still under way; reopening
// an open session is not one more, and a close makes room.
TEST_F(AcpTest, OpenSessionsPerConnectionAreCapped) {
  Json r = Drive("raw_turns.mjs", "session_cap");
  EXPECT_EQ(r["opened"], 31) << r.dump();
  ASSERT_EQ(r["refused"].size(), 1u) << r["refused"].dump();
  EXPECT_EQ(r["refused"][0]["id"], 131);
  EXPECT_EQ(r["refused"][0]["error"]["code"], -32600);
  EXPECT_THAT(r["refused"][0]["error"]["message"].get<std::string>(), HasSubstr("32 sessions"));
  EXPECT_TRUE(r["resumeAtCap"]["result"].is_object()) << r["resumeAtCap"].dump();
  EXPECT_TRUE(r["afterClose"]["result"]["sessionId"].is_string()) << r["afterClose"].dump();
  EXPECT_EQ(r["exit"]["code"], 0);
}

TEST_F(AcpTest, LoadOfAnUnknownSessionIsResourceNotFound) {
  Json r = Drive(kStdioDriver, "load_unknown");
  EXPECT_EQ(r["error"]["code"], -32002);
}

TEST_F(AcpTest, ListFiltersByCwd) {
  std::string here = daemon_->CreateSession();
  std::string elsewhere_dir = daemon_->root() + "/other";
  std::filesystem::create_directories(elsewhere_dir);
  raw::v1::CreateSessionRequest create;
  create.set_cwd(elsewhere_dir);
  raw::v1::CreateSessionResponse created;
  {
    grpc::ClientContext ctx;
    ASSERT_TRUE(stub().CreateSession(&ctx, create, &created).ok());
  }
  Json r = Drive(kStdioDriver, "list");
  EXPECT_EQ(r["all"]["sessions"].size(), 2u);
  ASSERT_EQ(r["here"]["sessions"].size(), 1u);
  const Json& info = r["here"]["sessions"][0];
  EXPECT_EQ(info["sessionId"], here);
  EXPECT_EQ(info["cwd"], daemon_->workdir());
  EXPECT_TRUE(info["updatedAt"].is_string());
  EXPECT_EQ(r["elsewhere"]["sessions"].size(), 0u);
}

// More recent sessions elsewhere than one page holds: the directory's own
// session is still on the first page of a cwd-filtered list.
TEST_F(AcpTest, ListWithCwdFillsThePageBeyondOtherDirectories) {
  std::string here = daemon_->CreateSession();
  std::string elsewhere_dir = daemon_->root() + "/other";
  std::filesystem::create_directories(elsewhere_dir);
  for (int i = 0; i < 60; ++i) {
    raw::v1::CreateSessionRequest create;
    create.set_cwd(elsewhere_dir);
    raw::v1::CreateSessionResponse created;
    grpc::ClientContext ctx;
    ASSERT_TRUE(stub().CreateSession(&ctx, create, &created).ok());
  }
  Json r = Drive(kStdioDriver, "list");
  ASSERT_EQ(r["here"]["sessions"].size(), 1u) << r["here"].dump();
  EXPECT_EQ(r["here"]["sessions"][0]["sessionId"], here);
  EXPECT_EQ(r["all"]["sessions"].size(), 50u);
  EXPECT_TRUE(r["all"].contains("nextCursor"));
}

TEST_F(AcpTest, ResumeDoesNotReplayAndCloseReleasesTheLease) {
  std::string id = daemon_->CreateSession();
  fake_.Enqueue(chat::TextAnswer("resumed"));
  Json r = Drive(kStdioDriver, "resume_close", {{"SESSION_ID", id}});
  EXPECT_TRUE(r["result"]["configOptions"].is_array());
  EXPECT_EQ(r["replayed"], 0);
  EXPECT_EQ(r["stopReason"], "end_turn");
  EXPECT_EQ(r["closed"], Json::object());
  EXPECT_EQ(r["afterClose"]["code"], -32002);
  // Nobody holds the lease: `raw run` writes to the session.
  EXPECT_EQ(GetSession(id).writer(), "");
  fake_.Enqueue(chat::TextAnswer("from raw run"));
  CommandResult run = daemon_->RunRaw({"run", "--session", id, "again"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST_F(AcpTest, PromptWhileAnotherClientWritesNamesTheHolder) {
  std::string id = daemon_->CreateSession();
  ASSERT_FALSE(LeaseFor(stub(), id).empty());
  Json r = Drive(kStdioDriver, "held", {{"SESSION_ID", id}});
  EXPECT_EQ(r["error"]["code"], -32603);
  EXPECT_THAT(r["error"]["message"].get<std::string>(), HasSubstr("\"e2e test (lease"));
  EXPECT_THAT(r["error"]["message"].get<std::string>(), HasSubstr("hand the session over"));
  EXPECT_THAT(r["error"]["data"]["holder"].get<std::string>(), HasSubstr("e2e test (lease"));
  EXPECT_EQ(fake_.requests().size(), 0u);
  ReleaseLease(stub(), id);
}

TEST_F(AcpTest, ClientGoingAwayMidTurnInterruptsAndReleases) {
  fake_.Enqueue(ParkedStream());
  Json r = Drive(kStdioDriver, "disconnect");
  EXPECT_EQ(r["exit"]["code"], 0);
  std::string id = r["sessionId"];
  auto end = LastTurnEnd(History(id));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->reason(), raw::v1::TURN_END_REASON_CANCELLED);
  EXPECT_EQ(GetSession(id).writer(), "");
  fake_.Enqueue(chat::TextAnswer("after the editor left"));
  CommandResult run = daemon_->RunRaw({"run", "--session", id, "still there?"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

// A client that stops raw-acp with a signal instead of closing stdin: the
// turn is interrupted and recorded cancelled, its prompt answered, and the
// lease released before raw-acp exits 0.
TEST_F(AcpTest, StopSignalMidTurnInterruptsAndReleases) {
  for (const char* signal : {"SIGTERM", "SIGHUP", "SIGINT"}) {
    SCOPED_TRACE(signal);
    fake_.Enqueue(ParkedStream());
    Json r = Drive(kStdioDriver, "signal", {{"SIGNAL", signal}});
    EXPECT_EQ(r["response"]["stopReason"], "cancelled") << r.dump();
    EXPECT_EQ(r["exit"]["code"], 0) << r.dump();
    std::string id = r["sessionId"];
    auto end = LastTurnEnd(History(id));
    ASSERT_TRUE(end.has_value());
    EXPECT_EQ(end->reason(), raw::v1::TURN_END_REASON_CANCELLED);
    EXPECT_EQ(GetSession(id).writer(), "");
  }
}

// A bridge killed with SIGKILL cannot let go of anything itself: its lease
// asked rawd to interrupt the turn when the lease ends, and the lease ends
// with the bridge's connection.
TEST_F(AcpTest, AKilledBridgesTurnIsInterruptedByRawd) {
  fake_.Enqueue(ParkedStream());
  Json r = Drive(kStdioDriver, "kill");
  ASSERT_TRUE(r["sessionId"].is_string()) << r.dump();
  EXPECT_EQ(r["exit"]["signal"], "SIGKILL") << r.dump();
  EventStream stream(stub(), r["sessionId"].get<std::string>());
  std::optional<raw::v1::Event> end =
      stream.WaitFor([](const raw::v1::Event& e) { return e.has_turn_ended(); });
  ASSERT_TRUE(end.has_value()) << "the turn went on after its bridge was killed";
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_CANCELLED);
}

TEST_F(AcpTest, ResourcesBecomeLinksAndEmbeddedText) {
  fake_.Enqueue(chat::TextAnswer("seen"));
  Json r = Drive(kStdioDriver, "resources");
  EXPECT_EQ(r["stopReason"], "end_turn");
  ASSERT_EQ(fake_.requests().size(), 1u);
  absl::StatusOr<Json> body = fake_.requests()[0].BodyJson();
  ASSERT_TRUE(body.ok());
  std::string user;
  for (const Json& m : (*body)["messages"]) {
    if (m["role"] == "user") user = m["content"].is_string() ? m["content"].get<std::string>() : m["content"].dump();
  }
  const std::string dir = daemon_->workdir();
  EXPECT_EQ(user, absl::StrCat("look at [a.txt](file://", dir, "/a.txt) and [b.md](file://", dir,
                               "/b.md)\n\nContents of file://", dir,
                               "/b.md:\n````\nB body ``` here\n````"));
}

TEST_F(AcpTest, ProtocolErrorsAreAnsweredAndTheBridgeKeepsGoing) {
  Json r = Drive("raw_lines.mjs", "", {{"RAWD_PID", absl::StrCat(daemon_->pid())}});
  EXPECT_EQ(r["beforeInit"]["error"]["code"], -32600);
  EXPECT_EQ(r["beforeInit"]["id"], 1);
  EXPECT_THAT(r["beforeInit"]["error"]["message"].get<std::string>(), HasSubstr("initialize"));
  EXPECT_EQ(r["malformed"]["error"]["code"], -32700);
  EXPECT_TRUE(r["malformed"]["id"].is_null());
  EXPECT_EQ(r["batch"]["error"]["code"], -32600);
  EXPECT_EQ(r["noVersion"]["error"]["code"], -32600);
  EXPECT_EQ(r["badVersion"]["error"]["code"], -32602);
  EXPECT_EQ(r["oversized"]["error"]["code"], -32600);
  EXPECT_THAT(r["oversized"]["error"]["message"].get<std::string>(), HasSubstr("4096"));
  EXPECT_EQ(r["init"]["result"]["protocolVersion"], 1);
  EXPECT_EQ(r["again"]["error"]["code"], -32600);
  EXPECT_EQ(r["unknownMethod"]["error"]["code"], -32601);
  EXPECT_EQ(r["unknownMethod"]["id"], 7);
  EXPECT_EQ(r["relativeCwd"]["error"]["code"], -32602);
  EXPECT_EQ(r["unknownSession"]["error"]["code"], -32002);
  EXPECT_EQ(r["cancelled"]["error"]["code"], -32800);
  EXPECT_EQ(r["cancelled"]["id"], 10);
  EXPECT_EQ(r["afterCancel"]["id"], 11);
  EXPECT_EQ(r["closed"]["result"], Json::object());
  EXPECT_EQ(r["promptAfterClose"]["error"]["code"], -32002) << r["promptAfterClose"].dump();
  EXPECT_EQ(fake_.requests().size(), 0u) << "a closed session was prompted";
  EXPECT_EQ(r["exit"], 0);
}

TEST_F(AcpTest, OlderSdkClientSideConnection) {
  fake_.Enqueue(chat::Stream({chat::RoleChunk(), chat::TextChunk("Hello "), chat::TextChunk("there."),
                              chat::FinishChunk("stop"), chat::UsageChunk(10, 2), chat::Done()}));
  Json r = Drive("v1_driver.mjs", "");
  EXPECT_EQ(r["protocolVersion"], 1);
  EXPECT_EQ(r["stopReason"], "end_turn");
  EXPECT_EQ(r["text"], "Hello there.");
  // Without clientInfo the client may predate usage_update: none is sent.
  EXPECT_EQ(r["usageUpdates"], 0);
  EXPECT_EQ(r["exit"]["code"], 0);
}

TEST_F(AcpTest, RawAcpRunsTheBridgeBesideRaw) {
  CommandResult r = daemon_->RunRaw({"acp", "--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat("raw-acp ", kVersion, "\n"));
  CommandResult bad = daemon_->RunRaw({"acp", "--bogus"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("unknown argument '--bogus'"));
}

// rawd is killed under a live bridge while an answer streams: the prompt in
// flight answers with an error at once (no hang), raw-acp reconnects (its
// client library starts a new rawd), takes the session back, and the next
// prompt in the same session streams as usual. The restarted daemon numbers
// its events after every seq the first one published (live deltas
// included), so none of them is skipped as already seen.
TEST_F(AcpTest, RawdRestartingUnderTheBridgeFailsThePromptInFlightAndResumes) {
  fake_.Enqueue(ParkedStream());
  fake_.Enqueue(chat::TextAnswer("After the restart."));
  Json r = Drive(kStdioDriver, "restart", {{"RAWD_PID", absl::StrCat(daemon_->pid())}});
  EXPECT_EQ(daemon_->Stop(SIGKILL), 128 + SIGKILL);  // reaps the killed daemon
  ASSERT_TRUE(r["first"].contains("error")) << r.dump();
  EXPECT_EQ(r["first"]["error"]["code"], -32603);
  EXPECT_THAT(r["first"]["error"]["message"].get<std::string>(),
              HasSubstr("rawd went away during this turn"));
  EXPECT_EQ(r["second"]["stopReason"], "end_turn");
  EXPECT_EQ(r["second"]["text"], "After the restart.");
  ShutdownDaemonAt(daemon_->socket_path());
}

// Raw's approval modes as ACP session modes: session/new offers them with
// the agent's own as current (and as the `mode` config option); set_mode
// chooses one for the session through rawd, announced with
// current_mode_update, and the next prompt's call that no rule matches runs
// without a permission request. An unknown mode is refused.
TEST_F(AcpTest, SetModeChoosesTheApprovalModeOfTheSession) {
  const std::string marker = daemon_->workdir() + "/ran";
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"touch ran"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  Json r = Drive("mode_driver.mjs", "", {}, {"--agent", "asker"});
  EXPECT_EQ(r["modes"]["currentModeId"], "default");
  std::vector<std::string> ids;
  for (const Json& m : r["modes"]["availableModes"]) ids.push_back(m["id"]);
  EXPECT_THAT(ids, ::testing::ElementsAre("default", "ask_all", "allow_all", "deny_all"));
  EXPECT_EQ(r["modeOption"]["category"], "mode");
  EXPECT_EQ(r["modeOption"]["currentValue"], "default");
  EXPECT_EQ(r["unknownMode"]["code"], -32602);
  ASSERT_EQ(r["modeUpdates"].size(), 1u);
  EXPECT_EQ(r["modeUpdates"][0]["currentModeId"], "allow_all");
  EXPECT_EQ(r["permissions"], 0);
  EXPECT_EQ(r["stopReason"], "end_turn");
  EXPECT_TRUE(std::filesystem::exists(marker));
}

TEST_F(AcpTest, AnswerCutAtTheOutputLimitIsMaxTokens) {
  fake_.Enqueue(chat::Stream({chat::RoleChunk(), chat::TextChunk("It goes on and"),
                              chat::FinishChunk("length"), chat::UsageChunk(10, 2), chat::Done()}));
  Json r = Drive(kStdioDriver, "prompt");
  EXPECT_EQ(r["stopReason"], "max_tokens");
}

TEST_F(AcpTest, AnswerStoppedByTheContentFilterIsRefusal) {
  fake_.Enqueue(chat::Stream({chat::RoleChunk(), chat::TextChunk("I can"),
                              chat::FinishChunk("content_filter"), chat::UsageChunk(10, 2),
                              chat::Done()}));
  Json r = Drive(kStdioDriver, "prompt");
  EXPECT_EQ(r["stopReason"], "refusal");
}

}  // namespace
}  // namespace raw::e2e
