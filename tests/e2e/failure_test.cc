// Cancellation, provider failures and durability, end to end.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "tests/e2e/e2e_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

std::vector<raw::v1::ToolResult> Results(const EventStream& s, const std::string& turn) {
  std::vector<raw::v1::ToolResult> out;
  for (const auto& e : s.TurnEvents(turn)) {
    if (e.has_tool_result()) out.push_back(e.tool_result());
  }
  return out;
}

bool InterruptTurn(raw::v1::Raw::Stub& stub, const std::string& session) {
  grpc::ClientContext ctx;
  raw::v1::InterruptTurnRequest req;
  req.set_session_id(session);
  req.set_lease_id(LeaseFor(stub, session));
  raw::v1::InterruptTurnResponse resp;
  grpc::Status s = stub.InterruptTurn(&ctx, req, &resp);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return resp.interrupted();
}

TEST_F(E2eTest, CancelDuringStream) {
  std::string session = daemon_->CreateSession();
  auto slow = chat::Stream({chat::RoleChunk(), chat::TextChunk("Partial "),
                            chat::TextChunk("never sent"), chat::FinishChunk("stop"), chat::Done()});
  slow.gate_before_chunk = 2;
  fake_.Enqueue(slow);
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  ASSERT_TRUE(stream.WaitFor([](const raw::v1::Event& e) { return e.has_text_delta(); }));
  ASSERT_TRUE(fake_.WaitForGate());
  EXPECT_TRUE(InterruptTurn(stub(), session));
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_CANCELLED);
  fake_.ReleaseGate();
  // Exactly one terminal event, and the session takes the next turn.
  int ends = 0;
  for (const auto& e : stream.TurnEvents(turn)) ends += e.has_turn_ended() ? 1 : 0;
  EXPECT_EQ(ends, 1);
  // The text the user saw is in the history, marked as interrupted.
  int interrupted = 0;
  const raw::v1::GetHistoryResponse history = History(stub(), session);
  for (const auto& e : history.events()) {
    if (!e.has_assistant_message()) continue;
    EXPECT_EQ(e.assistant_message().text(), "Partial ");
    EXPECT_TRUE(e.assistant_message().interrupted());
    ++interrupted;
  }
  EXPECT_EQ(interrupted, 1);
  fake_.Enqueue(chat::TextAnswer("again"));
  std::string turn2 = StartTurn(stub(), session, "again");
  auto end2 = stream.WaitForTurnEnd(turn2);
  ASSERT_TRUE(end2.has_value());
  EXPECT_EQ(end2->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
  // The next request carries no cut-off assistant message: an assistant
  // message enters the model context only after its stream finished.
  auto body = fake_.requests().back().BodyJson();
  ASSERT_TRUE(body.ok()) << body.status();
  for (const auto& message : (*body)["messages"]) {
    EXPECT_NE(message["role"], "assistant") << message.dump();
  }
  EXPECT_EQ(body->dump().find("Partial"), std::string::npos) << body->dump();
}

TEST_F(E2eTest, CancelDuringBashKillsTheWholeProcessGroup) {
  std::string session = daemon_->CreateSession();
  std::string fifo = daemon_->workdir() + "/ready";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // The command reports its pid through the fifo, starts a grandchild and
  // waits; the test interrupts once it has the pid.
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "bash", R"({"command":"sleep 300 & echo $$ > ready; wait"})"},
       {"c2", "write_file", R"({"path":"after.txt","content":"x"})"}}));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "run it");
  int fd = open(fifo.c_str(), O_RDONLY);  // blocks until the shell opens it
  ASSERT_GE(fd, 0);
  char buf[32] = {};
  ASSERT_GT(read(fd, buf, sizeof buf - 1), 0);
  close(fd);
  pid_t shell = static_cast<pid_t>(std::stol(buf));
  ASSERT_GT(shell, 0);
  EXPECT_TRUE(InterruptTurn(stub(), session));
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_CANCELLED);
  auto results = Results(stream, turn);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_CANCELLED);
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_CANCELLED);
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/after.txt"));
  // The shell was a process-group leader; the group, grandchild included, is gone.
  EXPECT_EQ(kill(-shell, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST_F(E2eTest, Provider500EndsTheTurnWithTheProvidersMessage) {
  std::string session = daemon_->CreateSession();
  // x-should-retry: false makes this 500 final (the header wins over the status).
  auto error = chat::ErrorResponse(500, "The server had an error while processing your request.",
                                   "server_error", "");
  error.headers.push_back({"x-should-retry", "false"});
  fake_.Enqueue(error);
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("The server had an error"));
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("500"));
}

TEST_F(E2eTest, RetryableErrorsAreRetriedVisiblyAndPartialTextIsDiscarded) {
  std::string session = daemon_->CreateSession();
  auto overloaded = chat::ErrorResponse(503, "The engine is overloaded", "server_error", "");
  overloaded.headers.push_back({"retry-after-ms", "20"});
  fake_.Enqueue(overloaded);
  fake_.Enqueue(chat::Stream({chat::RoleChunk(), chat::TextChunk("Half an ans"),
                              chat::ErrorChunk("The server had an error")}));
  fake_.Enqueue(chat::TextAnswer("Whole answer."));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
  EXPECT_EQ(fake_.requests().size(), 3u);
  int notices = 0, resets = 0;
  std::string committed;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (e.has_notice()) {
      ++notices;
      EXPECT_THAT(e.notice().text(), HasSubstr("Retrying"));
    }
    if (e.has_stream_reset()) ++resets;
    if (e.has_assistant_message()) committed += e.assistant_message().text();
  }
  EXPECT_EQ(notices, 2) << "each retry is visible";
  EXPECT_EQ(resets, 1) << "only the attempt that streamed text is reset";
  EXPECT_EQ(committed, "Whole answer.");
  // Every attempt sent the same bytes.
  auto reqs = fake_.requests();
  EXPECT_EQ(reqs[0].body, reqs[1].body);
  EXPECT_EQ(reqs[1].body, reqs[2].body);
}

TEST_F(E2eTest, TruncatedStreamIsAnErrorAndItsToolCallsNeverRun) {
  std::string session = daemon_->CreateSession();
  std::vector<std::string> events = {chat::RoleChunk(), chat::TextChunk("Let me ")};
  for (auto& c : chat::ToolCallChunks(0, "call_Z", "write_file",
                                      R"({"path":"cut.txt","content":"x"})", 2)) {
    events.push_back(c);
  }
  auto cut = chat::Stream(events);  // no finish, no [DONE]
  cut.end = testing::ScriptedResponse::End::kCut;
  fake_.Enqueue(cut);
  fake_.Enqueue(chat::TextAnswer("Done differently."));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  // The cut stream was an error (retried), never a finish: its call never ran.
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/cut.txt"));
  EXPECT_TRUE(Results(stream, turn).empty());
  // What clients were shown of the cut attempt (its text, unless the cut
  // reached rawd before the text did) is taken back before the retry.
  bool shown = false, reset = false, notice = false;
  for (const auto& e : stream.TurnEvents(turn)) {
    shown = shown || (e.has_text_delta() && !notice);
    reset = reset || (e.has_stream_reset() && !notice);
    if (e.has_notice()) notice = e.notice().text().find("premature_eof") != std::string::npos;
    EXPECT_FALSE(e.has_tool_call_batch());
  }
  EXPECT_TRUE(reset || !shown) << "clients must be told to discard the partial text";
  EXPECT_TRUE(notice) << "the retry says why";
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
  // Nothing of the broken attempt reached the model context.
  auto body = fake_.requests().back().BodyJson();
  ASSERT_TRUE(body.ok());
  EXPECT_EQ((*body)["messages"].size(), 2u);
}

TEST_F(E2eTest, CommittedMessagesSurviveKill9) {
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo kept"})"}}));
  auto parked = chat::TextAnswer("never finished");
  parked.gate_before_chunk = 1;
  fake_.Enqueue(parked);
  std::string turn;
  {
    EventStream stream(stub(), session);
    turn = StartTurn(stub(), session, "durable");
    ASSERT_TRUE(stream.WaitFor([](const raw::v1::Event& e) { return e.has_tool_result(); }));
    ASSERT_TRUE(fake_.WaitForGate());
  }
  EXPECT_EQ(daemon_->Stop(SIGKILL), 128 + SIGKILL);
  fake_.ReleaseGate();
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  auto history = History(stub(), session);
  std::vector<std::string> kinds = Kinds({history.events().begin(), history.events().end()});
  // What was committed before the kill is all there; the turn the kill cut
  // short is closed once, so the next request is valid again.
  EXPECT_THAT(kinds, ::testing::ElementsAre("turn_started", "user_message", "tool_call_batch",
                                            "usage", "tool_started", "tool_result",
                                            "turn_ended"));
  EXPECT_THAT(history.events(5).tool_result().content(), HasSubstr("kept"));
  EXPECT_EQ(history.events(6).turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_EQ(history.events(6).turn_id(), turn);
}

TEST_F(E2eTest, ToolCallLeftPendingByKill9GetsACancelledResultAfterRestart) {
  std::string session = daemon_->CreateSession();
  std::string fifo = daemon_->workdir() + "/ready";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "bash", R"({"command":"echo $$ > ready; sleep 300"})"},
       {"c2", "read_file", R"({"path":"x"})"}}));
  StartTurn(stub(), session, "long");
  int fd = open(fifo.c_str(), O_RDONLY);  // the call is running once this opens
  ASSERT_GE(fd, 0);
  char buf[32] = {};
  ASSERT_GT(read(fd, buf, sizeof buf - 1), 0);
  close(fd);
  const pid_t orphan_group = static_cast<pid_t>(std::stol(buf));
  EXPECT_EQ(daemon_->Stop(SIGKILL), 128 + SIGKILL);
  kill(-orphan_group, SIGKILL);  // a killed daemon cannot clean up its tool's processes
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  fake_.Enqueue(chat::TextAnswer("recovered"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "again");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
  // The request after the restart answers both calls of the cut turn.
  auto body = fake_.requests().back().BodyJson();
  ASSERT_TRUE(body.ok());
  std::vector<std::string> answered;
  for (const auto& m : (*body)["messages"]) {
    if (m["role"] == "tool") answered.push_back(m["tool_call_id"]);
  }
  EXPECT_THAT(answered, ::testing::ElementsAre("c1", "c2"));
  int ends = 0;
  for (const auto& e : stream.events()) ends += e.has_turn_ended() ? 1 : 0;
  EXPECT_EQ(ends, 2) << "the cut turn ends exactly once, then the new one";
}

TEST_F(E2eTest, SigtermInterruptsRunningTurnsRecordsCancelledResultsAndExitsZero) {
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"sleep 300"})"}}));
  {
    EventStream stream(stub(), session);
    StartTurn(stub(), session, "long");
    ASSERT_TRUE(stream.WaitFor([](const raw::v1::Event& e) { return e.has_tool_started(); }));
  }
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  auto history = History(stub(), session);
  ASSERT_GE(history.events_size(), 2);
  const auto& last = history.events(history.events_size() - 1);
  ASSERT_TRUE(last.has_turn_ended());
  EXPECT_EQ(last.turn_ended().reason(), raw::v1::TURN_END_REASON_CANCELLED);
  // Not a user's interrupt: the end says why.
  EXPECT_EQ(last.turn_ended().message(), "the daemon is shutting down");
  const auto& result = history.events(history.events_size() - 2);
  ASSERT_TRUE(result.has_tool_result());
  EXPECT_EQ(result.tool_result().status(), raw::v1::TOOL_RESULT_STATUS_CANCELLED);
}

// SIGTERM interrupts every session's turn at once, not one after another:
// each command's trap waits (less than bash's grace) for the other
// session's command to be told too.
TEST_F(E2eTest, SigtermInterruptsTheTurnsOfAllSessionsAtOnce) {
  const std::string a = daemon_->CreateSession();
  const std::string b = daemon_->CreateSession();
  // The script of session X: on SIGTERM, notes it and waits up to 1.5 s
  // (less than bash's grace) for the other session's to be told too. It says
  // through its fifo when its trap is in place.
  for (const auto& [self, other] : {std::pair{"a", "b"}, std::pair{"b", "a"}}) {
    std::ofstream(absl::StrCat(daemon_->workdir(), "/wait_", self, ".sh"))
        << "trap 'touch term_" << self << "; for i in $(seq 150); do [ -e term_" << other
        << " ] && { touch " << self << "_saw_" << other << "; exit 0; }; sleep 0.01; done' TERM\n"
        << "echo > ready_" << self << "\nsleep 300 &\nwait\n";
    ASSERT_EQ(mkfifo(absl::StrCat(daemon_->workdir(), "/ready_", self).c_str(), 0600), 0);
  }
  auto run = [&](const std::string& session, const std::string& self) {
    fake_.Enqueue(chat::ToolCallsAnswer(
        {{"c1", "bash", absl::StrCat(R"({"command":"bash wait_)", self, R"(.sh"})")}}));
    StartTurn(stub(), session, self);
    const int fd = open(absl::StrCat(daemon_->workdir(), "/ready_", self).c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    char buf[4];
    ASSERT_GT(read(fd, buf, sizeof buf), 0);
    close(fd);
  };
  run(a, "a");
  run(b, "b");

  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/a_saw_b"));
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/b_saw_a"));
}

// A process a tool's command put in a session of its own (a dev server
// started with setsid, a tmux server) is the user's: a clean stop and start
// of the daemon leaves it running.
TEST_F(E2eTest, ACleanRestartLeavesAProcessAToolDetachedRunning) {
  std::string session = daemon_->CreateSession();
  std::string fifo = daemon_->workdir() + "/ready";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "bash",
        R"({"command":"setsid sh -c 'echo $$ > ready; exec sleep 300' </dev/null >/dev/null 2>&1 &"})"}}));
  fake_.Enqueue(chat::TextAnswer("started"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "start a server");
  int fd = open(fifo.c_str(), O_RDONLY);  // blocks until the detached shell opens it
  ASSERT_GE(fd, 0);
  char buf[32] = {};
  ASSERT_GT(read(fd, buf, sizeof buf - 1), 0);
  close(fd);
  const pid_t detached = static_cast<pid_t>(std::stol(buf));
  ASSERT_GT(detached, 0);
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());

  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  const bool alive = kill(detached, 0) == 0;
  kill(detached, SIGKILL);
  EXPECT_TRUE(alive) << "the restarted daemon ended a process the tool detached";
  EXPECT_THAT(daemon_->ReadLog(), ::testing::Not(HasSubstr("left running by the previous")));
}

}  // namespace
}  // namespace raw::e2e
