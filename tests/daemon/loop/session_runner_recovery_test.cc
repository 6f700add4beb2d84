// SessionRunner recovery: what a daemon that was killed left unfinished in
// the stored history (a turn, its tool calls, a compaction) gets its end
// recorded when a new runner first loads the session. The stored rows are
// written the way a killed daemon leaves them; a real SQLite store.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>

#include "common/ids.h"
#include "daemon/loop/session_log.h"
#include "daemon/loop/session_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/runner_harness.h"

namespace raw::loop {
namespace {

using ::testing::HasSubstr;

class RecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rawrecovery.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto store = store::SessionStore::Open(dir_ + "/s.sqlite3");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    store::SessionRecord record;
    record.id = id_;
    record.agent = "a";
    record.cwd = dir_;
    ASSERT_TRUE(store_->CreateSession(record).ok());
    log_ = std::make_shared<SessionLog>(id_, 0, *store_, clock_);
  }
  void TearDown() override {
    harness_.reset();
    log_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // What the killed daemon had committed.
  void Stored(const std::string& turn_id, std::vector<events::EventPayload> payloads,
              CommitExtras extras = {}) {
    ASSERT_TRUE(log_->Commit(turn_id, std::move(payloads), std::move(extras)).ok());
  }
  void CompletedTurn(const std::string& turn_id) {
    CommitExtras extras;
    extras.context_appends = {events::UserText("do it", events::UserTextKind::kPrompt, turn_id),
                              events::AssistantTurn{"done", "", {}, {}}};
    Stored(turn_id,
           {events::TurnStarted{"do it"}, events::UserMessage{"do it"},
            events::AssistantMessage{"done", "", 1},
            events::TurnEnded{events::TurnEndReason::kCompleted, "", 1, {}}},
           std::move(extras));
  }

  // A runner as a restarted daemon makes it, after its recovery.
  void Recover() {
    auto record = store_->GetSession(id_);
    ASSERT_TRUE(record.ok()) << record.status();
    harness_ = std::make_unique<testing::RunnerHarness>(*store_, clock_);
    auto runner = harness_->Make(*record);
    ASSERT_TRUE(runner->RecoverUnfinishedTurn().ok());
  }

  std::vector<events::SessionEvent> Events() {
    auto evs = store_->ReadEvents(id_, 0, 1000);
    EXPECT_TRUE(evs.ok()) << evs.status();
    return evs.ok() ? *evs : std::vector<events::SessionEvent>{};
  }
  std::vector<events::ContextItem> Context() {
    auto ctx = store_->LoadContext(id_);
    EXPECT_TRUE(ctx.ok()) << ctx.status();
    return ctx.ok() ? *ctx : std::vector<events::ContextItem>{};
  }

  const std::string id_ = NewId();
  std::string dir_;
  SystemClock clock_;
  std::unique_ptr<store::SessionStore> store_;
  std::shared_ptr<SessionLog> log_;
  std::unique_ptr<testing::RunnerHarness> harness_;
};

TEST_F(RecoveryTest, AManualCompactionLeftOpenIsEndedAsCancelledWithTheContextUnchanged) {
  CompletedTurn("turn_1");
  Stored("compact_1", {events::CompactionStarted{events::CompactionTrigger::kManual, 500, 1}});
  const std::vector<events::ContextItem> before = Context();
  Recover();
  std::vector<events::SessionEvent> evs = Events();
  ASSERT_FALSE(evs.empty());
  const auto* ended = std::get_if<events::CompactionEnded>(&evs.back().payload);
  ASSERT_NE(ended, nullptr) << "no compaction_ended was recorded";
  EXPECT_EQ(evs.back().turn_id, "compact_1");
  EXPECT_EQ(ended->trigger, events::CompactionTrigger::kManual);
  EXPECT_EQ(ended->outcome, events::CompactionOutcome::kCancelled);
  EXPECT_EQ(ended->tokens_before, 500);
  EXPECT_EQ(ended->tokens_after, 500);
  EXPECT_THAT(ended->message, HasSubstr("the context is unchanged"));
  EXPECT_EQ(Context(), before);
  // Nothing else: the turn before it had ended.
  EXPECT_EQ(std::count_if(evs.begin(), evs.end(),
                          [](const events::SessionEvent& e) {
                            return std::holds_alternative<events::TurnEnded>(e.payload);
                          }),
            1);
}

TEST_F(RecoveryTest, AnAutomaticCompactionLeftOpenEndsBeforeItsTurn) {
  CompletedTurn("turn_1");
  CommitExtras extras;
  extras.context_appends = {events::UserText("next", events::UserTextKind::kPrompt, "turn_2")};
  Stored("turn_2", {events::TurnStarted{"next"}, events::UserMessage{"next"}}, std::move(extras));
  Stored("turn_2", {events::CompactionStarted{events::CompactionTrigger::kAutomatic, 900, 1}});
  const std::vector<events::ContextItem> before = Context();
  Recover();
  std::vector<events::SessionEvent> evs = Events();
  ASSERT_GE(evs.size(), 2u);
  const events::SessionEvent& compaction = evs[evs.size() - 2];
  const auto* ended = std::get_if<events::CompactionEnded>(&compaction.payload);
  ASSERT_NE(ended, nullptr) << "no compaction_ended before the turn's end";
  EXPECT_EQ(compaction.turn_id, "turn_2");
  EXPECT_EQ(ended->trigger, events::CompactionTrigger::kAutomatic);
  EXPECT_EQ(ended->outcome, events::CompactionOutcome::kCancelled);
  EXPECT_EQ(ended->tokens_after, 900);
  ASSERT_TRUE(std::holds_alternative<events::TurnEnded>(evs.back().payload));
  EXPECT_EQ(evs.back().turn_id, "turn_2");
  EXPECT_EQ(Context(), before);
}

TEST_F(RecoveryTest, AFinishedCompactionIsLeftAlone) {
  CompletedTurn("turn_1");
  events::CompactionEnded ended;
  ended.outcome = events::CompactionOutcome::kRejected;
  Stored("compact_1", {events::CompactionStarted{events::CompactionTrigger::kManual, 500, 1}});
  Stored("compact_1", {ended});
  const size_t count = Events().size();
  Recover();
  EXPECT_EQ(Events().size(), count);
}

TEST_F(RecoveryTest, AnUnfinishedCallIsReportedAsMaybeDoneNotAsNotDone) {
  CommitExtras extras;
  extras.context_appends = {events::UserText("commit", events::UserTextKind::kPrompt, "turn_1")};
  Stored("turn_1", {events::TurnStarted{"commit"}, events::UserMessage{"commit"}},
         std::move(extras));
  events::AssistantTurn call;
  call.tool_calls.push_back({"c1", "bash", R"({"command":"git commit -am x"})"});
  CommitExtras more;
  more.context_appends = {call};
  Stored("turn_1",
         {events::ToolCallBatch{
             {{"c1", "bash", "builtin/bash", R"({"command":"git commit -am x"})"}}}},
         std::move(more));
  Recover();
  std::vector<events::SessionEvent> evs = Events();
  const events::ToolResult* result = nullptr;
  for (const auto& e : evs) {
    if (const auto* r = std::get_if<events::ToolResult>(&e.payload)) result = r;
  }
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(result->status, events::ToolStatus::kCancelled);
  EXPECT_THAT(result->content, HasSubstr("may or may not have taken effect"));
  EXPECT_THAT(result->content, HasSubstr("check"));
  EXPECT_THAT(result->content, ::testing::Not(HasSubstr("did not complete")));
  // The model reads the same text.
  std::vector<events::ContextItem> context = Context();
  ASSERT_FALSE(context.empty());
  const auto* outcome = std::get_if<events::ToolOutcome>(&context.back());
  ASSERT_NE(outcome, nullptr);
  EXPECT_EQ(outcome->content, result->content);
}

// A provider that sends no call ids gets ids Raw makes up per step
// ("call_0"), so a later step of the turn can use one again: the call left
// running by the crash still gets its result, though an earlier call of the
// same id had one.
TEST_F(RecoveryTest, ACallWhoseIdAnEarlierStepUsedStillGetsItsResult) {
  CommitExtras extras;
  extras.context_appends = {events::UserText("go", events::UserTextKind::kPrompt, "turn_1")};
  Stored("turn_1", {events::TurnStarted{"go"}, events::UserMessage{"go"}}, std::move(extras));
  const events::ToolCallInfo first{"call_0", "bash", "builtin/bash", R"({"command":"echo"})"};
  const events::ToolCallInfo second{"call_0", "bash", "builtin/bash", R"({"command":"sleep 30"})"};
  for (const events::ToolCallInfo* call_ptr : {&first, &second}) {
    const events::ToolCallInfo& call = *call_ptr;
    events::AssistantTurn turn;
    turn.tool_calls.push_back({call.call_id, call.name, call.arguments});
    CommitExtras more;
    more.context_appends = {turn};
    Stored("turn_1", {events::ToolCallBatch{{call}}}, std::move(more));
    if (call_ptr == &first) {
      CommitExtras done;
      done.context_appends = {events::ToolOutcome{"call_0", "bash", "ok", false}};
      Stored("turn_1",
             {events::ToolResult{
                 "call_0", "bash", "builtin/bash", events::ToolStatus::kOk, "ok", 1, {}, {}}},
             std::move(done));
    }
  }
  Recover();
  std::vector<const events::ToolResult*> results;
  std::vector<events::SessionEvent> evs = Events();
  for (const auto& e : evs) {
    if (const auto* r = std::get_if<events::ToolResult>(&e.payload)) results.push_back(r);
  }
  ASSERT_EQ(results.size(), 2u) << "the second call_0 got no result";
  EXPECT_EQ(results[1]->status, events::ToolStatus::kCancelled);
  EXPECT_THAT(results[1]->content, HasSubstr("may or may not have taken effect"));
  std::vector<events::ContextItem> context = Context();
  ASSERT_FALSE(context.empty());
  const auto* outcome = std::get_if<events::ToolOutcome>(&context.back());
  ASSERT_NE(outcome, nullptr) << "the model's context ends on a call without its result";
  EXPECT_EQ(outcome->call_id, "call_0");
  EXPECT_EQ(outcome->content, results[1]->content);
}

}  // namespace
}  // namespace raw::loop
