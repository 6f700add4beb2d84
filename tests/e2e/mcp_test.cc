// MCP through a real rawd: a model calls MCP tools in a turn (the fake
// server and the official server-everything over stdio), only the selected
// tools reach the provider request, progress arrives as live events,
// interrupting a turn cancels the server's call, a crash becomes an error
// result and a notice, rules and approvals apply, and ListMcpServers reports
// each configured server without starting any.
#include <signal.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string FakeServerScript() {
  return absl::StrCat(RAW_SOURCE_DIR, "/tests/daemon/mcp/fake_mcp_server.py");
}

std::string EverythingScript() {
  return absl::StrCat(RAW_SOURCE_DIR,
                      "/tests/mcp-servers/node_modules/@modelcontextprotocol/server-everything/"
                      "dist/index.js");
}

// mcp_servers with the fake under "fake" and, never selected, "unused".
std::string FakeServers() {
  std::string fake = absl::StrCat(R"({"command": ["python3", ")", FakeServerScript(),
                                  R"("], "startup_timeout_seconds": 20})");
  return absl::StrCat(R"("mcp_servers": {"fake": )", fake, R"(, "unused": )", fake, "}");
}

class McpTest : public ContractTest {
 protected:
  raw::v1::ListMcpServersResponse Servers() {
    raw::v1::ListMcpServersResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub().ListMcpServers(&ctx, raw::v1::ListMcpServersRequest(), &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp;
  }

  // Runs a turn whose first answer is `calls` and whose second is "done";
  // returns the turn's events.
  std::vector<raw::v1::Event> TurnWithCalls(const std::string& session,
                                            const std::vector<chat::ToolCall>& calls) {
    fake_.Enqueue(chat::ToolCallsAnswer(calls));
    fake_.Enqueue(chat::TextAnswer("done"));
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, "use the tools");
    auto end = stream.WaitForTurnEnd(turn);
    EXPECT_TRUE(end.has_value());
    return stream.TurnEvents(turn);
  }

  static std::vector<std::string> ToolNames(const Json& body) {
    std::vector<std::string> names;
    for (const auto& tool : body["tools"]) names.push_back(tool["function"]["name"]);
    return names;
  }

  static std::vector<std::string> Notices(const std::vector<raw::v1::Event>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) {
      if (e.has_notice()) out.push_back(e.notice().text());
    }
    return out;
  }
};

TEST_F(McpTest, AModelCallsMcpToolsAndOnlyTheSelectedOnesAreSent) {
  StartDaemon(R"("approval_mode": "allow_all")", FakeServers(),
              R"(["builtin/read_file", "mcp/fake/echo", "mcp/fake/prog*"])");
  // Configured, never needed yet: stopped, nothing listed, nothing started.
  raw::v1::ListMcpServersResponse before = Servers();
  ASSERT_EQ(before.servers_size(), 2);
  EXPECT_EQ(before.servers(0).name(), "fake");
  EXPECT_EQ(before.servers(0).state(), raw::v1::MCP_SERVER_STATE_STOPPED);
  EXPECT_EQ(before.servers(0).transport(), "stdio");
  EXPECT_EQ(before.servers(0).endpoint(), "python3");
  EXPECT_EQ(before.servers(0).tools_size(), 0);

  std::string session = daemon_->CreateSession();
  auto events = TurnWithCalls(session, {{"c1", "mcp__fake__echo", R"({"text":"hi"})"},
                                        {"c2", "mcp__fake__progress", R"({"steps":3})"}});
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].tool(), "mcp/fake/echo");
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_EQ(results[0].content(), "echo: hi");
  EXPECT_EQ(results[1].content(), "done after 3 steps");

  auto requests = fake_.requests();
  ASSERT_EQ(requests.size(), 2u);
  // The fake server lists 17 tools; the request carries the three selected
  // (registry tools first, then MCP tools by qualified name).
  EXPECT_THAT(ToolNames(*requests[0].BodyJson()),
              ElementsAre("read_file", "mcp__fake__echo", "mcp__fake__progress"));
  Json second = *requests[1].BodyJson();
  EXPECT_THAT(second["messages"].dump(), HasSubstr("echo: hi"));

  raw::v1::ListMcpServersResponse after = Servers();
  ASSERT_EQ(after.servers_size(), 2);
  EXPECT_EQ(after.servers(0).state(), raw::v1::MCP_SERVER_STATE_READY);
  EXPECT_EQ(after.servers(0).protocol_version(), "2025-11-25");
  EXPECT_EQ(after.servers(0).tools_size(), 17);
  EXPECT_EQ(after.servers(1).name(), "unused");
  EXPECT_EQ(after.servers(1).state(), raw::v1::MCP_SERVER_STATE_STOPPED);
}

TEST_F(McpTest, TheSessionsEstimateKeepsCountingMcpToolDefinitions) {
  StartDaemon(R"("approval_mode": "allow_all")", FakeServers(), R"(["mcp/fake/*"])");
  std::string session = daemon_->CreateSession();
  testing::ScriptedResponse call = chat::ToolCallsAnswer({{"c1", "mcp__fake__echo", R"({"text":"a"})"}});
  call.gate_before_chunk = 0;
  fake_.Enqueue(call);
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  ASSERT_TRUE(fake_.WaitForGate());
  ASSERT_TRUE(stream.WaitFor([&](const raw::v1::Event& e) { return e.has_turn_started(); }));
  fake_.ReleaseGate();
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  int64_t last_request = 0;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (e.has_context_estimate()) last_request = e.context_estimate().tokens();
  }
  ASSERT_GT(last_request, 0);
  // Nothing left the context after the last request (its answer came in),
  // so the estimate GetSession makes must not drop the 16 tool definitions.
  raw::v1::GetSessionRequest req;
  req.set_session_id(session);
  raw::v1::GetSessionResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().GetSession(&ctx, req, &resp).ok());
  EXPECT_GE(resp.session().context().tokens(), last_request)
      << resp.session().context().DebugString();

  // A restarted daemon has started no MCP server yet: its estimate must not
  // drop their tool definitions either, whether it stopped or was killed.
  for (int signal : {SIGTERM, SIGKILL}) {
    daemon_->Stop(signal);
    ASSERT_TRUE(daemon_->Start().ok());
    raw::v1::GetSessionResponse again;
    grpc::ClientContext ctx_again;
    ASSERT_TRUE(stub().GetSession(&ctx_again, req, &again).ok());
    EXPECT_EQ(again.session().context().tokens(), resp.session().context().tokens())
        << "after signal " << signal << ": " << again.session().context().DebugString();
    const raw::v1::ListMcpServersResponse servers = Servers();
    for (const auto& server : servers.servers()) {
      EXPECT_EQ(server.state(), raw::v1::MCP_SERVER_STATE_STOPPED)
          << server.name() << ": the estimate starts no server";
    }
  }
}

TEST_F(McpTest, ProgressArrivesAsLiveToolProgressEvents) {
  StartDaemon(R"("approval_mode": "allow_all")", FakeServers(), R"(["mcp/fake/progress"])");
  std::string session = daemon_->CreateSession();
  testing::ScriptedResponse call =
      chat::ToolCallsAnswer({{"c1", "mcp__fake__progress", R"({"steps":3})"}});
  call.gate_before_chunk = 0;
  fake_.Enqueue(call);
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  // The turn is parked at the provider: once its start is seen, the stream
  // is attached and no live event can be missed.
  ASSERT_TRUE(fake_.WaitForGate());
  ASSERT_TRUE(stream.WaitFor([&](const raw::v1::Event& e) { return e.has_turn_started(); }));
  fake_.ReleaseGate();
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  std::vector<std::string> progress;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (!e.has_tool_progress()) continue;
    EXPECT_EQ(e.tool_progress().call_id(), "c1");
    EXPECT_EQ(e.tool_progress().total(), 3);
    progress.push_back(absl::StrCat(e.tool_progress().progress(), " ", e.tool_progress().message()));
  }
  EXPECT_THAT(progress, ElementsAre("1 step 1", "2 step 2", "3 step 3"));
}

TEST_F(McpTest, InterruptingTheTurnCancelsTheServersCall) {
  StartDaemon(R"("approval_mode": "allow_all")", FakeServers(),
              R"(["mcp/fake/wait_cancel", "mcp/fake/cancelled_ids"])");
  std::string session = daemon_->CreateSession();
  testing::ScriptedResponse call = chat::ToolCallsAnswer({{"c1", "mcp__fake__wait_cancel", "{}"}});
  call.gate_before_chunk = 0;
  fake_.Enqueue(call);
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "wait");
  ASSERT_TRUE(fake_.WaitForGate());
  ASSERT_TRUE(stream.WaitFor([&](const raw::v1::Event& e) { return e.has_turn_started(); }));
  fake_.ReleaseGate();
  // The server reports "waiting" once it holds the call.
  ASSERT_TRUE(stream.WaitFor([](const raw::v1::Event& e) { return e.has_tool_progress(); }));
  raw::v1::InterruptTurnRequest req;
  req.set_session_id(session);
  req.set_lease_id(LeaseFor(stub(), session));
  raw::v1::InterruptTurnResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().InterruptTurn(&ctx, req, &resp).ok());
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_CANCELLED);
  std::vector<raw::v1::ToolResult> results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_CANCELLED);

  // The same connection serves the next turn; the server saw the
  // notifications/cancelled for the interrupted request.
  auto next = TurnWithCalls(session, {{"c2", "mcp__fake__cancelled_ids", "{}"}});
  std::vector<raw::v1::ToolResult> listed = Results(next);
  ASSERT_EQ(listed.size(), 1u);
  Json ids = *ParseJson(listed[0].content());
  EXPECT_EQ(ids.size(), 1u) << listed[0].content();
}

TEST_F(McpTest, ACrashIsAnErrorResultAndANoticeWhileOtherToolsWork) {
  StartDaemon(R"("approval_mode": "allow_all")", FakeServers(),
              R"(["builtin/read_file", "mcp/fake/*"])");
  std::filesystem::path file = std::filesystem::path(daemon_->workdir()) / "notes.txt";
  WriteFile(file.string(), "still readable");
  std::string session = daemon_->CreateSession();
  auto events = TurnWithCalls(session, {{"c1", "mcp__fake__crash", "{}"},
                                        {"c2", "read_file", R"({"path":"notes.txt"})"}});
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(results[0].content(), HasSubstr("exited"));
  EXPECT_THAT(results[0].content(), HasSubstr("crashing on purpose"));  // its stderr
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_THAT(results[1].content(), HasSubstr("still readable"));

  // The next turn is told, and the daemon and the session keep working.
  auto next = TurnWithCalls(session, {{"c3", "read_file", R"({"path":"notes.txt"})"}});
  EXPECT_THAT(::testing::PrintToString(Notices(next)), HasSubstr("fake"));
  ASSERT_EQ(Results(next).size(), 1u);
  EXPECT_EQ(Results(next)[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  raw::v1::ListMcpServersResponse status = Servers();
  EXPECT_THAT(status.servers(0).last_error(), HasSubstr("exited"));
}

TEST_F(McpTest, RulesAndApprovalsApplyToMcpTools) {
  // echo is annotated read-only: allowed by default. crash has no
  // annotation: it asks. fail is denied by a rule.
  StartDaemon(R"("rules": [{"deny": "mcp/fake/fail"}], "approval_timeout_seconds": 1)",
              FakeServers(), R"(["mcp/fake/*"])");
  std::string session = daemon_->CreateSession();
  auto events = TurnWithCalls(session, {{"c1", "mcp__fake__echo", R"({"text":"a"})"},
                                        {"c2", "mcp__fake__fail", "{}"},
                                        {"c3", "mcp__fake__crash", "{}"}});
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  // Nobody answered the ask: denied on timeout, so the server never crashed.
  EXPECT_EQ(results[2].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  bool asked = false;
  for (const auto& e : events) {
    if (!e.has_approval_requested()) continue;
    asked = true;
    for (const auto& call : e.approval_requested().calls()) {
      if (call.call_id() == "c3") {
        EXPECT_EQ(call.state(), raw::v1::APPROVAL_STATE_PENDING);
      }
      if (call.call_id() == "c1") {
        EXPECT_EQ(call.state(), raw::v1::APPROVAL_STATE_ALLOWED);
      }
    }
  }
  EXPECT_TRUE(asked);
  EXPECT_EQ(Servers().servers(0).state(), raw::v1::MCP_SERVER_STATE_READY);
}

TEST_F(McpTest, TheOfficialEverythingServerAnswersAModelsCall) {
  if (!std::filesystem::exists(EverythingScript())) {
    GTEST_SKIP() << "server-everything is not installed: run `npm ci` in tests/mcp-servers";
  }
  StartDaemon(R"("approval_mode": "allow_all")",
              absl::StrCat(R"("mcp_servers": {"everything": {"command": ["node", ")",
                           EverythingScript(), R"(", "stdio"]}})"),
              R"(["mcp/everything/echo"])");
  std::string session = daemon_->CreateSession();
  auto events =
      TurnWithCalls(session, {{"c1", "mcp__everything__echo", R"({"message":"hello"})"}});
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_THAT(results[0].content(), HasSubstr("hello"));
  EXPECT_THAT(ToolNames(*fake_.requests()[0].BodyJson()), ElementsAre("mcp__everything__echo"));
  raw::v1::ListMcpServersResponse status = Servers();
  ASSERT_EQ(status.servers_size(), 1);
  EXPECT_EQ(status.servers(0).state(), raw::v1::MCP_SERVER_STATE_READY);
  EXPECT_GT(status.servers(0).tools_size(), 1);  // it lists more than the one selected
}

TEST_F(McpTest, AServerWithRootsIsGivenTheSessionsDirectory) {
  if (!std::filesystem::exists(EverythingScript())) {
    GTEST_SKIP() << "server-everything is not installed: run `npm ci` in tests/mcp-servers";
  }
  StartDaemon(R"("approval_mode": "allow_all")",
              absl::StrCat(R"("mcp_servers": {"everything": {"command": ["node", ")",
                           EverythingScript(), R"(", "stdio"], "roots": true}})"),
              R"(["mcp/everything/get-roots-list"])");
  std::string session = daemon_->CreateSession();
  auto events = TurnWithCalls(session, {{"c1", "mcp__everything__get-roots-list", "{}"}});
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_THAT(results[0].content(), HasSubstr(absl::StrCat("file://", daemon_->workdir())));
  raw::v1::ListMcpServersResponse status = Servers();
  ASSERT_EQ(status.servers_size(), 1);
  EXPECT_EQ(status.servers(0).root(), daemon_->workdir());
}

TEST_F(McpTest, StartTurnDoesNotWaitForAServerToStart) {
  StartDaemon(R"("approval_mode": "allow_all")",
              absl::StrCat(R"("mcp_servers": {"slow": {"command": ["python3", ")",
                           FakeServerScript(), R"(", "--slow-start", "4000"]}})"),
              R"(["mcp/slow/echo"])");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "mcp__slow__echo", R"({"text":"late"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  // The reply came while the server was still starting (it takes 4 s).
  EXPECT_NE(Servers().servers(0).state(), raw::v1::MCP_SERVER_STATE_READY);
  ASSERT_TRUE(stream.WaitFor([&](const raw::v1::Event& e) { return e.has_turn_started(); }));
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  std::vector<raw::v1::ToolResult> results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].content(), "echo: late");
  // The request was made after the server had listed its tools.
  EXPECT_THAT(ToolNames(*fake_.requests()[0].BodyJson()), ElementsAre("mcp__slow__echo"));
}

TEST_F(McpTest, RawMcpAndRawAgentsPrintWhatTheDaemonSees) {
  StartDaemon(R"("approval_mode": "allow_all")", FakeServers(), R"(["mcp/fake/echo"])");
  CommandResult mcp = daemon_->RunRaw({"mcp"});
  ASSERT_EQ(mcp.exit_code, 0) << mcp.err;
  EXPECT_THAT(mcp.out, HasSubstr("fake  stopped  stdio python3\n"));
  EXPECT_THAT(mcp.out, HasSubstr("unused  stopped  stdio python3\n"));

  std::string session = daemon_->CreateSession();
  TurnWithCalls(session, {{"c1", "mcp__fake__echo", R"({"text":"x"})"}});
  mcp = daemon_->RunRaw({"mcp", "list", "--json"});
  ASSERT_EQ(mcp.exit_code, 0) << mcp.err;
  std::vector<std::string> lines = absl::StrSplit(mcp.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << mcp.out;
  Json fake = *ParseJson(lines[0]);
  EXPECT_EQ(fake["name"], "fake");
  EXPECT_EQ(fake["state"], "MCP_SERVER_STATE_READY");
  EXPECT_EQ(fake["tools"].size(), 17u);

  CommandResult agents = daemon_->RunRaw({"agents"});
  ASSERT_EQ(agents.exit_code, 0) << agents.err;
  EXPECT_THAT(agents.out, HasSubstr("* coder  model fake\n    tools: mcp/fake/echo\n"));
  EXPECT_EQ(daemon_->RunRaw({"mcp", "nonsense"}).exit_code, 2);
}

}  // namespace
}  // namespace raw::e2e
