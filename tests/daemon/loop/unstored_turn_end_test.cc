// A turn whose end the store refuses (a full disk): subscribers still learn
// at once that it ended, the session does not stay busy, and the turn is
// closed in the store exactly once: before the session's next write, or by
// the recovery of the next daemon when this one stops first. The same for
// a manual compaction whose start was stored. A real SQLite
// store, whose refusal is a trigger, and a scripted provider.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/ids.h"
#include "daemon/loop/session_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/runner_harness.h"
#include "tests/daemon/loop/scripted_provider.h"
#include "tests/daemon/loop/stored_rows.h"
#include "tests/daemon/loop/temp_store.h"

namespace raw::loop {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// The TurnEnded events of `turn_id` among `evs`.
std::vector<events::SessionEvent> EndsOf(const std::vector<events::SessionEvent>& evs,
                                         const std::string& turn_id) {
  std::vector<events::SessionEvent> ends;
  for (const auto& e : evs) {
    if (e.turn_id == turn_id && std::holds_alternative<events::TurnEnded>(e.payload)) {
      ends.push_back(e);
    }
  }
  return ends;
}

// The CompactionEnded events among `evs`.
std::vector<events::SessionEvent> CompactionEndsOf(const std::vector<events::SessionEvent>& evs) {
  std::vector<events::SessionEvent> ends;
  for (const auto& e : evs) {
    if (std::holds_alternative<events::CompactionEnded>(e.payload)) ends.push_back(e);
  }
  return ends;
}

bool AnyOfTurn(const std::vector<events::SessionEvent>& evs, const std::string& turn_id) {
  return std::any_of(evs.begin(), evs.end(),
                     [&](const events::SessionEvent& e) { return e.turn_id == turn_id; });
}

class UnstoredTurnEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    book_ = std::make_shared<testing::ScriptBook>();
    Load();
  }
  void TearDown() override {
    runner_.reset();
    harness_.reset();
  }

  // A runner for the stored session, as a (re)started daemon makes it.
  void Load() {
    runner_.reset();
    harness_.reset();
    absl::StatusOr<store::SessionRecord> record = temp_.store().GetSession(temp_.session_id());
    ASSERT_TRUE(record.ok()) << record.status();
    harness_ = std::make_unique<testing::RunnerHarness>(temp_.store(), clock_);
    runner_ = harness_->Make(*record);
    ASSERT_TRUE(runner_->RecoverUnfinishedTurn().ok());
  }

  // The store refuses to store the end (an event of `kind`) of turn or
  // operation `turn_id` ("%": of any), as a full disk would; "" lifts that.
  void RefuseEndOf(const std::string& turn_id, const std::string& kind = "turn_ended") {
    const std::string db = temp_.dir() + "/sessions.sqlite3";
    ASSERT_TRUE(testing::ExecSql(db, "DROP TRIGGER IF EXISTS refuse_end").ok());
    if (turn_id.empty()) return;
    ASSERT_TRUE(testing::ExecSql(
                    db, absl::StrCat("CREATE TRIGGER refuse_end BEFORE INSERT ON events WHEN "
                                     "NEW.kind = '",
                                     kind, "' AND NEW.turn_id LIKE '", turn_id,
                                     "' BEGIN SELECT RAISE(ABORT, 'database or disk is full'); "
                                     "END"))
                    .ok());
  }

  TurnPlan Plan(const std::string& turn_id, const std::string& answer) {
    book_->scripts.push_back(testing::TextAnswer(answer));
    TurnPlan plan;
    plan.turn_id = turn_id;
    plan.user_text = "go";
    plan.cwd = temp_.dir();
    plan.agent.agent.name = "a";
    plan.agent.agent.max_steps = 5;
    plan.provider = std::make_unique<testing::ScriptedProvider>(book_);
    return plan;
  }

  // Turns turn_1 to turn_5, each with an answer of 4,000 bytes: enough that
  // the older ones compact.
  void RunLongTurns() {
    for (int i = 1; i <= 5; ++i) {
      const std::string turn_id = absl::StrCat("turn_", i);
      std::unique_ptr<Subscription> sub = runner_->Subscribe(0);
      ASSERT_TRUE(harness_->StartTurn(*runner_, Plan(turn_id, std::string(4000, 'a' + i))).ok());
      ASSERT_TRUE(testing::ReadUntilTurnEnds(*sub, turn_id).ok());
    }
  }

  // Whether the runner is idle once the commands queued so far have run: a
  // command answers before it returns, so each round trip through the
  // queue (an interrupt of nothing) gives the previous one time to end.
  // At least 100 round trips, and for `patience` at least: under a
  // sanitizer's slowdown the last ones may take a few hundred.
  bool IdleAfterItsQueue(absl::Duration patience = absl::ZeroDuration()) {
    const absl::Time until = absl::Now() + patience;
    for (int round = 0; round < 100 || absl::Now() < until; ++round) {
      EXPECT_FALSE(harness_->Interrupt(*runner_));
      if (runner_->Idle()) return true;
    }
    return false;
  }

  testing::TempStore temp_;
  SystemClock clock_;
  std::shared_ptr<testing::ScriptBook> book_;
  std::unique_ptr<testing::RunnerHarness> harness_;
  std::shared_ptr<SessionRunner> runner_;
};

TEST_F(UnstoredTurnEndTest, TheEndIsShownAtOnceAndStoredOnceBeforeTheNextWrite) {
  RefuseEndOf("turn_1");
  std::unique_ptr<Subscription> sub = runner_->Subscribe(0);
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("turn_1", "first")).ok());
  absl::StatusOr<std::vector<events::SessionEvent>> seen =
      testing::ReadUntilTurnEnds(*sub, "turn_1");
  ASSERT_TRUE(seen.ok()) << seen.status();
  const events::SessionEvent live = seen->back();
  const auto& shown = std::get<events::TurnEnded>(live.payload);
  EXPECT_EQ(shown.reason, events::TurnEndReason::kCompleted);
  EXPECT_THAT(
      shown.message,
      HasSubstr("the end of this turn could not be stored (sqlite: database or disk is full"));
  EXPECT_FALSE(runner_->running());
  EXPECT_THAT(EndsOf(temp_.Stored(), "turn_1"), IsEmpty());

  // The next write is refused, saying why, while the end cannot be stored;
  // no second turn begins after the open one.
  absl::Status refused = harness_->StartTurn(*runner_, Plan("turn_2", "second"));
  // The code of the store's refusal (a trigger's: a failed constraint).
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_THAT(refused.message(),
              HasSubstr(absl::StrCat("session ", temp_.session_id(),
                                     " cannot be written: the end of its turn turn_1 could not "
                                     "be stored: ")));
  EXPECT_FALSE(AnyOfTurn(temp_.Stored(), "turn_2"));
  book_->scripts.clear();  // the refused turn's answer

  // Once the store takes it, the end is stored as it happened, under the seq
  // it was shown under, before the next turn.
  RefuseEndOf("");
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("turn_3", "third")).ok());
  absl::StatusOr<std::vector<events::SessionEvent>> more =
      testing::ReadUntilTurnEnds(*sub, "turn_3");
  ASSERT_TRUE(more.ok()) << more.status();
  EXPECT_THAT(EndsOf(*more, "turn_1"), IsEmpty()) << "a subscriber is shown the end once";
  std::vector<events::SessionEvent> stored = temp_.Stored();
  std::vector<events::SessionEvent> ends = EndsOf(stored, "turn_1");
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].seq, live.seq);
  const auto& end = std::get<events::TurnEnded>(ends[0].payload);
  EXPECT_EQ(end.reason, events::TurnEndReason::kCompleted);
  EXPECT_THAT(end.message, Not(HasSubstr("could not be stored")));
  EXPECT_EQ(EndsOf(stored, "turn_3").size(), 1u);

  // A subscriber that replays the history sees each end once too.
  std::unique_ptr<Subscription> replay = runner_->Subscribe(0);
  absl::StatusOr<std::vector<events::SessionEvent>> replayed = testing::ReadReady(*replay);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ(EndsOf(*replayed, "turn_1").size(), 1u);
}

TEST_F(UnstoredTurnEndTest, ADaemonThatStopsFirstLeavesTheTurnToTheNextOneToCloseOnce) {
  RefuseEndOf("turn_1");
  std::unique_ptr<Subscription> sub = runner_->Subscribe(0);
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("turn_1", "first")).ok());
  ASSERT_TRUE(testing::ReadUntilTurnEnds(*sub, "turn_1").ok());
  EXPECT_FALSE(harness_->StartTurn(*runner_, Plan("turn_2", "second")).ok());
  sub.reset();

  // The daemon stops with the end still unstored; the next one can store.
  RefuseEndOf("");
  Load();
  std::vector<events::SessionEvent> stored = temp_.Stored();
  std::vector<events::SessionEvent> ends = EndsOf(stored, "turn_1");
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(std::get<events::TurnEnded>(ends[0].payload).reason, events::TurnEndReason::kError);
  EXPECT_FALSE(AnyOfTurn(stored, "turn_2"));

  // And the one after that finds nothing left to close.
  Load();
  EXPECT_EQ(temp_.Stored().size(), stored.size());
}

// The end lives only in the runner until it is stored: a runner owing one
// is never idle, so the daemon does not unload it (and leave the turn to a
// recovery that would record "rawd stopped") while nobody watches.
TEST_F(UnstoredTurnEndTest, ARunnerOwingAnEndIsNotIdleUntilTheEndIsStored) {
  RefuseEndOf("turn_1");
  {
    std::unique_ptr<Subscription> sub = runner_->Subscribe(0);
    ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("turn_1", "first")).ok());
    ASSERT_TRUE(testing::ReadUntilTurnEnds(*sub, "turn_1").ok());
  }
  EXPECT_FALSE(runner_->running());
  EXPECT_FALSE(IdleAfterItsQueue());
  EXPECT_THAT(EndsOf(temp_.Stored(), "turn_1"), IsEmpty());

  RefuseEndOf("");
  ASSERT_TRUE(runner_->RecoverUnfinishedTurn().ok());
  std::vector<events::SessionEvent> ends = EndsOf(temp_.Stored(), "turn_1");
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(std::get<events::TurnEnded>(ends[0].payload).reason, events::TurnEndReason::kCompleted);
  EXPECT_TRUE(IdleAfterItsQueue(absl::Seconds(20)));
}

TEST_F(UnstoredTurnEndTest, AManualCompactionsEndIsStoredOnceBeforeTheNextWrite) {
  RunLongTurns();
  RefuseEndOf("%", "compaction_ended");
  std::unique_ptr<Subscription> sub = runner_->Subscribe(temp_.Stored().back().seq);
  book_->scripts.push_back(testing::TextAnswer("A short summary of the older turns."));
  TurnPlan plan = Plan("", "");
  book_->scripts.pop_back();  // Plan's own answer: the summary above is the one
  plan.summarizer = std::make_unique<testing::ScriptedProvider>(book_);
  ASSERT_TRUE(harness_->StartCompaction(*runner_, std::move(plan)).ok());
  absl::StatusOr<std::vector<events::SessionEvent>> seen = testing::ReadUntil(
      *sub,
      [](const events::SessionEvent& e) {
        return std::holds_alternative<events::CompactionEnded>(e.payload);
      },
      "the compaction did not end");
  ASSERT_TRUE(seen.ok()) << seen.status();
  const events::SessionEvent live = seen->back();
  const auto& shown = std::get<events::CompactionEnded>(live.payload);
  EXPECT_EQ(shown.outcome, events::CompactionOutcome::kFailed) << shown.message;
  EXPECT_THAT(shown.message, HasSubstr("could not be recorded"));
  ASSERT_THAT(CompactionEndsOf(temp_.Stored()), IsEmpty());

  // No turn is stored after a compaction that has no end in the store.
  absl::Status refused = harness_->StartTurn(*runner_, Plan("turn_6", "sixth"));
  EXPECT_THAT(refused.message(), HasSubstr(absl::StrCat("cannot be written: the end of its "
                                                        "compaction ",
                                                        live.turn_id, " could not be stored: ")))
      << refused;
  EXPECT_FALSE(AnyOfTurn(temp_.Stored(), "turn_6"));
  book_->scripts.clear();

  // Once the store takes it, the end as shown is stored under its seq,
  // before the next turn; subscribers see it once.
  RefuseEndOf("");
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("turn_7", "seventh")).ok());
  absl::StatusOr<std::vector<events::SessionEvent>> more =
      testing::ReadUntilTurnEnds(*sub, "turn_7");
  ASSERT_TRUE(more.ok()) << more.status();
  EXPECT_THAT(CompactionEndsOf(*more), IsEmpty()) << "a subscriber is shown the end once";
  std::vector<events::SessionEvent> stored = temp_.Stored();
  std::vector<events::SessionEvent> ends = CompactionEndsOf(stored);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].seq, live.seq);
  EXPECT_EQ(ends[0].turn_id, live.turn_id);
  EXPECT_EQ(std::get<events::CompactionEnded>(ends[0].payload).outcome,
            events::CompactionOutcome::kFailed);
  EXPECT_EQ(EndsOf(stored, "turn_7").size(), 1u);
}

TEST_F(UnstoredTurnEndTest, ATurnStopsAfterAnAutomaticCompactionWhoseEndIsNotStored) {
  RunLongTurns();
  RefuseEndOf("turn_6", "compaction_ended");
  std::unique_ptr<Subscription> sub = runner_->Subscribe(temp_.Stored().back().seq);
  TurnPlan plan = Plan("turn_6", "never asked for");
  book_->scripts.clear();
  book_->scripts.push_back(testing::TextAnswer("A short summary of the older turns."));
  plan.summarizer = std::make_unique<testing::ScriptedProvider>(book_);
  // The meter counts from the provider's last report (10 input and 5 output
  // tokens in these scripts): over this with the next prompt.
  plan.agent.agent.compact.trigger_tokens = 12;
  // A turn_end hook whose warning must not be stored ahead of the ends.
  config::HookConfig hook;
  hook.name = "warns";
  hook.event = config::HookEvent::kTurnEnd;
  hook.command = {"sh", "-c", "exit 2"};
  plan.hooks.push_back(hook);
  ASSERT_TRUE(harness_->StartTurn(*runner_, std::move(plan)).ok());
  absl::StatusOr<std::vector<events::SessionEvent>> seen =
      testing::ReadUntilTurnEnds(*sub, "turn_6");
  ASSERT_TRUE(seen.ok()) << seen.status();
  const auto& end = std::get<events::TurnEnded>(seen->back().payload);
  EXPECT_EQ(end.reason, events::TurnEndReason::kError);
  EXPECT_THAT(end.message, HasSubstr("the end of its automatic compaction could not be stored"));
  // No model request was sent after the compaction.
  for (const events::SessionEvent& e : *seen) {
    EXPECT_FALSE(std::holds_alternative<events::AssistantMessage>(e.payload));
  }
  const std::vector<events::SessionEvent> shown_ends = CompactionEndsOf(*seen);
  ASSERT_EQ(shown_ends.size(), 1u);
  const events::SessionEvent shown_compaction_end = shown_ends[0];
  const events::SessionEvent shown_turn_end = seen->back();

  // The turn's end is not stored after a compaction that has no end in the
  // store: both wait, and so does the next turn.
  EXPECT_THAT(CompactionEndsOf(temp_.Stored()), IsEmpty());
  EXPECT_THAT(EndsOf(temp_.Stored(), "turn_6"), IsEmpty());
  for (const events::SessionEvent& e : temp_.Stored()) {
    EXPECT_FALSE(std::holds_alternative<events::Notice>(e.payload))
        << std::get<events::Notice>(e.payload).text;
  }
  absl::Status refused = harness_->StartTurn(*runner_, Plan("turn_7", "seventh"));
  EXPECT_THAT(refused.message(), HasSubstr("cannot be written: the end of its turn turn_6"))
      << refused;
  EXPECT_FALSE(AnyOfTurn(temp_.Stored(), "turn_7"));
  book_->scripts.clear();

  // Once the store takes them, both are stored in their order under the seqs
  // subscribers saw, before the next turn, and nobody is shown them again.
  RefuseEndOf("");
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("turn_8", "eighth")).ok());
  absl::StatusOr<std::vector<events::SessionEvent>> more =
      testing::ReadUntilTurnEnds(*sub, "turn_8");
  ASSERT_TRUE(more.ok()) << more.status();
  EXPECT_THAT(CompactionEndsOf(*more), IsEmpty());
  EXPECT_THAT(EndsOf(*more, "turn_6"), IsEmpty());
  const std::vector<events::SessionEvent> stored = temp_.Stored();
  const std::vector<events::SessionEvent> stored_compaction_ends = CompactionEndsOf(stored);
  ASSERT_EQ(stored_compaction_ends.size(), 1u);
  EXPECT_EQ(stored_compaction_ends[0].seq, shown_compaction_end.seq);
  EXPECT_EQ(stored_compaction_ends[0].turn_id, "turn_6");
  const std::vector<events::SessionEvent> turn_ends = EndsOf(stored, "turn_6");
  ASSERT_EQ(turn_ends.size(), 1u);
  EXPECT_EQ(turn_ends[0].seq, shown_turn_end.seq);
  EXPECT_LT(shown_compaction_end.seq, shown_turn_end.seq);
  EXPECT_EQ(std::get<events::TurnEnded>(turn_ends[0].payload).reason,
            events::TurnEndReason::kError);
  EXPECT_EQ(EndsOf(stored, "turn_8").size(), 1u);
}

}  // namespace
}  // namespace raw::loop
