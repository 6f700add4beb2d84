// SessionLog: the one place where a session's events get their seq; durable
// events are stored before anyone sees them, live-only ones are only
// published, and a failed commit uses no seq. Real SQLite in a temp dir.
#include "daemon/loop/session_log.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "daemon/store/sqlite/db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/temp_store.h"

namespace raw::loop {
namespace {

using testing::Drain;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::KindsOf;
using testing::SeqsOf;
using testing::TempStore;

class FixedClock : public Clock {
 public:
  int64_t NowUnixMs() const override { return 1234; }
};

events::Notice Note(const std::string& text) {
  return events::Notice{events::NoticeLevel::kInfo, text};
}

class SessionLogTest : public ::testing::Test {
 protected:
  // Runs `sql` on the store's file through a connection of its own.
  void Exec(const std::string& sql) {
    auto db = store::Database::Open(temp_.dir() + "/sessions.sqlite3");
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Exec(sql).ok()) << sql;
  }

  TempStore temp_;
  FixedClock clock_;
  std::shared_ptr<SessionLog> log_ =
      std::make_shared<SessionLog>(temp_.session_id(), 0, temp_.store(), clock_);
};

TEST_F(SessionLogTest, CommitStoresThenPublishesConsecutiveSeqs) {
  auto sub = log_->Subscribe(0);
  ASSERT_TRUE(log_->Commit("turn_1", {events::TurnStarted{"hi"}, events::UserMessage{"hi"}}).ok());
  std::vector<events::SessionEvent> stored = temp_.Stored();
  EXPECT_THAT(SeqsOf(stored), ElementsAre(1, 2));
  std::vector<events::SessionEvent> seen = Drain(*sub);
  EXPECT_EQ(seen, stored);  // subscribers see exactly what was stored
  for (const auto& e : seen) {
    EXPECT_EQ(e.session_id, temp_.session_id());
    EXPECT_EQ(e.turn_id, "turn_1");
    EXPECT_EQ(e.time_unix_ms, 1234);
  }
  EXPECT_EQ(log_->last_seq(), 2u);
  EXPECT_EQ(temp_.store().GetSession(temp_.session_id())->last_seq, 2u);
}

TEST_F(SessionLogTest, LiveEventsTakeSeqsButAreNeverStored) {
  auto sub = log_->Subscribe(0);
  ASSERT_TRUE(log_->Commit("t", {events::TurnStarted{"q"}}).ok());
  log_->PublishLive("t", events::TextDelta{"a"});
  log_->PublishLive("t", events::TextDelta{"b"});
  ASSERT_TRUE(log_->Commit("t", {events::AssistantMessage{"ab", "", 1}}).ok());
  log_->PublishUnstored("t", events::TurnEnded{events::TurnEndReason::kError, "disk", 1, {}});

  EXPECT_THAT(SeqsOf(Drain(*sub)), ElementsAre(1, 2, 3, 4, 5));
  // Stored seqs have holes where the live events were.
  EXPECT_THAT(SeqsOf(temp_.Stored()), ElementsAre(1, 4));
  EXPECT_EQ(log_->last_seq(), 5u);
}

// An event published unstored is stored later under the seq it was shown
// under while it is still the latest, so nobody gets it twice; once another
// event took a seq, it is stored under the next one.
TEST_F(SessionLogTest, AnEventPublishedUnstoredIsStoredUnderItsSeqWhileItIsTheLatest) {
  auto sub = log_->Subscribe(0);
  ASSERT_TRUE(log_->Commit("t", {events::TurnStarted{"q"}}).ok());
  const events::TurnEnded end{events::TurnEndReason::kCompleted, "", 1, {}};
  const uint64_t seq = log_->PublishUnstored("t", end);
  EXPECT_EQ(seq, 2u);
  ASSERT_TRUE(log_->CommitPublished(seq, "t", end).ok());
  EXPECT_THAT(SeqsOf(Drain(*sub)), ElementsAre(1, 2));
  EXPECT_THAT(SeqsOf(temp_.Stored()), ElementsAre(1, 2));
  EXPECT_EQ(log_->last_seq(), 2u);

  const uint64_t later = log_->PublishUnstored("u", end);
  log_->PublishLive("u", events::TextDelta{"x"});
  ASSERT_TRUE(log_->CommitPublished(later, "u", end).ok());
  EXPECT_THAT(SeqsOf(temp_.Stored()), ElementsAre(1, 2, 5));
  EXPECT_EQ(log_->last_seq(), 5u);
}

// Several events published unstored are stored together in their order:
// under their seqs while they are the latest and consecutive, otherwise
// all under the next seqs.
TEST_F(SessionLogTest, EventsPublishedUnstoredAreStoredTogetherInTheirOrder) {
  auto sub = log_->Subscribe(0);
  ASSERT_TRUE(log_->Commit("t", {events::TurnStarted{"q"}}).ok());
  events::CompactionEnded compacted;
  compacted.outcome = events::CompactionOutcome::kFailed;
  const events::TurnEnded end{events::TurnEndReason::kError, "", 1, {}};
  std::vector<OwedEvent> owed;
  owed.push_back(OwedEvent{log_->PublishUnstored("t", compacted), compacted});
  owed.push_back(OwedEvent{log_->PublishUnstored("t", end), end});
  ASSERT_TRUE(log_->CommitPublished(owed, "t").ok());
  EXPECT_THAT(SeqsOf(Drain(*sub)), ElementsAre(1, 2, 3));
  std::vector<events::SessionEvent> stored = temp_.Stored();
  ASSERT_THAT(SeqsOf(stored), ElementsAre(1, 2, 3));
  EXPECT_TRUE(std::holds_alternative<events::CompactionEnded>(stored[1].payload));
  EXPECT_TRUE(std::holds_alternative<events::TurnEnded>(stored[2].payload));

  owed.clear();
  owed.push_back(OwedEvent{log_->PublishUnstored("u", compacted), compacted});
  log_->PublishLive("u", events::TextDelta{"x"});
  owed.push_back(OwedEvent{log_->PublishUnstored("u", end), end});
  ASSERT_TRUE(log_->CommitPublished(owed, "u").ok());
  EXPECT_THAT(SeqsOf(temp_.Stored()), ElementsAre(1, 2, 3, 7, 8));
  EXPECT_EQ(log_->last_seq(), 8u);
}

// A commit the store refuses stores nothing, publishes nothing and gives
// its seqs back: the next commit continues without a gap.
TEST_F(SessionLogTest, FailedCommitUsesNoSeqAndPublishesNothing) {
  auto sub = log_->Subscribe(0);
  ASSERT_TRUE(log_->Commit("t", {Note("one")}).ok());
  Drain(*sub);
  // A live-only payload cannot be committed.
  absl::Status refused = log_->Commit("t", {Note("two"), events::TextDelta{"x"}});
  EXPECT_EQ(refused.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(log_->last_seq(), 1u);
  EXPECT_THAT(Drain(*sub), IsEmpty());
  ASSERT_TRUE(log_->Commit("t", {Note("three")}).ok());
  EXPECT_THAT(SeqsOf(Drain(*sub)), ElementsAre(2));
  EXPECT_THAT(SeqsOf(temp_.Stored()), ElementsAre(1, 2));

  // A log whose session is gone fails the same way.
  SessionLog orphan("no_such_session", 0, temp_.store(), clock_);
  EXPECT_EQ(orphan.Commit("t", {Note("x")}).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(orphan.last_seq(), 0u);
}

// A log made again for the session (a restarted daemon) numbers after
// every seq the earlier one may have published, live-only ones included:
// a client that saw the delta's seq must not skip the next event as seen.
TEST_F(SessionLogTest, ContinuesAfterEverySeqAnEarlierLogMayHavePublished) {
  auto sub = log_->Subscribe(0);
  ASSERT_TRUE(log_->Commit("t", {Note("a"), Note("b")}).ok());
  log_->PublishLive("t", events::TextDelta{"lost with the process"});
  const uint64_t seen = Drain(*sub).back().seq;
  ASSERT_EQ(seen, 3u);
  store::SessionRecord record = *temp_.store().GetSession(temp_.session_id());
  EXPECT_EQ(record.last_seq, 2u);
  EXPECT_GE(record.seq_reserved, seen);
  auto reloaded = std::make_shared<SessionLog>(temp_.session_id(), record.last_seq, temp_.store(),
                                               clock_, nullptr, record.seq_reserved);
  ASSERT_TRUE(reloaded->Commit("t", {Note("c")}).ok());
  std::vector<uint64_t> seqs = SeqsOf(temp_.Stored());
  ASSERT_EQ(seqs.size(), 3u);
  EXPECT_THAT(std::vector<uint64_t>(seqs.begin(), seqs.begin() + 2), ElementsAre(1, 2));
  EXPECT_GT(seqs[2], seen);
}

// More live events between two commits than one reservation covers: the
// log reserves again as it goes, so a reload still numbers after them all.
TEST_F(SessionLogTest, ALongLiveStreamKeepsItsSeqsReserved) {
  ASSERT_TRUE(log_->Commit("t", {Note("a")}).ok());
  for (uint64_t i = 0; i < 3 * SessionLog::kSeqReservation; ++i) {
    log_->PublishLive("t", events::TextDelta{"x"});
  }
  const uint64_t published = log_->last_seq();
  store::SessionRecord record = *temp_.store().GetSession(temp_.session_id());
  EXPECT_GE(record.seq_reserved, published);
  SessionLog reloaded(temp_.session_id(), record.last_seq, temp_.store(), clock_, nullptr,
                      record.seq_reserved);
  ASSERT_TRUE(reloaded.Commit("t", {Note("b")}).ok());
  EXPECT_GT(SeqsOf(temp_.Stored()).back(), published);
}

// A reservation the store refused (a full disk) is not counted as made: the
// next durable commit carries one, so every seq published, then and after,
// stays reserved for a daemon that loads the session again.
TEST_F(SessionLogTest, ARefusedReservationIsMadeByTheNextCommit) {
  ASSERT_TRUE(log_->Commit("t", {Note("a")}).ok());
  const uint64_t reserved = temp_.store().GetSession(temp_.session_id())->seq_reserved;
  Exec(
      "CREATE TRIGGER refuse BEFORE UPDATE OF seq_reserved ON sessions "
      "BEGIN SELECT RAISE(ABORT, 'disk is full'); END");
  // Past the reservation: the log asks for another, which fails.
  while (log_->last_seq() <= reserved) log_->PublishLive("t", events::TextDelta{"x"});
  ASSERT_EQ(temp_.store().GetSession(temp_.session_id())->seq_reserved, reserved);
  Exec("DROP TRIGGER refuse");

  ASSERT_TRUE(log_->Commit("t", {Note("b")}).ok());
  for (uint64_t i = 0; i < SessionLog::kSeqReservation / 2; ++i) {
    log_->PublishLive("t", events::TextDelta{"y"});
  }
  store::SessionRecord record = *temp_.store().GetSession(temp_.session_id());
  EXPECT_GE(std::max(record.last_seq, record.seq_reserved), log_->last_seq());
}

// A subscriber that joins in the middle of a streamed step still gets the
// step's live events, after the stored ones and before new ones.
TEST_F(SessionLogTest, LateSubscriberSeesTheStepInProgress) {
  ASSERT_TRUE(log_->Commit("t", {events::TurnStarted{"q"}}).ok());
  log_->PublishLive("t", events::TextDelta{"hel"});
  log_->PublishLive("t", events::TextDelta{"lo"});

  auto late = log_->Subscribe(0);
  EXPECT_THAT(KindsOf(Drain(*late)), ElementsAre("turn_started", "text_delta", "text_delta"));
  auto later = log_->Subscribe(2);
  EXPECT_THAT(SeqsOf(Drain(*later)), ElementsAre(3));

  ASSERT_TRUE(log_->Commit("t", {events::AssistantMessage{"hello", "", 1}}).ok());
  EXPECT_THAT(SeqsOf(Drain(*late)), ElementsAre(4));
  // The committed message ends the step: a new subscriber no longer gets
  // its deltas.
  auto after_step = log_->Subscribe(0);
  EXPECT_THAT(KindsOf(Drain(*after_step)), ElementsAre("turn_started", "assistant_message"));
}

// A commit of context changes only uses no seq and ends no step.
TEST_F(SessionLogTest, CommitWithoutEventsKeepsTheStepInProgress) {
  log_->PublishLive("t", events::TextDelta{"partial"});
  CommitExtras extras;
  extras.context_appends.push_back(events::UserText{"item"});
  extras.context_meter = "meter";
  ASSERT_TRUE(log_->Commit("t", {}, extras).ok());
  EXPECT_EQ(log_->last_seq(), 1u);
  EXPECT_EQ(temp_.store().LoadContext(temp_.session_id())->size(), 1u);
  EXPECT_EQ(temp_.store().GetSession(temp_.session_id())->context_meter, "meter");
  EXPECT_THAT(KindsOf(Drain(*log_->Subscribe(0))), ElementsAre("text_delta"));
}

// Extras are written in the same transaction as the events.
TEST_F(SessionLogTest, ExtrasAreStoredWithTheEvents) {
  CommitExtras extras;
  extras.context_appends.push_back(events::UserText{"hello"});
  extras.conversation_activity = true;
  extras.title = "A title";
  extras.usage = events::Usage{10, 2, std::nullopt, std::nullopt, std::nullopt};
  ASSERT_TRUE(log_->Commit("t", {events::UserMessage{"hello"}}, extras).ok());
  store::SessionRecord record = *temp_.store().GetSession(temp_.session_id());
  EXPECT_EQ(record.title, "A title");
  EXPECT_EQ(record.last_activity_unix_ms, 1234);  // the event's time
  EXPECT_EQ(record.usage_requests, 1);
  EXPECT_EQ(record.usage.input_tokens, 10);
  EXPECT_THAT(*temp_.store().LoadContext(temp_.session_id()),
              ElementsAre(events::ContextItem{events::UserText{"hello"}}));
}

// Wakeups run after the log's lock is released, so one may call back into
// the log.
TEST_F(SessionLogTest, WakeupMayCallBackIntoTheLog) {
  auto sub = log_->Subscribe(0);
  EXPECT_THAT(Drain(*sub), IsEmpty());
  std::vector<uint64_t> seen_heads;
  sub->SetWakeup([&] { seen_heads.push_back(log_->last_seq()); });
  ASSERT_TRUE(log_->Commit("t", {Note("a"), Note("b")}).ok());
  EXPECT_THAT(seen_heads, ElementsAre(2));
  log_->PublishLive("t", events::TextDelta{"x"});
  EXPECT_THAT(seen_heads, ElementsAre(2));  // once until the consumer looks again
  EXPECT_THAT(SeqsOf(Drain(*sub)), ElementsAre(1, 2, 3));
  log_->PublishLive("t", events::TextDelta{"y"});
  EXPECT_THAT(seen_heads, ElementsAre(2, 4));
}

}  // namespace
}  // namespace raw::loop
