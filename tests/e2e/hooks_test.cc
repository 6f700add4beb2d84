// Hooks end to end: a real rawd runs the agent's hook commands at each event
// with the documented stdin document, and acts on their answers.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/json.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

// A hook that appends its stdin document (one line) to `log`.
std::string Recorder(const std::string& log) { return absl::StrCat("tr -d '\\n' >> ", log, "; echo >> ", log); }

// Recorder that then says so through `fifo`, blocking until the test reads
// it (WaitForRecorded): a turn_end hook runs after the turn's end is
// stored, so the end's event does not say that the hook is done.
std::string SignallingRecorder(const std::string& log, const std::string& fifo) {
  return absl::StrCat(Recorder(log), "; echo recorded > ", fifo);
}

// Blocks until a SignallingRecorder hook has recorded its document.
void WaitForRecorded(const std::string& fifo) {
  std::ifstream in(fifo);
  std::string line;
  std::getline(in, line);
}

std::string Hook(const std::string& event, const std::string& script,
                 const std::string& extra = "") {
  return absl::StrCat(R"({"event": ")", event, R"(", "command": [")", script, R"("])",
                      extra.empty() ? "" : ", ", extra, "}");
}

// The pid a hook script writes to `fifo` ("echo $$ > fifo"); blocks until
// the hook opens it, so the hook runs when this returns. 0 on failure.
pid_t HookPid(const std::string& fifo) {
  int fd = open(fifo.c_str(), O_RDONLY);
  if (fd < 0) return 0;
  char buf[32] = {};
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  return n > 0 ? static_cast<pid_t>(std::atol(buf)) : 0;
}

TEST_F(ContractTest, EveryEventReachesItsHooksWithTheDocumentedInput) {
  std::string log = scratch_ + "/events.log";
  const std::string ended = scratch_ + "/ended";
  ASSERT_EQ(mkfifo(ended.c_str(), 0600), 0);
  std::string rec = Script("record.sh", Recorder(log));
  std::string end_rec = Script("record_end.sh", SignallingRecorder(log, ended));
  StartDaemon(
      R"("approval_mode": "allow_all",
                 "hooks": ["start", "prompt", "pre", "post", "end", "note"])",
      absl::StrCat(R"("hooks": {)", R"("start": )", Hook("session_start", rec), R"(, "prompt": )",
                   Hook("user_prompt_submit", rec), R"(, "pre": )", Hook("pre_tool_use", rec),
                   R"(, "post": )", Hook("post_tool_use", rec), R"(, "end": )",
                   Hook("turn_end", end_rec), R"(, "note": )", Hook("notification", rec), "}"));
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo hi"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "say hi");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  WaitForRecorded(ended);

  std::vector<Json> docs;
  std::istringstream lines(ReadFile(log));
  for (std::string line; std::getline(lines, line);) {
    auto doc = ParseJson(line);
    ASSERT_TRUE(doc.ok()) << line;
    docs.push_back(*doc);
  }
  std::vector<std::string> events;
  for (const Json& d : docs) events.push_back(d["event"]);
  EXPECT_THAT(events, ::testing::ElementsAre("session_start", "user_prompt_submit",
                                             "pre_tool_use", "post_tool_use", "turn_end"));
  for (const Json& d : docs) {
    EXPECT_EQ(d["session_id"], session);
    EXPECT_EQ(d["cwd"], daemon_->workdir());
  }
  EXPECT_EQ(docs[1]["prompt"], "say hi");
  EXPECT_EQ(docs[2]["tool_name"], "builtin/bash");
  EXPECT_EQ(docs[2]["tool_input"]["command"], "echo hi");
  EXPECT_EQ(docs[3]["tool_result"]["status"], "ok");
  EXPECT_THAT(docs[3]["tool_result"]["content"].get<std::string>(), HasSubstr("hi"));
  EXPECT_EQ(docs[4]["reason"], "completed");

  // session_start runs once per session.
  fake_.Enqueue(chat::TextAnswer("again"));
  std::string turn2 = StartTurn(stub(), session, "again");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn2).has_value());
  WaitForRecorded(ended);
  EXPECT_THAT(ReadFile(log), ::testing::Not(HasSubstr("session_start\"}\n{\"event\":\"session_start")));
  size_t starts = 0;
  for (size_t p = 0; (p = ReadFile(log).find("\"session_start\"", p)) != std::string::npos; ++p) {
    ++starts;
  }
  EXPECT_EQ(starts, 1u);
}

// An interrupted turn still reports to the hooks that observe it: the call
// the interrupt killed reaches post_tool_use as cancelled, and turn_end
// sees the turn end cancelled.
TEST_F(ContractTest, AnInterruptedTurnReachesPostToolUseAndTurnEndHooks) {
  std::string log = scratch_ + "/events.log";
  const std::string ended = scratch_ + "/ended";
  ASSERT_EQ(mkfifo(ended.c_str(), 0600), 0);
  std::string rec = Script("record.sh", Recorder(log));
  std::string end_rec = Script("record_end.sh", SignallingRecorder(log, ended));
  StartDaemon(R"("approval_mode": "allow_all", "hooks": ["post", "end"])",
              absl::StrCat(R"("hooks": {)", R"("post": )", Hook("post_tool_use", rec),
                           R"(, "end": )", Hook("turn_end", end_rec), "}"));
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"sleep 30"})"}}));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "wait");
  ASSERT_TRUE(
      stream.WaitFor([](const raw::v1::Event& e) { return e.has_tool_started(); }).has_value());
  raw::v1::InterruptTurnRequest req;
  req.set_session_id(session);
  req.set_lease_id(LeaseFor(stub(), session));
  raw::v1::InterruptTurnResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().InterruptTurn(&ctx, req, &resp).ok());
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_CANCELLED);
  WaitForRecorded(ended);

  std::vector<Json> docs;
  std::istringstream lines(ReadFile(log));
  for (std::string line; std::getline(lines, line);) {
    auto doc = ParseJson(line);
    ASSERT_TRUE(doc.ok()) << line;
    docs.push_back(*doc);
  }
  ASSERT_EQ(docs.size(), 2u) << ReadFile(log);
  EXPECT_EQ(docs[0]["event"], "post_tool_use");
  EXPECT_EQ(docs[0]["tool_result"]["status"], "cancelled");
  EXPECT_EQ(docs[1]["event"], "turn_end");
  EXPECT_EQ(docs[1]["reason"], "cancelled");
}

// Interrupts the session's running turn; the reply says whether one ran.
bool Interrupt(raw::v1::Raw::Stub& stub, const std::string& session) {
  raw::v1::InterruptTurnRequest req;
  req.set_session_id(session);
  req.set_lease_id(LeaseFor(stub, session));
  raw::v1::InterruptTurnResponse resp;
  grpc::ClientContext ctx;
  grpc::Status s = stub.InterruptTurn(&ctx, req, &resp);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return resp.interrupted();
}

// An interrupted turn waits for its turn_end hook, up to the hook's
// timeout; a second interrupt ends the hook at once: its whole process
// group is killed and the turn ends without waiting out the timeout.
TEST_F(ContractTest, ASecondInterruptEndsTheHooksAnInterruptedTurnWaitsFor) {
  const std::string fifo = scratch_ + "/ready";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Reports its pid (its process group's id) through the fifo, starts a
  // child in the group and waits for it.
  std::string hang =
      Script("hang.sh", absl::StrCat("cat > /dev/null; sleep 600 & echo $$ > ", fifo, "; wait"));
  StartDaemon(R"("hooks": ["end"])",
              absl::StrCat(R"("hooks": {"end": )",
                           Hook("turn_end", hang, R"("timeout_seconds": 600)"), "}"));
  std::string session = daemon_->CreateSession();
  testing::ScriptedResponse answer = chat::TextAnswer("never finished");
  answer.gate_before_chunk = 1;
  fake_.Enqueue(answer);
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "wait");
  ASSERT_TRUE(fake_.WaitForGate());
  EXPECT_TRUE(Interrupt(stub(), session));

  const pid_t hook = HookPid(fifo);
  ASSERT_GT(hook, 0);
  EXPECT_TRUE(Interrupt(stub(), session));  // the turn still runs its hook

  auto end = stream.WaitForTurnEnd(turn, std::chrono::seconds(20));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_CANCELLED);
  // The end is stored before the hook runs; the next prompt waits for the
  // hook (600 s unless the second interrupt ended it).
  fake_.Enqueue(chat::TextAnswer("next"));
  std::string next = StartTurn(stub(), session, "next");
  ASSERT_TRUE(stream.WaitForTurnEnd(next).has_value());
  EXPECT_EQ(kill(-hook, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST_F(ContractTest, PreToolUseHookDeniesWithAReasonTheModelSees) {
  std::string deny = Script("deny.sh", "echo 'no network tools today' >&2; exit 2");
  StartDaemon(R"("approval_mode": "allow_all", "hooks": ["guard"])",
              absl::StrCat(R"("hooks": {"guard": )",
                           Hook("pre_tool_use", deny, R"("matcher": "builtin/bash")"), "}"));
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"touch x"})"},
                                       {"c2", "write_file", R"({"path":"y","content":"1"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_THAT(results[0].content(), HasSubstr("no network tools today"));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_OK);  // matcher: bash only
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/x"));
  EXPECT_THAT(fake_.requests().back().body, HasSubstr("no network tools today"));
}

TEST_F(ContractTest, PreToolUseHookCanAskAndAllow) {
  std::string ask = Script("ask.sh", R"(echo '{"decision": "ask", "reason": "hook wants a human"}')");
  std::string allow = Script("allow.sh", R"(echo '{"decision": "allow", "reason": "hook says fine"}')");
  StartDaemon(R"("hooks": ["ask", "allow"])",
              absl::StrCat(R"("hooks": {"ask": )",
                           Hook("pre_tool_use", ask, R"("matcher": "builtin/read_file")"),
                           R"(, "allow": )",
                           Hook("pre_tool_use", allow, R"("matcher": "builtin/write_file")"), "}"));
  std::string session = daemon_->CreateSession();
  WriteFile(daemon_->workdir() + "/r.txt", "read me");
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "read_file", R"({"path":"r.txt"})"},
                                       {"c2", "write_file", R"({"path":"w.txt","content":"1"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  auto request = stream.WaitFor([](const raw::v1::Event& e) { return e.has_approval_requested(); });
  ASSERT_TRUE(request.has_value());
  const auto& calls = request->approval_requested().calls();
  ASSERT_EQ(calls.size(), 2);
  EXPECT_EQ(calls[0].state(), raw::v1::APPROVAL_STATE_PENDING);  // read-only, but the hook asks
  EXPECT_THAT(calls[0].reason(), HasSubstr("hook wants a human"));
  EXPECT_EQ(calls[1].state(), raw::v1::APPROVAL_STATE_ALLOWED);  // would ask; the hook allows
  ASSERT_TRUE(Respond(session, request->approval_requested().request_id(),
                      raw::v1::APPROVAL_DECISION_ALLOW_ONCE)
                  .ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_OK);
}

TEST_F(ContractTest, UserPromptSubmitHookBlocksOrAddsContext) {
  std::string gate = Script("gate.sh", R"(
doc=$(cat)
case "$doc" in
  *forbidden*) echo '{"decision": "block", "reason": "that word is not allowed"}' ;;
  *) echo '{"additional_context": "The build command is make -j2."}' ;;
esac)");
  StartDaemon(R"("hooks": ["gate"])",
              absl::StrCat(R"("hooks": {"gate": )", Hook("user_prompt_submit", gate), "}"));
  std::string session = daemon_->CreateSession();
  EventStream stream(stub(), session);
  std::string blocked = StartTurn(stub(), session, "do the forbidden thing");
  auto end = stream.WaitForTurnEnd(blocked);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("that word is not allowed"));
  EXPECT_EQ(fake_.requests().size(), 0u);  // nothing was sent

  fake_.Enqueue(chat::TextAnswer("ok"));
  std::string turn = StartTurn(stub(), session, "build it");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto body = fake_.single_request().BodyJson();
  ASSERT_TRUE(body.ok());
  const auto& msgs = (*body)["messages"];
  ASSERT_EQ(msgs.size(), 2u);  // the blocked prompt never reached the model context
  EXPECT_THAT(msgs[1]["content"].get<std::string>(), HasSubstr("build it"));
  EXPECT_THAT(msgs[1]["content"].get<std::string>(), HasSubstr("make -j2"));
}

// A prompt hook may take up to an hour: the prompt is stored before it runs,
// so watchers see it at once, and a daemon killed meanwhile leaves a turn
// that the next one closes, not a prompt lost after StartTurn answered.
TEST_F(ContractTest, APromptIsStoredBeforeItsHookRunsAndSurvivesAKillDuringIt) {
  std::string fifo = scratch_ + "/hook-running";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string slow =
      Script("slow.sh", absl::StrCat("cat > /dev/null; echo $$ > ", fifo, "; exec sleep 300"));
  StartDaemon(R"("hooks": ["slow"])",
              absl::StrCat(R"("hooks": {"slow": )",
                           Hook("user_prompt_submit", slow, R"("timeout_seconds": 600)"), "}"));
  std::string session = daemon_->CreateSession();
  std::string turn;
  {
    EventStream stream(stub(), session);
    turn = StartTurn(stub(), session, "keep this prompt");
    const pid_t hook = HookPid(fifo);
    ASSERT_GT(hook, 0);
    // Shown while the hook still runs.
    auto shown = stream.WaitFor([](const raw::v1::Event& e) { return e.has_user_message(); });
    ASSERT_TRUE(shown.has_value()) << "the prompt is not shown while its hook runs";
    EXPECT_EQ(shown->user_message().text(), "keep this prompt");
    EXPECT_EQ(daemon_->Stop(SIGKILL), 128 + SIGKILL);
    kill(hook, SIGKILL);  // a killed daemon cannot end its hook
  }
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  auto history = History(stub(), session);
  std::vector<std::string> kinds;
  for (const auto& e : history.events()) {
    EXPECT_EQ(e.turn_id(), turn);
    kinds.push_back(e.has_turn_started()   ? "turn_started"
                    : e.has_user_message() ? "user_message"
                    : e.has_turn_ended()   ? "turn_ended"
                                           : "other");
  }
  EXPECT_THAT(kinds, ::testing::ElementsAre("turn_started", "user_message", "turn_ended"));
  ASSERT_EQ(history.events_size(), 3);
  EXPECT_EQ(history.events(1).user_message().text(), "keep this prompt");
  EXPECT_EQ(history.events(2).turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
}

TEST_F(ContractTest, HangingCrashingAndGarbageHooksBecomeNoticesAndFollowTheirPolicy) {
  std::string hang = Script("hang.sh", "exec sleep 60");
  std::string crash = Script("crash.sh", "kill -SEGV $$");
  std::string garbage = Script("garbage.sh", "echo 'this is not json'");
  StartDaemon(R"("approval_mode": "allow_all", "hooks": ["hang", "crash", "garbage"])",
              absl::StrCat(R"("hooks": {"hang": )",
                           Hook("pre_tool_use", hang, R"("timeout_seconds": 0.5)"),
                           R"(, "crash": )", Hook("pre_tool_use", crash),
                           R"(, "garbage": )",
                           Hook("pre_tool_use", garbage, R"("on_failure": "block")"), "}"));
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"touch x"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto events = stream.TurnEvents(turn);
  std::vector<std::string> notices;
  for (const auto& e : events) {
    if (e.has_notice()) notices.push_back(e.notice().text());
  }
  std::string all = ::testing::PrintToString(notices);
  EXPECT_THAT(all, HasSubstr("hang"));
  EXPECT_THAT(all, HasSubstr("timed out"));
  EXPECT_THAT(all, HasSubstr("crash"));
  EXPECT_THAT(all, HasSubstr("garbage"));
  auto results = Results(events);
  ASSERT_EQ(results.size(), 1u);
  // The garbage hook's policy is block: the call is denied, not run.
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/x"));
  // The transcript stays valid: the next request carries the call and its result.
  auto body = fake_.requests().back().BodyJson();
  ASSERT_TRUE(body.ok());
  EXPECT_EQ((*body)["messages"].back()["role"], "tool");
}

TEST_F(ContractTest, HookReferencingAnUndefinedNameIsAConfigError) {
  StartDaemon(R"("hooks": ["missing"])");
  raw::v1::CheckConfigRequest req;
  raw::v1::CheckConfigResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().CheckConfig(&ctx, req, &resp).ok());
  ASSERT_GE(resp.errors_size(), 1);
  EXPECT_THAT(resp.errors(0), HasSubstr("agents.coder.hooks[0]"));
  EXPECT_THAT(resp.errors(0), HasSubstr("not a defined hook"));
}

}  // namespace
}  // namespace raw::e2e
