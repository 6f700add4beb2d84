// Turn: one run of the agent loop driven directly (without a runner) with a
// scripted provider and a real SQLite store in a temp dir: what is stored
// and in what order, what each request contains, and how the turn ends.
// Run() returns the TurnEnded; storing it is the runner's job.
#include "daemon/loop/turn.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/loop/session_state.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/scripted_provider.h"
#include "tests/daemon/loop/stored_rows.h"
#include "tests/daemon/loop/temp_store.h"

namespace raw::loop {
namespace {

using testing::CallSpec;
using testing::Drain;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::KindsOf;
using testing::Script;
using testing::ScriptBook;
using testing::ScriptedProvider;
using testing::TempStore;
using testing::TextAnswer;
using testing::ToolCalls;

class TurnTest : public ::testing::Test {
 protected:
  TurnTest() {
    echo_.qualified_name = "test/echo";
    echo_.model_name = "echo";
    echo_.input_schema = OrderedJson::parse(R"({"type":"object"})");
    echo_.handler = [this](const Json& args, const tools::ToolContext&) {
      ++echo_calls_;
      return tools::ToolOutput::Ok(args.value("text", std::string("?")));
    };
  }

  TurnPlan Plan(const std::string& text, int max_steps = 5) {
    TurnPlan plan;
    plan.session_id = temp_.session_id();
    plan.turn_id = "turn_1";
    plan.user_text = text;
    plan.cwd = temp_.dir();
    plan.agent.agent.name = "a";
    plan.agent.agent.system_prompt = "sys";
    plan.agent.agent.max_steps = max_steps;
    plan.agent.agent.approval_mode = config::ApprovalMode::kAllowAll;
    plan.provider = std::make_unique<ScriptedProvider>(book_);
    plan.tools["echo"] = &echo_;
    plan.tool_definitions.push_back({"echo", "echo", echo_.input_schema});
    plan.session = state_;
    return plan;
  }
  void Queue(Script script) { book_->scripts.push_back(std::move(script)); }
  // Runs the turn and then its end's report, as the runner does once the
  // end is stored (here it is not: these tests read what Run returns).
  events::TurnEnded RunTurn(TurnPlan plan) {
    Turn turn(std::move(plan), *log_, ctx_, cancel_);
    events::TurnEnded end = turn.Run();
    turn.ReportEnd(end, /*end_stored=*/true);
    return end;
  }

  TempStore temp_;
  SystemClock clock_;
  std::shared_ptr<SessionLog> log_ =
      std::make_shared<SessionLog>(temp_.session_id(), 0, temp_.store(), clock_);
  std::shared_ptr<ScriptBook> book_ = std::make_shared<ScriptBook>();
  std::shared_ptr<SessionState> state_ = std::make_shared<SessionState>();
  SessionContext ctx_;
  CancelToken cancel_;
  tools::ToolSpec echo_;
  int echo_calls_ = 0;
};

TEST_F(TurnTest, TextAnswerCompletesInOneStep) {
  Queue(TextAnswer("Hello there"));
  auto sub = log_->Subscribe(0);
  events::TurnEnded end = RunTurn(Plan("Say hi\nplease"));
  EXPECT_EQ(end.reason, events::TurnEndReason::kCompleted);
  EXPECT_EQ(end.steps, 1);

  // The turn does not store its own end.
  EXPECT_THAT(KindsOf(temp_.Stored()),
              ElementsAre("turn_started", "user_message", "assistant_message", "usage_report"));
  // The answer streamed before it was committed.
  std::vector<std::string> live = KindsOf(Drain(*sub));
  auto first_delta = std::find(live.begin(), live.end(), "text_delta");
  auto message = std::find(live.begin(), live.end(), "assistant_message");
  EXPECT_LT(first_delta, message);

  const auto& request = book_->requests.at(0);
  EXPECT_EQ(request.system_prompt, "sys");
  ASSERT_EQ(request.tools.size(), 1u);
  EXPECT_THAT(request.messages, ElementsAre(events::ContextItem{events::UserText{
                                    "Say hi\nplease", events::UserTextKind::kPrompt, "turn_1"}}));
  // The model context in memory and in the store agree.
  ASSERT_EQ(ctx_.items.size(), 2u);
  EXPECT_EQ(std::get<events::AssistantTurn>(ctx_.items[1]).text, "Hello there");
  EXPECT_EQ(*temp_.store().LoadContext(temp_.session_id()), ctx_.items);
  store::SessionRecord record = *temp_.store().GetSession(temp_.session_id());
  EXPECT_EQ(record.title, "Say hi");  // the first line
  EXPECT_EQ(record.usage.input_tokens, 10);
}

// The batch is committed before its calls run; each result is committed
// before the next request, which carries the call and its outcome.
TEST_F(TurnTest, ToolCallsRunBetweenRequests) {
  Queue(ToolCalls({{"c1", "echo", R"({"text":"one"})"}, {"c2", "echo", R"({"text":"two"})"}}));
  Queue(TextAnswer("done"));
  events::TurnEnded end = RunTurn(Plan("go"));
  EXPECT_EQ(end.reason, events::TurnEndReason::kCompleted);
  EXPECT_EQ(end.steps, 2);
  EXPECT_EQ(echo_calls_, 2);
  EXPECT_THAT(
      KindsOf(temp_.Stored()),
      ElementsAre("turn_started", "user_message", "tool_call_batch", "tool_started", "tool_result",
                  "tool_started", "tool_result", "assistant_message", "usage_report"));
  ASSERT_EQ(book_->requests.size(), 2u);
  const auto& second = book_->requests[1].messages;
  ASSERT_EQ(second.size(), 4u);
  EXPECT_THAT(std::get<events::AssistantTurn>(second[1]).tool_calls,
              ElementsAre(events::ToolCallRequest{"c1", "echo", R"({"text":"one"})"},
                          events::ToolCallRequest{"c2", "echo", R"({"text":"two"})"}));
  EXPECT_EQ(std::get<events::ToolOutcome>(second[2]),
            (events::ToolOutcome{"c1", "echo", "one", false}));
  EXPECT_EQ(std::get<events::ToolOutcome>(second[3]).call_id, "c2");
}

// If the last permitted request asks for tools, the turn ends at the limit
// and the calls are recorded as not run.
TEST_F(TurnTest, LastPermittedRequestAskingForToolsEndsAtTheLimit) {
  Queue(ToolCalls({{"c1", "echo", R"({"text":"a"})"}}));
  Queue(ToolCalls({{"c2", "echo", R"({"text":"b"})"}}));
  events::TurnEnded end = RunTurn(Plan("go", /*max_steps=*/2));
  EXPECT_EQ(end.reason, events::TurnEndReason::kMaxSteps);
  EXPECT_EQ(end.steps, 2);
  EXPECT_EQ(echo_calls_, 1);
  std::vector<events::ToolResult> results;
  for (const auto& e : temp_.Stored()) {
    if (auto* r = std::get_if<events::ToolResult>(&e.payload)) results.push_back(*r);
  }
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, events::ToolStatus::kOk);
  EXPECT_EQ(results[1].status, events::ToolStatus::kSkipped);
  EXPECT_THAT(results[1].content, HasSubstr("max_steps"));
  EXPECT_EQ(book_->requests.size(), 2u);
}

// A stream that ends before its finish is an error: nothing of it is
// committed and its tool call never runs.
TEST_F(TurnTest, BrokenStreamNeverRunsItsCalls) {
  Script broken = ToolCalls({{"c1", "echo", R"({"text":"a"})"}});
  broken.events.pop_back();  // no finish
  Queue(broken);
  auto sub = log_->Subscribe(0);
  events::TurnEnded end = RunTurn(Plan("go"));
  EXPECT_EQ(end.reason, events::TurnEndReason::kError);
  EXPECT_EQ(echo_calls_, 0);
  EXPECT_THAT(KindsOf(temp_.Stored()), ElementsAre("turn_started", "user_message"));
  EXPECT_EQ(ctx_.items.size(), 1u);  // the user's message only
}

// A call the output limit cut off mid-argument is told it was cut off,
// without its partial arguments; an invalid call in a response that ended
// normally is told its JSON is invalid.
TEST_F(TurnTest, ACallCutOffAtTheOutputLimitIsToldSo) {
  Script cut = ToolCalls({{"c1", "echo", R"({"text": "PARTIAL-123)", false}});
  cut.events.back() = providers::FinishEvent{providers::FinishReason::kLength, "max_tokens"};
  Queue(cut);
  Queue(ToolCalls({{"c2", "echo", R"({"text": "BROKEN-456)", false}}));
  Queue(TextAnswer("done"));
  EXPECT_EQ(RunTurn(Plan("go")).reason, events::TurnEndReason::kCompleted);
  EXPECT_EQ(echo_calls_, 0);
  std::vector<events::ToolResult> results;
  for (const auto& e : temp_.Stored()) {
    if (const auto* r = std::get_if<events::ToolResult>(&e.payload)) results.push_back(*r);
  }
  ASSERT_EQ(results.size(), 2u);
  EXPECT_THAT(results[0].content, HasSubstr("cut off at the model's output limit"));
  EXPECT_THAT(results[0].content, ::testing::Not(HasSubstr("PARTIAL-123")));
  EXPECT_THAT(results[1].content, HasSubstr("not valid JSON"));
  EXPECT_THAT(results[1].content, ::testing::Not(HasSubstr("BROKEN-456")));
}

TEST_F(TurnTest, ProviderErrorEndsTheTurnWithItsMessage) {
  Script failing;
  failing.events.push_back(providers::StartEvent{"resp", "m"});
  failing.events.push_back(providers::TextDeltaEvent{0, "partial"});
  providers::ErrorEvent error;
  error.kind = providers::ErrorKind::kInvalidRequest;
  error.message = "bad request";
  failing.events.push_back(error);
  Queue(failing);
  auto sub = log_->Subscribe(0);
  events::TurnEnded end = RunTurn(Plan("go"));
  EXPECT_EQ(end.reason, events::TurnEndReason::kError);
  EXPECT_THAT(end.message, HasSubstr("bad request"));
  // Clients are told to discard the text they saw; nothing of it is stored.
  std::vector<std::string> live = KindsOf(Drain(*sub));
  EXPECT_NE(std::find(live.begin(), live.end(), "stream_reset"), live.end());
  EXPECT_THAT(KindsOf(temp_.Stored()), ElementsAre("turn_started", "user_message"));
}

TEST_F(TurnTest, CancelledBeforeTheFirstRequestSendsNothing) {
  cancel_.Cancel("interrupted");
  events::TurnEnded end = RunTurn(Plan("go"));
  EXPECT_EQ(end.reason, events::TurnEndReason::kCancelled);
  EXPECT_THAT(book_->requests, IsEmpty());
  EXPECT_THAT(KindsOf(temp_.Stored()), ElementsAre("turn_started", "user_message"));
}

// Cancelled while the answer streams: the text the user already saw is
// kept as the assistant message.
TEST_F(TurnTest, CancelledMidStreamKeepsTheTextSoFar) {
  Script parked;
  parked.events.push_back(providers::StartEvent{"resp", "m"});
  parked.events.push_back(providers::TextDeltaEvent{0, "half an ans"});
  parked.park_until_cancelled = true;
  Queue(parked);
  // Cancel as soon as the delta is published. The wakeup runs on the turn
  // thread right after each publish, and this test has no other consumer,
  // so it pulls there (which also asks for the next wakeup).
  auto sub = log_->Subscribe(0);
  Drain(*sub);
  sub->SetWakeup([&] {
    for (const auto& e : Drain(*sub)) {
      if (std::holds_alternative<events::TextDelta>(e.payload)) cancel_.Cancel("interrupted");
    }
  });
  events::TurnEnded end = RunTurn(Plan("go"));
  EXPECT_EQ(end.reason, events::TurnEndReason::kCancelled);
  std::vector<events::SessionEvent> stored = temp_.Stored();
  EXPECT_THAT(KindsOf(stored), ElementsAre("turn_started", "user_message", "assistant_message"));
  EXPECT_EQ(std::get<events::AssistantMessage>(stored[2].payload).text, "half an ans");
}

// A hook for `event` that appends its input document, one line, to `log`.
config::HookConfig RecordingHook(config::HookEvent event, const std::string& log) {
  config::HookConfig hook;
  hook.name = "record";
  hook.event = event;
  hook.command = {"sh", "-c", "cat >> \"$1\"; echo >> \"$1\"", "sh", log};
  return hook;
}

std::vector<Json> HookInputs(const std::string& log) {
  std::vector<Json> inputs;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) inputs.push_back(Json::parse(line));
  }
  return inputs;
}

// A completed turn's turn_end hook reads the final answer as its message
// (after a step with calls, the answer of the last step).
TEST_F(TurnTest, ACompletedTurnsEndHookReadsTheFinalAnswer) {
  const std::string log = temp_.dir() + "/answers.jsonl";
  TurnPlan plan = Plan("go");
  plan.hooks = {RecordingHook(config::HookEvent::kTurnEnd, log)};
  Queue(ToolCalls({{"c1", "echo", R"({"text":"a"})"}}));
  Queue(TextAnswer("The test passes now."));
  events::TurnEnded end = RunTurn(std::move(plan));
  EXPECT_EQ(end.reason, events::TurnEndReason::kCompleted);
  std::vector<Json> inputs = HookInputs(log);
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0]["reason"], "completed");
  EXPECT_EQ(inputs[0]["message"], "The test passes now.");
}

// Hooks that report what happened still run once the turn is interrupted:
// post_tool_use sees the call that was cancelled, turn_end sees the turn
// end cancelled. Once their own token (TurnPlan::end_reports: a second
// interrupt, the daemon's shutdown) is cancelled, neither runs.
TEST_F(TurnTest, ACancelledTurnStillReportsToItsHooks) {
  echo_.handler = [this](const Json&, const tools::ToolContext& ctx) {
    cancel_.Cancel("interrupted");  // the user interrupts while the call runs
    EXPECT_TRUE(ctx.cancel.cancelled());
    return tools::ToolOutput::Cancelled("[cancelled]");
  };
  const std::string log = temp_.dir() + "/hooks.jsonl";
  auto end_reports = std::make_shared<CancelToken>();
  auto plan_with_hooks = [&](const std::string& turn_id) {
    TurnPlan plan = Plan("go");
    plan.turn_id = turn_id;
    plan.hooks = {RecordingHook(config::HookEvent::kPostToolUse, log),
                  RecordingHook(config::HookEvent::kTurnEnd, log)};
    plan.end_reports = end_reports;
    return plan;
  };
  Queue(ToolCalls({{"c1", "echo", R"({"text":"a"})"}}));
  events::TurnEnded end = RunTurn(plan_with_hooks("turn_1"));
  EXPECT_EQ(end.reason, events::TurnEndReason::kCancelled);
  std::vector<Json> inputs = HookInputs(log);
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0]["event"], "post_tool_use");
  EXPECT_EQ(inputs[0]["tool_result"]["status"], "cancelled");
  EXPECT_EQ(inputs[1]["event"], "turn_end");
  EXPECT_EQ(inputs[1]["reason"], "cancelled");

  std::remove(log.c_str());
  end_reports->Cancel("the daemon is shutting down");
  CancelToken fresh;
  Queue(ToolCalls({{"c2", "echo", R"({"text":"b"})"}}));
  events::TurnEnded again = [&] {
    Turn turn(plan_with_hooks("turn_2"), *log_, ctx_, fresh);
    echo_.handler = [&fresh](const Json&, const tools::ToolContext&) {
      fresh.Cancel("the daemon is shutting down");
      return tools::ToolOutput::Cancelled("[cancelled]");
    };
    events::TurnEnded end = turn.Run();
    turn.ReportEnd(end, /*end_stored=*/true);
    return end;
  }();
  EXPECT_EQ(again.reason, events::TurnEndReason::kCancelled);
  EXPECT_THAT(HookInputs(log), IsEmpty());
}

// Makes every stored tool_result whose payload holds `marker` fail, as a
// full disk would; `marker` "" fails them all.
void FailToolResults(TempStore& temp, const std::string& marker) {
  ASSERT_TRUE(
      testing::ExecSql(temp.dir() + "/sessions.sqlite3",
                       absl::StrCat("CREATE TRIGGER fail_results BEFORE INSERT ON events "
                                    "WHEN NEW.kind = 'tool_result' AND instr(NEW.payload, '",
                                    marker,
                                    "') > 0 BEGIN SELECT RAISE(ABORT, "
                                    "'injected disk failure'); END"))
          .ok());
}

// The pairs of the model context: every assistant item's calls are
// answered right after it, in order.
void ExpectEveryCallAnswered(const std::vector<events::ContextItem>& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    const auto* assistant = std::get_if<events::AssistantTurn>(&items[i]);
    if (assistant == nullptr) continue;
    for (size_t c = 0; c < assistant->tool_calls.size(); ++c) {
      ASSERT_LT(i + 1 + c, items.size());
      const auto* outcome = std::get_if<events::ToolOutcome>(&items[i + 1 + c]);
      ASSERT_NE(outcome, nullptr) << "call " << assistant->tool_calls[c].call_id;
      EXPECT_EQ(outcome->call_id, assistant->tool_calls[c].call_id);
    }
  }
}

// A batch whose result could not be stored still leaves every call with a
// result: the turn ends with the storage error, and the calls it could not
// record are answered (stored and in memory alike), so later requests are
// ones the providers accept.
TEST_F(TurnTest, ABatchThatCannotStoreAResultStillAnswersEveryCall) {
  FailToolResults(temp_, "FAIL-ME");
  Queue(ToolCalls({{"c1", "echo", R"({"text":"FAIL-ME"})"}, {"c2", "echo", R"({"text":"b"})"}}));
  events::TurnEnded end = RunTurn(Plan("go"));
  EXPECT_EQ(end.reason, events::TurnEndReason::kError);
  EXPECT_THAT(end.message, HasSubstr("storage"));
  EXPECT_EQ(echo_calls_, 1);
  ASSERT_EQ(ctx_.items.size(), 4u);
  ExpectEveryCallAnswered(ctx_.items);
  const auto& first = std::get<events::ToolOutcome>(ctx_.items[2]);
  EXPECT_TRUE(first.is_error);
  EXPECT_THAT(first.content, HasSubstr("could not store"));
  EXPECT_EQ(*temp_.store().LoadContext(temp_.session_id()), ctx_.items);
  std::vector<events::SessionEvent> stored = temp_.Stored();
  std::vector<std::string> results;
  for (const auto& e : stored) {
    if (const auto* r = std::get_if<events::ToolResult>(&e.payload)) {
      EXPECT_EQ(r->status, events::ToolStatus::kError);
      results.push_back(r->call_id);
    }
  }
  EXPECT_THAT(results, ElementsAre("c1", "c2"));
}

// When even that fails, the next turn answers the open calls ahead of its
// prompt, in the store and in its request.
TEST_F(TurnTest, TheNextTurnAnswersCallsAnEarlierTurnLeftOpen) {
  FailToolResults(temp_, "");
  Queue(ToolCalls({{"c1", "echo", R"({"text":"a"})"}}));
  EXPECT_EQ(RunTurn(Plan("go")).reason, events::TurnEndReason::kError);
  ASSERT_EQ(ctx_.items.size(), 2u);  // the prompt and the call, without its result
  ASSERT_TRUE(
      testing::ExecSql(temp_.dir() + "/sessions.sqlite3", "DROP TRIGGER fail_results").ok());

  Queue(TextAnswer("done"));
  TurnPlan next = Plan("again");
  next.turn_id = "turn_2";
  EXPECT_EQ(RunTurn(std::move(next)).reason, events::TurnEndReason::kCompleted);
  ASSERT_EQ(book_->requests.size(), 2u);
  const auto& messages = book_->requests[1].messages;
  ASSERT_EQ(messages.size(), 4u);
  ExpectEveryCallAnswered(messages);
  EXPECT_THAT(std::get<events::ToolOutcome>(messages[2]).content, HasSubstr("could not store"));
  EXPECT_EQ(std::get<events::UserText>(messages[3]).text, "again");
  EXPECT_EQ(*temp_.store().LoadContext(temp_.session_id()), ctx_.items);
}

// A storage failure ends the turn with an error naming storage.
TEST_F(TurnTest, StorageFailureEndsTheTurn) {
  ASSERT_TRUE(temp_.store().DeleteSession(temp_.session_id()).ok());
  events::TurnEnded end = RunTurn(Plan("go"));
  EXPECT_EQ(end.reason, events::TurnEndReason::kError);
  EXPECT_THAT(end.message, HasSubstr("storage"));
  EXPECT_THAT(book_->requests, IsEmpty());
}

}  // namespace
}  // namespace raw::loop
