// MCP servers and hooks that misbehave, through a real rawd: an MCP server
// that hangs past its call timeout, writes garbage, returns a huge result
// (and one past the 64 MiB message bound), starts too slowly, or exits
// during initialize; a hook that floods its stdout or stderr. Each turn
// ends with an error result or a notice that says what happened, the other
// tools keep working, and the daemon keeps serving. A crash mid-call is in
// mcp_test.cc; hanging, crashing and garbage hooks in hooks_test.cc.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// An mcp_servers entry for the fake server (tests/daemon/mcp) with `flags`
// and `extra` members.
std::string FakeServer(const std::string& name, const std::string& flags,
                       const std::string& extra) {
  return absl::StrCat(R"(")", name, R"(": {"command": ["python3", ")", RAW_SOURCE_DIR,
                      R"(/tests/daemon/mcp/fake_mcp_server.py")", flags, "]",
                      extra.empty() ? "" : ", ", extra, "}");
}

class McpHookFaultTest : public ContractTest {
 protected:
  // One turn: the model calls `calls`, then answers "done". Returns the
  // turn's events; fails the test when the turn does not end.
  std::vector<raw::v1::Event> Turn(const std::string& session,
                                   const std::vector<chat::ToolCall>& calls) {
    fake_.Enqueue(chat::ToolCallsAnswer(calls));
    fake_.Enqueue(chat::TextAnswer("done"));
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, "use the tools");
    auto end = stream.WaitForTurnEnd(turn, std::chrono::seconds(60));
    EXPECT_TRUE(end.has_value()) << "the turn hung";
    if (end.has_value()) {
      EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
          << end->turn_ended().message();
    }
    return stream.TurnEvents(turn);
  }

  // The turn's notices, one a line.
  static std::string Notices(const std::vector<raw::v1::Event>& events) {
    std::string out;
    for (const auto& e : events) {
      if (e.has_notice()) absl::StrAppend(&out, e.notice().text(), "\n");
    }
    return out;
  }

  raw::v1::McpServerInfo Server(int index) {
    raw::v1::ListMcpServersResponse response;
    grpc::ClientContext context;
    grpc::Status status =
        stub().ListMcpServers(&context, raw::v1::ListMcpServersRequest(), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return index < response.servers_size() ? response.servers(index) : raw::v1::McpServerInfo();
  }

  // The body of the last request to the fake provider.
  std::string LastRequest() { return fake_.requests().back().body; }

  // A file the built-in read_file can read: the tool that keeps working.
  void WriteNotes() { WriteFile(daemon_->workdir() + "/notes.txt", "still readable"); }
};

TEST_F(McpHookFaultTest, AHangPastTheCallTimeoutIsAnErrorResultAndTheServerIsReplaced) {
  StartDaemon(R"("approval_mode": "allow_all")",
              absl::StrCat(R"("mcp_servers": {)",
                           FakeServer("slow", "", R"("call_timeout_seconds": 1)"), "}"),
              R"(["builtin/read_file", "mcp/slow/*"])");
  WriteNotes();
  std::string session = daemon_->CreateSession();
  auto events = Turn(session, {{"c1", "mcp__slow__hang", "{}"},
                               {"c2", "read_file", R"({"path":"notes.txt"})"}});
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_THAT(results, SizeIs(2));
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(results[0].content(), HasSubstr("no answer within 1000 ms"));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_THAT(LastRequest(), HasSubstr("no answer within 1000 ms")) << "the model sees it";

  // It did not answer a ping either: stopped as hung, said so, restarted.
  auto next = Turn(session, {{"c3", "mcp__slow__echo", R"({"text":"back"})"}});
  EXPECT_THAT(Notices(next), HasSubstr("stopped responding"));
  ASSERT_THAT(Results(next), SizeIs(1));
  EXPECT_EQ(Results(next)[0].content(), "echo: back");
}

TEST_F(McpHookFaultTest, GarbageOnAServersStdoutIsSkipped) {
  StartDaemon(R"("approval_mode": "allow_all")",
              absl::StrCat(R"("mcp_servers": {)",
                           FakeServer("noisy", R"(, "--garbage-at-start")", ""), "}"),
              R"(["mcp/noisy/*"])");
  std::string session = daemon_->CreateSession();
  auto events = Turn(session, {{"c1", "mcp__noisy__garbage", "{}"},
                               {"c2", "mcp__noisy__echo", R"({"text":"clean"})"}});
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_THAT(results, SizeIs(2));
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_EQ(results[0].content(), "after garbage");
  EXPECT_EQ(results[1].content(), "echo: clean");
  EXPECT_EQ(Server(0).state(), raw::v1::MCP_SERVER_STATE_READY);
}

TEST_F(McpHookFaultTest, AHugeResultIsCutAndOnePastTheMessageBoundIsAnError) {
  StartDaemon(R"("approval_mode": "allow_all")",
              absl::StrCat(R"("mcp_servers": {)", FakeServer("big", "", ""), "}"),
              R"(["builtin/read_file", "mcp/big/*"])");
  WriteNotes();
  std::string session = daemon_->CreateSession();
  // 20 MB: read whole, given to the model cut at 100 KB.
  auto events = Turn(session, {{"c1", "mcp__big__huge", R"({"bytes": 20000000})"}});
  ASSERT_THAT(Results(events), SizeIs(1));
  const raw::v1::ToolResult cut = Results(events)[0];
  EXPECT_EQ(cut.status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_LT(cut.content().size(), 110000u);
  EXPECT_THAT(cut.content(), HasSubstr("[output truncated: "));
  EXPECT_LT(LastRequest().size(), 200000u);

  // 70 MB in one message: past the 64 MiB bound, the connection ends.
  auto flooded = Turn(session, {{"c2", "mcp__big__huge", R"({"bytes": 70000000})"},
                                {"c3", "read_file", R"({"path":"notes.txt"})"}});
  std::vector<raw::v1::ToolResult> results = Results(flooded);
  ASSERT_THAT(results, SizeIs(2));
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_LT(results[0].content().size(), 2000u);
  EXPECT_THAT(results[0].content(),
              HasSubstr("MCP server \"big\": the server process sent a message longer than "
                        "67108864 bytes and was stopped"));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_OK);

  // The server comes back for the next call.
  auto next = Turn(session, {{"c4", "mcp__big__echo", R"({"text":"again"})"}});
  ASSERT_THAT(Results(next), SizeIs(1));
  EXPECT_EQ(Results(next)[0].content(), "echo: again");
}

TEST_F(McpHookFaultTest, AStartPastTheStartupTimeoutIsANoticeAndTheTurnGoesOn) {
  StartDaemon(R"("approval_mode": "allow_all")",
              absl::StrCat(R"("mcp_servers": {)",
                           FakeServer("late", R"(, "--slow-start", "20000")",
                                      R"("startup_timeout_seconds": 1)"),
                           "}"),
              R"(["builtin/read_file", "mcp/late/*"])");
  WriteNotes();
  std::string session = daemon_->CreateSession();
  auto events = Turn(session, {{"c1", "read_file", R"({"path":"notes.txt"})"}});
  EXPECT_THAT(Notices(events), HasSubstr("MCP server \"late\" is unavailable"));
  ASSERT_THAT(Results(events), SizeIs(1));
  EXPECT_EQ(Results(events)[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_THAT(fake_.requests().front().body, ::testing::Not(HasSubstr("mcp__late__")));
}

TEST_F(McpHookFaultTest, AnExitDuringInitializeIsANoticeWithTheServersWords) {
  // Reads the initialize request, says why on stderr, exits.
  std::string dying =
      Script("dying.sh", "read request; echo 'no licence for this host' >&2; exit 4");
  StartDaemon(R"("approval_mode": "allow_all")",
              absl::StrCat(R"("mcp_servers": {"dying": {"command": [")", dying, R"("]}})"),
              R"(["builtin/read_file", "mcp/dying/*"])");
  WriteNotes();
  std::string session = daemon_->CreateSession();
  auto events = Turn(session, {{"c1", "read_file", R"({"path":"notes.txt"})"}});
  const std::string notices = Notices(events);
  EXPECT_THAT(notices, HasSubstr("MCP server \"dying\" is unavailable"));
  EXPECT_THAT(notices, HasSubstr("code 4"));
  EXPECT_THAT(notices, HasSubstr("no licence for this host"));
  ASSERT_THAT(Results(events), SizeIs(1));
  EXPECT_EQ(Results(events)[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_EQ(Server(0).state(), raw::v1::MCP_SERVER_STATE_FAILED);
  EXPECT_THAT(Server(0).last_error(), HasSubstr("no licence for this host"));
}

// 50 MB on a hook's stdout: read up to the 1 MiB bound and no further, a
// failure the notice names; the hook's on_failure decides. 50 MB on stderr
// with exit 2: a denial whose reason is cut to its bound.
TEST_F(McpHookFaultTest, HooksFloodingTheirOutputAreBoundedAndFollowTheirPolicy) {
  std::string flood = Script("flood.sh", "head -c 50000000 /dev/zero | tr '\\0' x");
  std::string flood_err =
      Script("flood_err.sh", "head -c 50000000 /dev/zero | tr '\\0' y >&2; exit 2");
  auto hook = [](const std::string& script, const std::string& matcher,
                 const std::string& on_failure) {
    return absl::StrCat(R"({"event": "pre_tool_use", "command": [")", script,
                        R"("], "matcher": ")", matcher, R"(", "on_failure": ")", on_failure,
                        R"("})");
  };
  StartDaemon(R"("approval_mode": "allow_all", "hooks": ["lenient", "strict", "loud"])",
              absl::StrCat(R"("hooks": {"lenient": )", hook(flood, "builtin/bash", "ignore"),
                           R"(, "strict": )", hook(flood, "builtin/write_file", "block"),
                           R"(, "loud": )", hook(flood_err, "builtin/read_file", "ignore"),
                           "}"));
  WriteNotes();
  std::string session = daemon_->CreateSession();
  auto events = Turn(session, {{"c1", "bash", R"({"command":"touch ran"})"},
                               {"c2", "write_file", R"({"path":"w.txt","content":"1"})"},
                               {"c3", "read_file", R"({"path":"notes.txt"})"}});
  std::vector<raw::v1::ToolResult> results = Results(events);
  ASSERT_THAT(results, SizeIs(3));
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK) << "ignore: the call runs";
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/ran"));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED) << "block: it does not";
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/w.txt"));
  EXPECT_EQ(results[2].status(), raw::v1::TOOL_RESULT_STATUS_DENIED) << "exit 2 denies";
  EXPECT_LT(results[2].content().size(), 4500u);
  EXPECT_THAT(results[2].content(), HasSubstr("yyyy"));
  const std::string notices = Notices(events);
  EXPECT_THAT(notices, HasSubstr("hook \"lenient\" printed malformed output: stdout is longer "
                                 "than 1048576 bytes"));
  EXPECT_THAT(notices, HasSubstr("hook \"strict\" printed malformed output: stdout is longer "
                                 "than 1048576 bytes (on_failure: block, so the call was denied)"));
  EXPECT_LT(notices.size(), 4000u);
  EXPECT_LT(LastRequest().size(), 100000u) << "the model gets bounded text too";
}

}  // namespace
}  // namespace raw::e2e
