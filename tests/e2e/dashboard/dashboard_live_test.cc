// A dashboard tab's WebSocket end to end: events, the lease, and the
// commands, through raw-dashboard and a real rawd.
#include <thread>

#include "gmock/gmock.h"
#include "tests/e2e/dashboard/dashboard_fixture.h"
#include "tests/e2e/lease_holder.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

bool LeaseIs(const Json& frame, const char* state) {
  return frame["type"] == "lease" && frame["state"] == state;
}

TEST_F(DashboardTest, APromptStreamsItsEventsToTheTab) {
  const std::string id = CreateSessionOverHttp();
  auto ws = OpenLive(id);
  ASSERT_NE(ws, nullptr);
  ReadUntil(*ws, [](const Json& f) { return LeaseIs(f, "none"); });
  // Without the lease a write is the daemon's refusal.
  Json refused = Command(*ws, "prompt", {{"text", "hello"}});
  EXPECT_EQ(refused["ok"], false);
  EXPECT_EQ(refused["error"]["code"], "FAILED_PRECONDITION");

  Json acquired = Command(*ws, "acquire_lease");
  ASSERT_EQ(acquired["ok"], true) << acquired.dump();
  fake_.Enqueue(chat::TextAnswer("Hello from the model"));
  Json started = Command(*ws, "prompt", {{"text", "say hello"}});
  ASSERT_EQ(started["ok"], true) << started.dump();
  const std::string turn = started["result"]["turnId"];
  ASSERT_FALSE(turn.empty());
  Json message = ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "assistantMessage"); });
  EXPECT_EQ(message["event"]["assistantMessage"]["text"], "Hello from the model");
  Json ended = ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "turnEnded"); });
  EXPECT_EQ(ended["event"]["turnId"], turn);
  EXPECT_EQ(ended["event"]["turnEnded"]["reason"], "TURN_END_REASON_COMPLETED");

  // Another tab opened after the turn replays it from the start.
  auto late = OpenLive(id, 0);
  ASSERT_NE(late, nullptr);
  // It sees the first tab as the writer (said on open, before the events),
  Json follower = ReadUntil(*late, [](const Json& f) { return f["type"] == "lease"; });
  EXPECT_EQ(follower["state"], "follower");
  EXPECT_THAT(follower["holder"].get<std::string>(), HasSubstr("raw-dashboard"));
  // and gets the stored turn.
  Json replayed = ReadUntil(*late, [](const Json& f) { return IsEvent(f, "turnStarted"); });
  EXPECT_EQ(replayed["event"]["turnStarted"]["userText"], "say hello");
}

TEST_F(DashboardTest, ApprovalsAreAnsweredPerCallOrForTheBatch) {
  const std::string id = CreateSessionOverHttp();
  auto ws = OpenLive(id);
  ASSERT_NE(ws, nullptr);
  ASSERT_EQ(Command(*ws, "acquire_lease")["ok"], true);
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo allowed-run"})"},
                                       {"c2", "bash", R"({"command":"touch denied-file"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  ASSERT_EQ(Command(*ws, "prompt", {{"text", "run two"}})["ok"], true);
  Json asked = ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "approvalRequested"); });
  const std::string request_id = asked["event"]["approvalRequested"]["requestId"];
  // The session option must be a small index.
  for (const Json& bad : {Json("0"), Json(-1), Json(1.5)}) {
    Json refused = Command(*ws, "approve",
                           {{"approval_id", request_id},
                            {"decision", "allow_session"},
                            {"call_ids", Json::array({"c1"})},
                            {"session_rule", bad}});
    EXPECT_EQ(refused["error"]["code"], "INVALID_ARGUMENT") << refused.dump();
  }
  Json allowed = Command(*ws, "approve",
                         {{"approval_id", request_id},
                          {"decision", "allow"},
                          {"call_ids", Json::array({"c1"})}});
  ASSERT_EQ(allowed["ok"], true) << allowed.dump();
  Json denied = Command(*ws, "approve",
                        {{"approval_id", request_id},
                         {"decision", "deny"},
                         {"message", "not that file"}});
  ASSERT_EQ(denied["ok"], true) << denied.dump();
  std::vector<Json> results;
  ReadUntil(*ws, [&](const Json& f) {
    if (IsEvent(f, "toolResult")) results.push_back(f["event"]["toolResult"]);
    return IsEvent(f, "turnEnded");
  });
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["status"], "TOOL_RESULT_STATUS_OK");
  EXPECT_EQ(results[1]["status"], "TOOL_RESULT_STATUS_DENIED");
  EXPECT_THAT(results[1]["content"].get<std::string>(), HasSubstr("not that file"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/denied-file"));
}

TEST_F(DashboardTest, InterruptEndsTheRunningTurn) {
  const std::string id = CreateSessionOverHttp();
  auto ws = OpenLive(id);
  ASSERT_NE(ws, nullptr);
  ASSERT_EQ(Command(*ws, "acquire_lease")["ok"], true);
  testing::ScriptedResponse parked = chat::TextAnswer("never finished");
  parked.gate_before_chunk = 1;
  fake_.Enqueue(parked);
  ASSERT_EQ(Command(*ws, "prompt", {{"text", "long task"}})["ok"], true);
  ASSERT_TRUE(fake_.WaitForGate());
  Json interrupted = Command(*ws, "interrupt");
  ASSERT_EQ(interrupted["ok"], true) << interrupted.dump();
  EXPECT_EQ(interrupted["result"]["interrupted"], true);
  Json ended = ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "turnEnded"); });
  EXPECT_EQ(ended["event"]["turnEnded"]["reason"], "TURN_END_REASON_CANCELLED");
}

// Three turns, so that the oldest is older than the two kept as they are
// (compact.keep_recent_turns) and there is something to summarize.
TEST_F(DashboardTest, CompactAndClearReportTheirProgressAsEvents) {
  const std::string id = CreateSessionOverHttp();
  auto ws = OpenLive(id);
  ASSERT_NE(ws, nullptr);
  ASSERT_EQ(Command(*ws, "acquire_lease")["ok"], true);
  std::string long_answer;
  for (int i = 0; i < 80; ++i) absl::StrAppend(&long_answer, " detail-", i);
  for (const char* text : {"first", "second", "third"}) {
    fake_.Enqueue(chat::TextAnswer(absl::StrCat(text, " answer:", long_answer)));
    ASSERT_EQ(Command(*ws, "prompt", {{"text", text}})["ok"], true);
    ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "turnEnded"); });
  }
  fake_.Enqueue(chat::TextAnswer("SUMMARY: questions were answered."));
  Json compact = Command(*ws, "compact");
  ASSERT_EQ(compact["ok"], true) << compact.dump();
  const std::string operation = compact["result"]["operationId"];
  Json started = ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "compactionStarted"); });
  EXPECT_EQ(started["event"]["turnId"], operation);
  // (Progress events are live only and may be skipped by a lagging tab;
  // the browser test shows them.)
  Json ended = ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "compactionEnded"); });
  EXPECT_EQ(ended["event"]["turnId"], operation);
  EXPECT_EQ(ended["event"]["compactionEnded"].value("outcome", ""), "COMPACTION_OUTCOME_ACCEPTED")
      << ended.dump();
  Json cleared = Command(*ws, "clear");
  ASSERT_EQ(cleared["ok"], true) << cleared.dump();
  ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "contextCleared"); });
}

TEST_F(DashboardTest, ATabFollowsAnotherWriterAndCanAskForTheLease) {
  const std::string id = CreateSessionOverHttp();
  // `raw` holding the session: the test's own lease stream here.
  ASSERT_FALSE(LeaseFor(stub(), id).empty());
  auto ws = OpenLive(id);
  ASSERT_NE(ws, nullptr);
  Json follower = ReadUntil(*ws, [](const Json& f) { return f["type"] == "lease"; });
  EXPECT_EQ(follower["state"], "follower");
  EXPECT_FALSE(follower["holder"].get<std::string>().empty());
  // The tab already waits, without asking, for the writer to let go.
  Json quiet = Command(*ws, "acquire_lease");
  EXPECT_EQ(quiet["ok"], true) << quiet.dump();
  EXPECT_EQ(quiet["result"]["state"], "follower") << quiet.dump();
  // Asking for a handover waits until the holder lets go.
  ASSERT_TRUE(ws->SendText(R"({"id":99,"op":"acquire_lease","request_handover":true})").ok());
  ReadUntil(*ws, [](const Json& f) { return LeaseIs(f, "waiting"); });
  ReleaseLease(stub(), id);
  // The lease frame comes first, then the reply.
  ReadUntil(*ws, [](const Json& f) { return LeaseIs(f, "holding"); });
  Json granted = ReadUntil(*ws, [](const Json& f) { return f["type"] == "reply" && f["id"] == 99; });
  EXPECT_EQ(granted["ok"], true) << granted.dump();
}

// A following tab names the writer it follows, also after the lease passed
// from one other client to another.
TEST_F(DashboardTest, AFollowingTabNamesTheNewWriterAfterAHandoverBetweenOthers) {
  const std::string id = CreateSessionOverHttp();
  auto terminal = std::make_unique<LeaseHolder>(stub(), id, "raw (pid 7)");
  ASSERT_FALSE(terminal->lease_id().empty());
  auto ws = OpenLive(id);
  ASSERT_NE(ws, nullptr);
  // Said twice: when the tab reads the session's writer, and when rawd
  // answers the tab's quiet wait (so the wait is in rawd's queue).
  for (int i = 0; i < 2; ++i) {
    Json follower = ReadUntil(*ws, [](const Json& f) { return LeaseIs(f, "follower"); });
    EXPECT_EQ(follower["holder"], "raw (pid 7)");
  }
  auto editor = std::make_unique<LeaseHolder>(stub(), id, "raw-acp (pid 9)",
                                              LeaseOptions{.request_handover = true});
  ASSERT_TRUE(editor->first().has_waiting()) << editor->first().DebugString();
  terminal.reset();
  raw::v1::LeaseEvent granted;
  ASSERT_TRUE(editor->Next(&granted));
  ASSERT_TRUE(granted.has_granted()) << granted.DebugString();
  Json news = ReadUntil(*ws, [](const Json& f) { return f["type"] == "lease"; });
  EXPECT_EQ(news["state"], "follower") << news.dump();
  EXPECT_EQ(news["holder"], "raw-acp (pid 9)") << news.dump();
}

// rawd restarts under a tab that holds the lease: the tab is told at once
// that it no longer writes, then, once rawd is back, that nobody does; it
// takes the lease again and writes on the same socket.
TEST_F(DashboardTest, ATabThatHeldTheLeaseIsToldItsStateWhenRawdRestarts) {
  const std::string id = CreateSessionOverHttp();
  auto ws = OpenLive(id);
  ASSERT_NE(ws, nullptr);
  ASSERT_EQ(Command(*ws, "acquire_lease")["ok"], true);
  ReadUntil(*ws, [](const Json& f) { return LeaseIs(f, "holding"); });
  EXPECT_EQ(daemon_->Stop(), 0);
  Json lost = ReadUntil(*ws, [](const Json& f) { return f["type"] == "lease"; });
  EXPECT_EQ(lost["state"], "unknown") << lost.dump();
  ASSERT_TRUE(daemon_->Start().ok());
  Json none = ReadUntil(*ws, [](const Json& f) { return f["type"] == "lease"; });
  EXPECT_EQ(none["state"], "none") << none.dump();
  Json acquired = Command(*ws, "acquire_lease");
  ASSERT_EQ(acquired["ok"], true) << acquired.dump();
  fake_.Enqueue(chat::TextAnswer("still here"));
  Json started = Command(*ws, "prompt", {{"text", "after the restart"}});
  ASSERT_EQ(started["ok"], true) << started.dump();
  Json message = ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "assistantMessage"); });
  EXPECT_EQ(message["event"]["assistantMessage"]["text"], "still here");
}

TEST_F(DashboardTest, ATabFollowsATurnThatRawRunDrives) {
  const std::string id = CreateSessionOverHttp();
  auto ws = OpenLive(id);
  ASSERT_NE(ws, nullptr);
  ReadUntil(*ws, [](const Json& f) { return LeaseIs(f, "none"); });
  // The answer waits until the tab has seen who writes.
  testing::ScriptedResponse parked = chat::TextAnswer("answer to raw run");
  parked.gate_before_chunk = 1;
  fake_.Enqueue(parked);
  CommandResult ran;
  std::thread run([&] { ran = daemon_->RunRaw({"run", "--session", id, "from the terminal"}); });
  Json follower = ReadUntil(*ws, [](const Json& f) { return LeaseIs(f, "follower"); });
  EXPECT_THAT(follower["holder"].get<std::string>(), HasSubstr("raw"));
  fake_.ReleaseGate();
  Json message = ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "assistantMessage"); });
  EXPECT_EQ(message["event"]["assistantMessage"]["text"], "answer to raw run");
  run.join();
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  // raw run let go after its turn: the following tab writes now, without
  // asking (it stayed read-only until reloaded before).
  Json holding = ReadUntil(*ws, [](const Json& f) { return LeaseIs(f, "holding"); });
  EXPECT_EQ(holding["holder"].get<std::string>().find("raw run"), std::string::npos)
      << holding.dump();
}

TEST_F(DashboardTest, ClosingTheTabReleasesItsLease) {
  const std::string id = CreateSessionOverHttp();
  {
    auto ws = OpenLive(id);
    ASSERT_NE(ws, nullptr);
    ASSERT_EQ(Command(*ws, "acquire_lease")["ok"], true);
    ASSERT_TRUE(ws->Close().ok());
  }
  // The test's client gets the lease once the gateway let go (it waits
  // for the handover the daemon grants when the holder's stream ends).
  raw::v1::AcquireLeaseRequest request;
  request.set_session_id(id);
  request.set_client_name("test");
  request.set_request_handover(true);
  grpc::ClientContext ctx;
  auto reader = stub().AcquireLease(&ctx, request);
  raw::v1::LeaseEvent event;
  bool granted = false;
  while (reader->Read(&event)) {
    if (event.has_granted()) {
      granted = true;
      break;
    }
  }
  EXPECT_TRUE(granted);
  ctx.TryCancel();
  while (reader->Read(&event)) {
  }
  reader->Finish().IgnoreError();
}

TEST_F(DashboardTest, MalformedCommandsAreRefusedWithAReply) {
  const std::string id = CreateSessionOverHttp();
  auto ws = OpenLive(id);
  ASSERT_NE(ws, nullptr);
  ASSERT_TRUE(ws->SendText("not json").ok());
  Json reply = ReadUntil(*ws, [](const Json& f) { return f["type"] == "reply"; });
  EXPECT_EQ(reply["error"]["code"], "INVALID_ARGUMENT");
  Json unknown = Command(*ws, "format_disk");
  EXPECT_EQ(unknown["error"]["code"], "INVALID_ARGUMENT");
  Json bad = Command(*ws, "approve", {{"approval_id", "a"}, {"decision", "maybe"}});
  EXPECT_THAT(bad["error"]["message"].get<std::string>(), HasSubstr("decision"));
}

}  // namespace
}  // namespace raw::e2e
