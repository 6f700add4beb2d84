// Compaction and /clear end to end: a real rawd, the fake provider, and the
// Compact and ClearContext RPCs. Each test checks what the next model
// request contains, since that is what compaction exists to change, and that
// the display history stays whole.
#include <sqlite3.h>

#include <csignal>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kKeepOne[] = R"("compact": {"keep_recent_turns": 1})";
// Automatic compaction tests select one small tool, so that the tool
// definitions alone stay far below their trigger.
constexpr char kSmallTools[] = R"(["builtin/list_dir"])";

// A long answer, so that a short summary is clearly smaller than it.
std::string LongAnswer(const std::string& tag, int details = 60) {
  std::string text = "Answer " + tag + ":";
  for (int i = 0; i < details; ++i) absl::StrAppend(&text, " detail-", tag, "-", i);
  return text;
}

// The texts of the messages of a recorded chat request, "role: content".
std::vector<std::string> Messages(const testing::RecordedRequest& request) {
  std::vector<std::string> out;
  absl::StatusOr<Json> body = request.BodyJson();
  if (!body.ok()) return out;
  for (const Json& m : (*body)["messages"]) {
    std::string content = m.contains("content") && m["content"].is_string()
                              ? m["content"].get<std::string>()
                              : "";
    out.push_back(absl::StrCat(m["role"].get<std::string>(), ": ", content));
  }
  return out;
}

// One OpenAI Responses answer: `reasoning_tokens` of reasoning (reported,
// as a reasoning model's hidden reasoning is), then `text`.
testing::ScriptedResponse ResponsesAnswer(const std::string& text, int64_t reasoning_tokens = 0) {
  auto event = [](const Json& data) {
    return absl::StrCat("event: ", data["type"].get<std::string>(), "\ndata: ", data.dump(),
                        "\n\n");
  };
  Json delta = {{"type", "response.output_text.delta"},
                {"item_id", "msg_1"},
                {"output_index", 0},
                {"content_index", 0},
                {"delta", text}};
  const int64_t text_tokens = static_cast<int64_t>(text.size() / 4 + 1);
  Json usage = {{"input_tokens", 100},
                {"output_tokens", reasoning_tokens + text_tokens},
                {"output_tokens_details", {{"reasoning_tokens", reasoning_tokens}}}};
  Json completed = {{"type", "response.completed"},
                    {"response", {{"id", "resp_1"}, {"status", "completed"}, {"usage", usage}}}};
  testing::ScriptedResponse r;
  r.chunks = {event(delta), event(completed)};
  return r;
}

class CompactionTest : public ContractTest {
 protected:
  // Runs one turn answered with `answer` and waits for its end.
  void Turn(const std::string& session, const std::string& text,
            testing::ScriptedResponse answer) {
    fake_.Enqueue(std::move(answer));
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, text);
    auto end = stream.WaitForTurnEnd(turn);
    ASSERT_TRUE(end.has_value());
    ASSERT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
        << end->turn_ended().message();
  }

  void ThreeTurns(const std::string& session) {
    Turn(session, "task one", chat::TextAnswer(LongAnswer("1")));
    Turn(session, "second", chat::TextAnswer(LongAnswer("2")));
    Turn(session, "third", chat::TextAnswer(LongAnswer("3")));
  }

  grpc::Status Compact(const std::string& session, std::string* operation,
                       const std::string& lease = "") {
    raw::v1::CompactRequest req;
    req.set_session_id(session);
    req.set_lease_id(lease.empty() ? LeaseFor(stub(), session) : lease);
    raw::v1::CompactResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub().Compact(&ctx, req, &resp);
    *operation = resp.operation_id();
    return s;
  }

  // Runs a manual compaction and returns its CompactionEnded.
  raw::v1::CompactionEnded CompactAndWait(const std::string& session) {
    EventStream stream(stub(), session);
    std::string op;
    grpc::Status s = Compact(session, &op);
    EXPECT_TRUE(s.ok()) << s.error_message();
    auto ended = stream.WaitFor(
        [&](const raw::v1::Event& e) { return e.turn_id() == op && e.has_compaction_ended(); });
    EXPECT_TRUE(ended.has_value());
    return ended ? ended->compaction_ended() : raw::v1::CompactionEnded();
  }

  std::vector<raw::v1::Event> History(const std::string& session) {
    raw::v1::GetHistoryRequest req;
    req.set_session_id(session);
    req.set_limit(1000);
    raw::v1::GetHistoryResponse resp;
    grpc::ClientContext ctx;
    EXPECT_TRUE(stub().GetHistory(&ctx, req, &resp).ok());
    return {resp.events().begin(), resp.events().end()};
  }

  // `turn` (with `prompt`) ended completed after an automatic compaction:
  // of the `requests` recorded, the summary request (no tools) came just
  // before the last, the turn's request, which carries the summary.
  void ExpectCompactedAutomaticallyFirst(EventStream& stream, const std::string& turn,
                                         size_t requests, const std::string& prompt) {
    auto end = stream.WaitForTurnEnd(turn);
    ASSERT_TRUE(end.has_value());
    EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
        << end->turn_ended().message();
    std::vector<testing::RecordedRequest> recorded = fake_.requests();
    ASSERT_EQ(recorded.size(), requests);
    EXPECT_FALSE(recorded[requests - 2].BodyJson()->contains("tools"));
    std::vector<std::string> messages = Messages(recorded[requests - 1]);
    ASSERT_GE(messages.size(), 3u);
    EXPECT_THAT(messages[2], HasSubstr("SUMMARY"));
    EXPECT_EQ(messages.back(), "user: " + prompt);
    bool automatic = false;
    for (const auto& e : stream.TurnEvents(turn)) {
      if (e.has_compaction_started()) {
        automatic = e.compaction_started().trigger() == raw::v1::COMPACTION_TRIGGER_AUTOMATIC;
      }
    }
    EXPECT_TRUE(automatic);
  }

  raw::v1::Session GetSession(const std::string& session) {
    raw::v1::GetSessionRequest req;
    req.set_session_id(session);
    raw::v1::GetSessionResponse resp;
    grpc::ClientContext ctx;
    EXPECT_TRUE(stub().GetSession(&ctx, req, &resp).ok());
    return resp.session();
  }
};

TEST_F(CompactionTest, ManualCompactionSummarizesOlderTurnsAndKeepsTheDisplayHistoryWhole) {
  StartDaemon(kKeepOne);
  std::string session = daemon_->CreateSession();
  ThreeTurns(session);
  size_t history_before = History(session).size();

  fake_.Enqueue(chat::TextAnswer("SUMMARY: the user set a task and asked a second thing."));
  raw::v1::CompactionEnded ended = CompactAndWait(session);
  ASSERT_EQ(ended.outcome(), raw::v1::COMPACTION_OUTCOME_ACCEPTED) << ended.message();
  EXPECT_EQ(ended.trigger(), raw::v1::COMPACTION_TRIGGER_MANUAL);
  // The fake provider reports far fewer tokens (16 per answer) than the
  // estimate of these long answers: before and after are both estimates, so
  // the context is seen to shrink.
  EXPECT_GT(ended.tokens_after(), 0);
  EXPECT_LT(ended.tokens_after(), ended.tokens_before());
  EXPECT_GT(ended.tokens_before(), 1000);
  EXPECT_THAT(ended.summary(), HasSubstr("SUMMARY"));

  // The summary request: no tools, the summary cap, the older turns only.
  ASSERT_EQ(fake_.requests().size(), 4u);
  testing::RecordedRequest summary_request = fake_.requests()[3];
  Json body = *summary_request.BodyJson();
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_EQ(body.value("max_tokens", body.value("max_completion_tokens", 0)), 512) << body.dump();
  EXPECT_THAT(summary_request.body, HasSubstr("detail-1-"));
  EXPECT_THAT(summary_request.body, HasSubstr("detail-2-"));
  EXPECT_THAT(summary_request.body, Not(HasSubstr("detail-3-")));

  // The display history keeps every item and marks what was summarized:
  // turns one and two, not turn three.
  std::vector<raw::v1::Event> history = History(session);
  EXPECT_GT(history.size(), history_before);
  uint64_t third_turn_seq = 0;
  for (const auto& e : history) {
    if (e.has_turn_started() && e.turn_started().user_text() == "third") third_turn_seq = e.seq();
  }
  raw::v1::CompactionEnded marker;
  for (const auto& e : history) {
    if (e.has_compaction_ended()) marker = e.compaction_ended();
  }
  ASSERT_EQ(marker.outcome(), raw::v1::COMPACTION_OUTCOME_ACCEPTED);
  EXPECT_EQ(marker.first_summarized_seq(), 1u);
  EXPECT_EQ(marker.last_summarized_seq(), third_turn_seq - 1);

  // The next request: system, the original task once, the summary, the
  // kept turn verbatim, then the new prompt.
  Turn(session, "fourth", chat::TextAnswer("ok"));
  std::vector<std::string> messages = Messages(fake_.requests()[4]);
  ASSERT_EQ(messages.size(), 6u) << absl::StrJoin(messages, "\n");
  EXPECT_EQ(messages[1], "user: task one");
  EXPECT_THAT(messages[2], HasSubstr("SUMMARY"));
  EXPECT_EQ(messages[3], "user: third");
  EXPECT_THAT(messages[4], HasSubstr("detail-3-"));
  EXPECT_EQ(messages[5], "user: fourth");
}

// On a reasoning model the output cap counts reasoning too: the summary
// request has room for it on top of compact.max_output_tokens, reasons at
// the lowest effort, and a summary that came after 600 tokens of reasoning
// is accepted, its visible text being short.
TEST_F(CompactionTest, AReasoningModelsSummaryHasRoomForItsReasoning) {
  std::string config =
      absl::StrReplaceAll(Config(kKeepOne, "", R"(["builtin/*"])", R"("reasoning_effort": "high")"),
                          {{"openai-chat-completions", "openai-responses"}});
  daemon_ = std::make_unique<TestDaemon>(config);
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  std::string session = daemon_->CreateSession();
  Turn(session, "task one", ResponsesAnswer(LongAnswer("1")));
  Turn(session, "second", ResponsesAnswer(LongAnswer("2")));
  Turn(session, "third", ResponsesAnswer(LongAnswer("3")));

  fake_.Enqueue(ResponsesAnswer("SUMMARY: the user set a task and asked a second thing.", 600));
  raw::v1::CompactionEnded ended = CompactAndWait(session);
  EXPECT_EQ(ended.outcome(), raw::v1::COMPACTION_OUTCOME_ACCEPTED) << ended.message();

  ASSERT_EQ(fake_.requests().size(), 4u);
  Json turn_body = *fake_.requests()[2].BodyJson();
  EXPECT_EQ(turn_body["reasoning"]["effort"], "high");
  Json body = *fake_.requests()[3].BodyJson();
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_EQ(body.value("max_output_tokens", 0), 512 + 8192) << body.dump();
  EXPECT_EQ(body["reasoning"]["effort"], "low") << body.dump();
}

// Runs `sql` on the database of a running daemon.
void ExecSql(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  sqlite3_busy_timeout(db, 10000);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
}

// A batch whose results could not be stored (here every tool_result fails,
// as on a full disk) leaves its call without a result until the next turn
// answers it. A /compact before that turn answers it the same way: the
// summarizer reads the call followed by an error saying its effect is
// unknown, never a call left hanging.
TEST_F(CompactionTest, AManualCompactionAnswersTheCallsAFailedBatchLeftOpen) {
  StartDaemon(R"("approval_mode": "allow_all", "compact": {"keep_recent_turns": 0})");
  std::string session = daemon_->CreateSession();
  Turn(session, "task one", chat::TextAnswer(LongAnswer("1")));
  const std::string db = daemon_->state_dir() + "/sessions-v1.sqlite3";
  ExecSql(db,
          "CREATE TRIGGER fail_results BEFORE INSERT ON events WHEN NEW.kind = 'tool_result' "
          "BEGIN SELECT RAISE(ABORT, 'injected disk failure'); END");
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo hi"})"}}));
  {
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, "run it");
    auto end = stream.WaitForTurnEnd(turn);
    ASSERT_TRUE(end.has_value());
    ASSERT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
    EXPECT_THAT(end->turn_ended().message(), HasSubstr("injected disk failure"));
  }
  ExecSql(db, "DROP TRIGGER fail_results");

  fake_.Enqueue(chat::TextAnswer("SUMMARY: a task, then a command whose result was lost."));
  raw::v1::CompactionEnded ended = CompactAndWait(session);
  ASSERT_EQ(ended.outcome(), raw::v1::COMPACTION_OUTCOME_ACCEPTED) << ended.message();
  ASSERT_EQ(fake_.requests().size(), 3u);
  absl::StatusOr<Json> body = fake_.requests()[2].BodyJson();
  ASSERT_TRUE(body.ok()) << body.status();
  const Json& messages = (*body)["messages"];
  ASSERT_EQ(messages.size(), 2u) << body->dump();
  const std::string transcript = messages[1]["content"].get<std::string>();
  const std::string call = "[tool call bash #c1]\n| {\"command\":\"echo hi\"}";
  size_t at = transcript.find(call);
  ASSERT_NE(at, std::string::npos) << transcript;
  const std::string answer = "\n\n[tool error bash #c1]\n| Not recorded:";
  EXPECT_EQ(transcript.substr(at + call.size(), answer.size()), answer) << transcript;
}

TEST_F(CompactionTest, TheOriginalTaskIsKeptOnceAcrossRepeatedCompactions) {
  StartDaemon(kKeepOne);
  std::string session = daemon_->CreateSession();
  ThreeTurns(session);
  fake_.Enqueue(chat::TextAnswer("S1"));
  ASSERT_EQ(CompactAndWait(session).outcome(), raw::v1::COMPACTION_OUTCOME_ACCEPTED);
  Turn(session, "fourth", chat::TextAnswer(LongAnswer("4")));
  Turn(session, "fifth", chat::TextAnswer(LongAnswer("5")));
  fake_.Enqueue(chat::TextAnswer("S2"));
  ASSERT_EQ(CompactAndWait(session).outcome(), raw::v1::COMPACTION_OUTCOME_ACCEPTED);
  // The second summary request folds in the first summary.
  EXPECT_THAT(fake_.requests().back().body, HasSubstr("S1"));
  Turn(session, "sixth", chat::TextAnswer("ok"));
  std::vector<std::string> messages = Messages(fake_.requests().back());
  int task = 0;
  for (const auto& m : messages) task += m == "user: task one" ? 1 : 0;
  EXPECT_EQ(task, 1) << absl::StrJoin(messages, "\n");
  EXPECT_THAT(messages[2], HasSubstr("S2"));
  EXPECT_EQ(messages[3], "user: fifth");
}

struct BadSummary {
  const char* name;
  testing::ScriptedResponse (*response)();
  raw::v1::CompactionOutcome outcome;
};

class RejectedSummaryTest : public CompactionTest,
                            public ::testing::WithParamInterface<BadSummary> {};

TEST_P(RejectedSummaryTest, KeepsThePreviousContextUnchanged) {
  StartDaemon(kKeepOne);
  std::string session = daemon_->CreateSession();
  ThreeTurns(session);
  fake_.Enqueue(GetParam().response());
  raw::v1::CompactionEnded ended = CompactAndWait(session);
  EXPECT_EQ(ended.outcome(), GetParam().outcome) << ended.message();
  EXPECT_FALSE(ended.message().empty());

  Turn(session, "fourth", chat::TextAnswer("ok"));
  std::vector<std::string> messages = Messages(fake_.requests().back());
  ASSERT_EQ(messages.size(), 8u) << absl::StrJoin(messages, "\n");
  EXPECT_EQ(messages[1], "user: task one");
  EXPECT_EQ(messages[3], "user: second");
  EXPECT_EQ(messages[5], "user: third");
  EXPECT_EQ(messages[7], "user: fourth");
}

INSTANTIATE_TEST_SUITE_P(
    Summaries, RejectedSummaryTest,
    ::testing::Values(
        BadSummary{"TooLong",
                   [] {
                     std::string text;
                     for (int i = 0; i < 40; ++i) absl::StrAppend(&text, LongAnswer("x"), " ");
                     return chat::TextAnswer(text);
                   },
                   raw::v1::COMPACTION_OUTCOME_REJECTED},
        BadSummary{"Empty", [] { return chat::TextAnswer(""); },
                   raw::v1::COMPACTION_OUTCOME_REJECTED},
        BadSummary{"CutByTheCap",
                   [] {
                     return chat::Stream({chat::RoleChunk(), chat::TextChunk("The user"),
                                          chat::FinishChunk("length"), chat::UsageChunk(10, 512),
                                          chat::Done()});
                   },
                   raw::v1::COMPACTION_OUTCOME_REJECTED},
        BadSummary{"RequestFails",
                   [] {
                     return chat::ErrorResponse(400, "bad summary request",
                                                "invalid_request_error", "");
                   },
                   raw::v1::COMPACTION_OUTCOME_FAILED}),
    [](const ::testing::TestParamInfo<BadSummary>& param_info) { return param_info.param.name; });

TEST_F(CompactionTest, AnInterruptedCompactionKeepsTheContext) {
  StartDaemon(kKeepOne);
  std::string session = daemon_->CreateSession();
  ThreeTurns(session);
  testing::ScriptedResponse parked = chat::TextAnswer("S");
  parked.gate_before_chunk = 1;
  fake_.Enqueue(parked);
  EventStream stream(stub(), session);
  std::string op;
  ASSERT_TRUE(Compact(session, &op).ok());
  ASSERT_TRUE(fake_.WaitForGate());
  EXPECT_EQ(GetSession(session).turn_state(), raw::v1::TURN_STATE_COMPACTING);
  raw::v1::InterruptTurnRequest req;
  req.set_session_id(session);
  req.set_lease_id(LeaseFor(stub(), session));
  raw::v1::InterruptTurnResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().InterruptTurn(&ctx, req, &resp).ok());
  EXPECT_TRUE(resp.interrupted());
  auto ended = stream.WaitFor(
      [&](const raw::v1::Event& e) { return e.turn_id() == op && e.has_compaction_ended(); });
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->compaction_ended().outcome(), raw::v1::COMPACTION_OUTCOME_CANCELLED);
  Turn(session, "fourth", chat::TextAnswer("ok"));
  EXPECT_EQ(Messages(fake_.requests().back()).size(), 8u);
}

// The kinds of the history's events of `turn_id`, oldest first.
std::vector<std::string> KindsOf(const std::vector<raw::v1::Event>& history,
                                 const std::string& turn_id) {
  std::vector<std::string> kinds;
  for (const raw::v1::Event& e : history) {
    if (e.turn_id() != turn_id) continue;
    if (e.has_compaction_started()) kinds.push_back("compaction_started");
    if (e.has_compaction_ended()) {
      kinds.push_back(absl::StrCat(
          "compaction_ended ", raw::v1::CompactionOutcome_Name(e.compaction_ended().outcome())));
    }
    if (e.has_turn_ended()) kinds.push_back("turn_ended");
  }
  return kinds;
}

TEST_F(CompactionTest, AManualCompactionCutByKill9EndsCancelledAfterTheRestart) {
  StartDaemon(kKeepOne);
  std::string session = daemon_->CreateSession();
  ThreeTurns(session);
  testing::ScriptedResponse parked = chat::TextAnswer("S");
  parked.gate_before_chunk = 1;
  fake_.Enqueue(parked);
  std::string op;
  ASSERT_TRUE(Compact(session, &op).ok());
  ASSERT_TRUE(fake_.WaitForGate());
  EXPECT_EQ(daemon_->Stop(SIGKILL), 128 + SIGKILL);
  fake_.ReleaseGate();
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  std::vector<raw::v1::Event> history = History(session);
  EXPECT_THAT(KindsOf(history, op),
              ElementsAre("compaction_started", "compaction_ended COMPACTION_OUTCOME_CANCELLED"));
  EXPECT_THAT(history.back().compaction_ended().message(), HasSubstr("rawd stopped"));
  EXPECT_EQ(GetSession(session).turn_state(), raw::v1::TURN_STATE_IDLE);
  // The context is whole: the next request carries every earlier turn.
  Turn(session, "fourth", chat::TextAnswer("ok"));
  EXPECT_EQ(Messages(fake_.requests().back()).size(), 8u);
}

TEST_F(CompactionTest, AnAutomaticCompactionCutByKill9EndsBeforeItsTurnAfterTheRestart) {
  StartDaemon(R"("compact": {"keep_recent_turns": 1, "trigger_tokens": 1000})", "", kSmallTools,
              R"("context_window_tokens": 20000)");
  std::string session = daemon_->CreateSession();
  Turn(session, "task one", chat::TextAnswer(LongAnswer("1"), {300, 200, std::nullopt}));
  Turn(session, "second", chat::TextAnswer(LongAnswer("2"), {900, 600, std::nullopt}));
  testing::ScriptedResponse parked = chat::TextAnswer("SUMMARY");
  parked.gate_before_chunk = 1;
  fake_.Enqueue(parked);
  std::string turn = StartTurn(stub(), session, "third");
  ASSERT_TRUE(fake_.WaitForGate());
  EXPECT_EQ(daemon_->Stop(SIGKILL), 128 + SIGKILL);
  fake_.ReleaseGate();
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  EXPECT_THAT(KindsOf(History(session), turn),
              ElementsAre("compaction_started", "compaction_ended COMPACTION_OUTCOME_CANCELLED",
                          "turn_ended"));
}

TEST_F(CompactionTest, ProgressEventsAndNothingToCompact) {
  StartDaemon(R"("compact": {"keep_recent_turns": 2})");
  std::string session = daemon_->CreateSession();
  Turn(session, "task one", chat::TextAnswer("a"));
  // Only the task turn, which is among the kept turns: nothing to do, and
  // no request is made.
  raw::v1::CompactionEnded ended = CompactAndWait(session);
  EXPECT_EQ(ended.outcome(), raw::v1::COMPACTION_OUTCOME_NOTHING_TO_COMPACT);
  EXPECT_EQ(fake_.requests().size(), 1u);

  Turn(session, "second", chat::TextAnswer(LongAnswer("2")));
  Turn(session, "third", chat::TextAnswer(LongAnswer("3")));
  Turn(session, "fourth", chat::TextAnswer(LongAnswer("4")));
  fake_.Enqueue(chat::TextAnswer("S"));
  EventStream stream(stub(), session);
  // Once a stored event is replayed the subscription is attached, so the
  // live progress events cannot be missed.
  ASSERT_TRUE(stream.WaitFor([](const raw::v1::Event&) { return true; }).has_value());
  std::string op;
  ASSERT_TRUE(Compact(session, &op).ok());
  ASSERT_TRUE(stream
                  .WaitFor([&](const raw::v1::Event& e) {
                    return e.turn_id() == op && e.has_compaction_ended();
                  })
                  .has_value());
  std::vector<std::string> kinds;
  for (const auto& e : stream.events()) {
    if (e.turn_id() != op) continue;
    if (e.has_compaction_started()) kinds.push_back("started");
    if (e.has_compaction_progress()) {
      kinds.push_back(absl::StrCat("progress ", e.compaction_progress().chunk(), "/",
                                   e.compaction_progress().chunks()));
    }
    if (e.has_compaction_ended()) kinds.push_back("ended");
  }
  EXPECT_THAT(kinds, ::testing::ElementsAre("started", "progress 1/1", "ended"));
}

TEST_F(CompactionTest, LargeHistoryWithAKnownWindowIsSummarizedInChronologicalChunks) {
  // A window so small that the older turns cannot go in one summary
  // request; each request must fit.
  StartDaemon(R"("compact": {"keep_recent_turns": 1, "max_output_tokens": 256})", "",
              R"(["builtin/*"])", R"("context_window_tokens": 2000)");
  std::string session = daemon_->CreateSession();
  for (int i = 1; i <= 6; ++i) {
    Turn(session, absl::StrCat("turn ", i),
         chat::TextAnswer(LongAnswer(std::to_string(i), /*details=*/200)));
  }
  for (int i = 0; i < 10; ++i) fake_.Enqueue(chat::TextAnswer(absl::StrCat("part")));
  raw::v1::CompactionEnded ended = CompactAndWait(session);
  ASSERT_EQ(ended.outcome(), raw::v1::COMPACTION_OUTCOME_ACCEPTED) << ended.message();
  std::vector<testing::RecordedRequest> requests = fake_.requests();
  ASSERT_GT(requests.size(), 7u);  // six turns, then at least two summary requests
  std::vector<std::string> summary_bodies;
  for (size_t i = 6; i < requests.size(); ++i) summary_bodies.push_back(requests[i].body);
  ASSERT_GE(summary_bodies.size(), 2u);
  // Chronological: the first chunk has turn 1's details, the last turn 5's.
  EXPECT_THAT(summary_bodies.front(), HasSubstr("detail-1-"));
  EXPECT_THAT(summary_bodies.back(), HasSubstr("detail-5-"));
  for (const auto& body : summary_bodies) {
    EXPECT_THAT(body, Not(HasSubstr("detail-6-")));
    // Each request fits the window with the summary cap: a bytes/4 estimate.
    EXPECT_LT(body.size() / 4 + 256, 2000u) << body.size();
  }
}

TEST_F(CompactionTest, PreCompactHooksRunForManualAndAutomaticCompaction) {
  std::string log = scratch_ + "/compact.log";
  std::string rec = Script("record.sh", absl::StrCat("tr -d '\\n' >> ", log, "; echo >> ", log));
  StartDaemon(
      R"("hooks": ["pc"], "compact": {"keep_recent_turns": 1, "trigger_tokens": 1000})",
      absl::StrCat(R"("hooks": {"pc": {"event": "pre_compact", "command": [")", rec, R"("]}})"),
      kSmallTools, R"("context_window_tokens": 20000)");
  std::string session = daemon_->CreateSession();
  ThreeTurns(session);
  fake_.Enqueue(chat::TextAnswer("S"));
  ASSERT_EQ(CompactAndWait(session).outcome(), raw::v1::COMPACTION_OUTCOME_ACCEPTED);
  // A reported size over the trigger starts automatic compaction on the
  // next request.
  Turn(session, "big", chat::TextAnswer(LongAnswer("b"), {900, 600, std::nullopt}));
  fake_.Enqueue(chat::TextAnswer("S2"));
  Turn(session, "after", chat::TextAnswer("ok"));
  std::vector<std::string> reasons;
  std::istringstream lines(ReadFile(log));
  for (std::string line; std::getline(lines, line);) {
    absl::StatusOr<Json> doc = ParseJson(line);
    ASSERT_TRUE(doc.ok()) << line;
    EXPECT_EQ((*doc)["event"], "pre_compact");
    EXPECT_EQ((*doc)["session_id"], session);
    reasons.push_back((*doc)["reason"]);
  }
  EXPECT_THAT(reasons, ::testing::ElementsAre("manual", "auto"));
}

TEST_F(CompactionTest, AutomaticCompactionRunsBeforeARequestWouldExceedTheTrigger) {
  StartDaemon(R"("compact": {"keep_recent_turns": 1, "trigger_tokens": 1000})", "",
              kSmallTools, R"("context_window_tokens": 20000)");
  std::string session = daemon_->CreateSession();
  Turn(session, "task one", chat::TextAnswer(LongAnswer("1"), {300, 200, std::nullopt}));
  // The provider reports 1500 tokens: the next request would exceed 1000.
  Turn(session, "second", chat::TextAnswer(LongAnswer("2"), {900, 600, std::nullopt}));
  fake_.Enqueue(chat::TextAnswer("SUMMARY"));
  EventStream stream(stub(), session);
  fake_.Enqueue(chat::TextAnswer("ok"));
  std::string turn = StartTurn(stub(), session, "third");
  ExpectCompactedAutomaticallyFirst(stream, turn, 4, "third");
  if (HasFatalFailure()) return;
  EXPECT_EQ(Messages(fake_.requests()[3])[1], "user: task one");
}

// The provider refuses a request as larger than the model's context while
// the estimate is under the trigger (its tokenizer counts more than Raw's
// estimate): the next turn compacts before its request instead of sending
// the refused context again, turn after turn.
TEST_F(CompactionTest, AContextTheProviderRefusedAsTooLargeIsCompactedBeforeTheNextRequest) {
  StartDaemon(R"("compact": {"keep_recent_turns": 1, "trigger_tokens": 1000})", "", kSmallTools,
              R"("context_window_tokens": 20000)");
  std::string session = daemon_->CreateSession();
  Turn(session, "task one", chat::TextAnswer(LongAnswer("1"), {300, 200, std::nullopt}));
  Turn(session, "second", chat::TextAnswer(LongAnswer("2"), {300, 200, std::nullopt}));
  testing::ScriptedResponse refused;
  refused.status = 400;
  refused.headers = {{"Content-Type", "application/json"}};
  refused.chunks = {
      R"({"error":{"message":"This model's maximum context length is 8192 tokens.",)"
      R"("type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})"};
  fake_.Enqueue(refused);
  {
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, "third");
    auto end = stream.WaitForTurnEnd(turn);
    ASSERT_TRUE(end.has_value());
    EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
    EXPECT_THAT(end->turn_ended().message(), HasSubstr("context_overflow"));
  }
  fake_.Enqueue(chat::TextAnswer("SUMMARY"));
  fake_.Enqueue(chat::TextAnswer("ok"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "fourth");
  ExpectCompactedAutomaticallyFirst(stream, turn, 5, "fourth");
}

// One long turn (what `raw run` makes) that crosses the trigger by itself:
// its earlier steps are summarized and the turn goes on, keeping the task
// and its last step.
TEST_F(CompactionTest, ALongTurnOverTheTriggerSummarizesItsEarlierStepsAndGoesOn) {
  StartDaemon(R"("compact": {"keep_recent_turns": 1, "trigger_tokens": 1000})", "", kSmallTools,
              R"("context_window_tokens": 20000)");
  std::string session = daemon_->CreateSession();
  const std::string list = R"({"path":"."})";
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "list_dir", list}}, {300, 50, std::nullopt}));
  fake_.Enqueue(chat::ToolCallsAnswer({{"c2", "list_dir", list}}, {600, 50, std::nullopt}));
  // Reported 1100 tokens: the fourth request would exceed the trigger.
  fake_.Enqueue(chat::ToolCallsAnswer({{"c3", "list_dir", list}}, {900, 200, std::nullopt}));
  fake_.Enqueue(chat::TextAnswer("SUMMARY of steps one and two"));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "the task");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
      << end->turn_ended().message();
  std::vector<testing::RecordedRequest> requests = fake_.requests();
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_FALSE(requests[3].BodyJson()->contains("tools"));  // the summary request
  std::vector<std::string> messages = Messages(requests[4]);
  ASSERT_EQ(messages.size(), 5u) << absl::StrJoin(messages, "\n");
  EXPECT_EQ(messages[1], "user: the task");
  EXPECT_THAT(messages[2], HasSubstr("SUMMARY of steps one and two"));
  EXPECT_THAT(messages[3], ::testing::StartsWith("assistant:"));
  EXPECT_THAT(messages[4], ::testing::StartsWith("tool:"));
  const Json body = *requests[4].BodyJson();
  EXPECT_EQ(body["messages"][3]["tool_calls"][0]["id"], "c3");
  EXPECT_EQ(body["messages"][4]["tool_call_id"], "c3");
  std::optional<raw::v1::CompactionEnded> ended;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (e.has_compaction_ended()) ended = e.compaction_ended();
  }
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->outcome(), raw::v1::COMPACTION_OUTCOME_ACCEPTED) << ended->message();
  EXPECT_THAT(ended->message(), HasSubstr("the running turn's earlier steps"));
}

TEST_F(CompactionTest, StillTooLargeAfterCompactingEndsTheTurnWithoutSendingIt) {
  StartDaemon(R"("compact": {"keep_recent_turns": 0, "trigger_tokens": 1000})", "",
              kSmallTools, R"("context_window_tokens": 20000)");
  std::string session = daemon_->CreateSession();
  Turn(session, "task one", chat::TextAnswer(LongAnswer("1"), {900, 700, std::nullopt}));
  // The summary does not shrink anything: rejected, still too large.
  std::string huge;
  for (int i = 0; i < 40; ++i) absl::StrAppend(&huge, LongAnswer("x"), " ");
  fake_.Enqueue(chat::TextAnswer(huge));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "second");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("compact.trigger_tokens"));
  // One turn request and one summary request; the oversized one never went.
  EXPECT_EQ(fake_.requests().size(), 2u);
}

TEST_F(CompactionTest, ASummaryThatStillLeavesTooMuchIsNotCommittedAndTheTurnIsNotSent) {
  StartDaemon(R"("compact": {"keep_recent_turns": 0, "trigger_tokens": 1000})", "",
              kSmallTools, R"("context_window_tokens": 20000)");
  std::string session = daemon_->CreateSession();
  Turn(session, "task one", chat::TextAnswer(LongAnswer("1"), {900, 700, std::nullopt}));
  // The older turn could be summarized, but the new message alone is over
  // the trigger: the lossy rewrite would not let the request through, so it
  // is not made.
  fake_.Enqueue(chat::TextAnswer("- the user asked for task one"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, LongAnswer("huge", 600));
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("could not bring it under the trigger"));
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("compact.trigger_tokens (1000)"));
  std::optional<raw::v1::CompactionEnded> ended;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (e.has_compaction_ended()) ended = e.compaction_ended();
  }
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->outcome(), raw::v1::COMPACTION_OUTCOME_REJECTED);
  EXPECT_THAT(ended->message(), HasSubstr("would still exceed compact.trigger_tokens (1000)"));
  EXPECT_EQ(ended->tokens_after(), ended->tokens_before());
  raw::v1::GetStatsRequest stats_req;
  stats_req.set_session_id(session);
  raw::v1::GetStatsResponse stats;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().GetStats(&ctx, stats_req, &stats).ok());
  EXPECT_EQ(stats.compactions(), 0);
  // Both model requests count, the summary request included.
  EXPECT_EQ(stats.requests(), 2);
  // The first turn's request and the summary request; nothing oversized.
  EXPECT_EQ(fake_.requests().size(), 2u);
}

TEST_F(CompactionTest, TriggerSettingsThatCannotWorkAreConfigErrorsWithTheNumbers) {
  auto check = [&](const std::string& model_extra) {
    StartDaemon(R"("compact": {"trigger_tokens": 9000})", "", kSmallTools, model_extra);
    raw::v1::CheckConfigRequest req;
    raw::v1::CheckConfigResponse resp;
    grpc::ClientContext ctx;
    EXPECT_TRUE(stub().CheckConfig(&ctx, req, &resp).ok());
    std::string errors;
    for (const auto& e : resp.errors()) absl::StrAppend(&errors, e, "\n");
    daemon_.reset();
    return errors;
  };
  std::string no_window = check("");
  EXPECT_THAT(no_window, HasSubstr("agents.coder.compact.trigger_tokens"));
  EXPECT_THAT(no_window, HasSubstr("set models.fake.context_window_tokens"));
  // 9000 + 4096 (no max_output_tokens) + 500 (5 %) > 10000.
  std::string too_close = check(R"("context_window_tokens": 10000)");
  EXPECT_THAT(too_close, HasSubstr("agents.coder.compact.trigger_tokens"));
  EXPECT_THAT(too_close, HasSubstr("at most 5404 fits"));
  EXPECT_EQ(check(R"("context_window_tokens": 20000)"), "");
}

TEST_F(CompactionTest, AutomaticCompactionRunsAtMostOncePerTurn) {
  StartDaemon(R"("compact": {"keep_recent_turns": 0, "trigger_tokens": 1000})", "",
              kSmallTools, R"("context_window_tokens": 20000)");
  std::string session = daemon_->CreateSession();
  Turn(session, "task one", chat::TextAnswer(LongAnswer("1"), {900, 700, std::nullopt}));
  fake_.Enqueue(chat::TextAnswer("SUMMARY"));
  // After compacting, the first step's answer reports far more than the
  // trigger again: the second step is refused instead of compacting twice.
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "list_dir", R"({"path":"."})"}},
                                      {1500, 300, std::nullopt}));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "second");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("already ran in this turn"));
  int started = 0;
  for (const auto& e : stream.TurnEvents(turn)) started += e.has_compaction_started() ? 1 : 0;
  EXPECT_EQ(started, 1);
  EXPECT_EQ(fake_.requests().size(), 3u);  // turn 1, summary, step 1 of turn 2
}

TEST_F(CompactionTest, ClearEmptiesTheModelContextButKeepsHistoryAndUsage) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  Turn(session, "task one", chat::TextAnswer("a", {100, 20, std::nullopt}));
  Turn(session, "second", chat::TextAnswer("b", {150, 30, std::nullopt}));
  raw::v1::Session before = GetSession(session);
  size_t history_before = History(session).size();

  raw::v1::ClearContextRequest req;
  req.set_session_id(session);
  req.set_lease_id(LeaseFor(stub(), session));
  raw::v1::ClearContextResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().ClearContext(&ctx, req, &resp).ok());
  EXPECT_GT(resp.context().tokens(), 0);  // system prompt and tools remain
  EXPECT_FALSE(resp.context().reported_baseline());

  std::vector<raw::v1::Event> history = History(session);
  EXPECT_EQ(history.size(), history_before + 1);
  EXPECT_TRUE(history.back().has_context_cleared());
  raw::v1::Session after = GetSession(session);
  EXPECT_EQ(after.usage().input_tokens(), before.usage().input_tokens());
  EXPECT_EQ(after.requests(), before.requests());
  EXPECT_EQ(after.agent(), before.agent());

  Turn(session, "fresh", chat::TextAnswer("c"));
  std::vector<std::string> messages = Messages(fake_.requests().back());
  ASSERT_EQ(messages.size(), 2u) << absl::StrJoin(messages, "\n");
  EXPECT_EQ(messages[1], "user: fresh");
}

}  // namespace
}  // namespace raw::e2e
