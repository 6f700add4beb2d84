// LogSubscription: stored events first (read from the store page by page),
// then the step in progress, then live events, with no gap and no
// duplicate; a subscriber that falls behind gets Resync and catches up from
// the store, losing only live-only events. Real SQLite in a temp dir.
#include "daemon/loop/log_subscription.h"

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <vector>

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

events::Notice Note(int n) {
  return events::Notice{events::NoticeLevel::kInfo, "note " + std::to_string(n)};
}

class LogSubscriptionTest : public ::testing::Test {
 protected:
  // Commits `count` durable notices, `per_commit` per transaction.
  void CommitNotes(int count, int per_commit = 100) {
    for (int done = 0; done < count;) {
      std::vector<events::EventPayload> payloads;
      for (int i = 0; i < per_commit && done < count; ++i, ++done) payloads.push_back(Note(done));
      ASSERT_TRUE(log_->Commit("t", std::move(payloads)).ok());
    }
  }
  void PublishDeltas(size_t count) {
    for (size_t i = 0; i < count; ++i) log_->PublishLive("t", events::TextDelta{"d"});
  }

  TempStore temp_;
  SystemClock clock_;
  std::shared_ptr<SessionLog> log_ =
      std::make_shared<SessionLog>(temp_.session_id(), 0, temp_.store(), clock_);
};

// A replay holds about a megabyte of stored events at a time, whatever the
// store's page bound: a subscriber that has not caught up costs the daemon
// that much, however large the session's events. Four events of 600 kB
// take a read each.
TEST(LogSubscriptionReplayTest, AReplayReadsTheStoreAMegabyteAtATime) {
  std::atomic<int> reads{0};
  store::StoreOptions options;
  options.test_hook = [&](store::StoreStep step, const std::string& id) {
    if (step == store::StoreStep::kReading && id == "sess_big") ++reads;
  };
  TempStore temp("sess_big", options);
  SystemClock clock;
  auto log = std::make_shared<SessionLog>(temp.session_id(), 0, temp.store(), clock);
  for (int i = 0; i < 4; ++i) {
    events::Notice big{events::NoticeLevel::kInfo,
                       std::string(600'000, static_cast<char>('a' + i))};
    ASSERT_TRUE(log->Commit("t", {big}).ok());
  }
  LogSubscription sub(log, temp.store(), 0);
  reads = 0;
  std::vector<events::SessionEvent> got = Drain(sub);
  EXPECT_THAT(SeqsOf(got), ElementsAre(1, 2, 3, 4));
  EXPECT_GE(reads.load(), 4);
}

std::vector<uint64_t> Range(uint64_t first, uint64_t last) {
  std::vector<uint64_t> seqs;
  for (uint64_t s = first; s <= last; ++s) seqs.push_back(s);
  return seqs;
}

// A history longer than one store page replays in full after after_seq,
// then live events follow.
TEST_F(LogSubscriptionTest, ReplaysTheStoreInPagesThenContinuesLive) {
  CommitNotes(600);
  LogSubscription sub(log_, temp_.store(), 100);
  EXPECT_EQ(SeqsOf(Drain(sub)), Range(101, 600));
  CommitNotes(2);
  log_->PublishLive("t", events::TextDelta{"live"});
  EXPECT_EQ(SeqsOf(Drain(sub)), Range(601, 603));
}

TEST_F(LogSubscriptionTest, AfterSeqAtOrBeyondTheHeadWaitsForNewEvents) {
  CommitNotes(3);
  LogSubscription at_head(log_, temp_.store(), 3);
  EXPECT_THAT(Drain(at_head), IsEmpty());
  LogSubscription beyond(log_, temp_.store(), 10);
  EXPECT_THAT(Drain(beyond), IsEmpty());
  CommitNotes(1);
  EXPECT_THAT(SeqsOf(Drain(at_head)), ElementsAre(4));
}

// The wakeup fires once after TryNext found nothing, not once per event.
TEST_F(LogSubscriptionTest, WakeupFiresOnceAfterNothingWasReady) {
  LogSubscription sub(log_, temp_.store(), 0);
  int wakeups = 0;
  sub.SetWakeup([&] { ++wakeups; });
  CommitNotes(1);  // TryNext has not returned nullopt yet: no wakeup owed
  EXPECT_EQ(wakeups, 0);
  EXPECT_THAT(SeqsOf(Drain(sub)), ElementsAre(1));
  PublishDeltas(3);
  CommitNotes(1);
  EXPECT_EQ(wakeups, 1);
  EXPECT_THAT(SeqsOf(Drain(sub)), ElementsAre(2, 3, 4, 5));
  PublishDeltas(1);
  EXPECT_EQ(wakeups, 2);
}

// A consumer that lets its queue overflow gets Resync (seq 0, naming the
// last event it got), then every durable event from the store, then the
// step in progress, then live events again: nothing durable is lost and
// nothing is repeated.
TEST_F(LogSubscriptionTest, OverflowResyncsAndCatchesUpFromTheStore) {
  ASSERT_TRUE(log_->Commit("t", {events::TurnStarted{"q"}}).ok());
  LogSubscription sub(log_, temp_.store(), 0);
  EXPECT_THAT(SeqsOf(Drain(sub)), ElementsAre(1));

  // While the consumer does not pull: deltas, a durable approval request in
  // the middle, more deltas than the queue holds, a durable message, and
  // the start of the next step.
  PublishDeltas(100);
  ASSERT_TRUE(log_->Commit("t", {events::ApprovalRequested{"apr_1", {}, 1000}}).ok());
  PublishDeltas(SessionLog::kMaxQueuedEvents);
  ASSERT_TRUE(log_->Commit("t", {events::AssistantMessage{"done", "", 1}}).ok());
  PublishDeltas(5);
  const uint64_t head = log_->last_seq();

  std::vector<events::SessionEvent> got = Drain(sub);
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got[0].seq, 0u);
  EXPECT_EQ(got[0].session_id, temp_.session_id());
  EXPECT_EQ(std::get<events::Resync>(got[0].payload).last_delivered_seq, 1u);
  got.erase(got.begin());
  EXPECT_THAT(KindsOf(got), ElementsAre("approval_requested", "assistant_message", "text_delta",
                                        "text_delta", "text_delta", "text_delta", "text_delta"));
  EXPECT_EQ(got.back().seq, head);
  for (size_t i = 1; i < got.size(); ++i) EXPECT_LT(got[i - 1].seq, got[i].seq);

  // Live delivery resumes.
  log_->PublishLive("t", events::TextDelta{"again"});
  CommitNotes(1);
  EXPECT_THAT(SeqsOf(Drain(sub)), ElementsAre(head + 1, head + 2));
}

// An overflow while the subscription is still replaying the store restarts
// the replay from the last event delivered.
TEST_F(LogSubscriptionTest, OverflowDuringReplayRestartsFromTheLastDelivered) {
  CommitNotes(300);
  LogSubscription sub(log_, temp_.store(), 0);
  for (uint64_t want = 1; want <= 10; ++want) {
    auto next = sub.TryNext();
    ASSERT_TRUE(next.ok() && next->has_value());
    EXPECT_EQ((*next)->seq, want);
  }
  PublishDeltas(SessionLog::kMaxQueuedEvents + 1);
  std::vector<events::SessionEvent> got = Drain(sub);
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(std::get<events::Resync>(got[0].payload).last_delivered_seq, 10u);
  got.erase(got.begin());
  // The rest of the history, then every delta of the step in progress
  // (they are the live events since the last durable one).
  ASSERT_EQ(got.size(), 290 + SessionLog::kMaxQueuedEvents + 1);
  EXPECT_EQ(SeqsOf(got), Range(11, log_->last_seq()));
}

// Two subscribers are independent: one overflowing does not disturb the
// other.
TEST_F(LogSubscriptionTest, OneLaggingSubscriberDoesNotAffectAnother) {
  LogSubscription lagging(log_, temp_.store(), 0);
  LogSubscription keeping_up(log_, temp_.store(), 0);
  std::vector<events::SessionEvent> kept;
  for (size_t i = 0; i < SessionLog::kMaxQueuedEvents + 10; ++i) {
    log_->PublishLive("t", events::TextDelta{"d"});
    if (i % 1000 == 0) {
      auto some = Drain(keeping_up);
      kept.insert(kept.end(), some.begin(), some.end());
    }
  }
  auto rest = Drain(keeping_up);
  kept.insert(kept.end(), rest.begin(), rest.end());
  EXPECT_EQ(SeqsOf(kept), Range(1, SessionLog::kMaxQueuedEvents + 10));
  auto lagged = Drain(lagging);
  ASSERT_FALSE(lagged.empty());
  EXPECT_TRUE(std::holds_alternative<events::Resync>(lagged[0].payload));
}

TEST_F(LogSubscriptionTest, CloseStopsDeliveryAndWakeups) {
  LogSubscription sub(log_, temp_.store(), 0);
  int wakeups = 0;
  sub.SetWakeup([&] { ++wakeups; });
  EXPECT_THAT(Drain(sub), IsEmpty());
  sub.Close();
  sub.Close();  // more than once is fine
  CommitNotes(2);
  EXPECT_EQ(wakeups, 0);
  auto next = sub.TryNext();
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(next->has_value());
}

// A store that cannot be read ends the subscription with the error.
TEST_F(LogSubscriptionTest, StoreErrorEndsTheSubscription) {
  CommitNotes(3);
  LogSubscription sub(log_, temp_.store(), 0);
  ASSERT_TRUE(temp_.store().DeleteSession(temp_.session_id()).ok());
  auto next = sub.TryNext();
  EXPECT_EQ(next.status().code(), absl::StatusCode::kNotFound);
}

// sessions.max_live_bytes: a subscriber whose queue would hold more bytes
// than the bound resyncs, like one whose queue holds too many events.
TEST_F(LogSubscriptionTest, AQueueOverItsByteBoundResyncs) {
  log_->set_max_live_bytes(64 * 1024);
  LogSubscription sub(log_, temp_.store(), 0);
  EXPECT_THAT(Drain(sub), IsEmpty());
  // Eight deltas of 16 KiB: far fewer than kMaxQueuedEvents, but 128 KiB.
  for (int i = 0; i < 8; ++i) log_->PublishLive("t", events::TextDelta{std::string(16384, 'x')});
  std::vector<events::SessionEvent> got = Drain(sub);
  ASSERT_FALSE(got.empty());
  EXPECT_TRUE(std::holds_alternative<events::Resync>(got[0].payload));
}

// Committed events count with all their text too: a subscriber that stops
// reading while large tool outputs or messages are committed holds at most
// the bound, then resyncs and reads every one of them from the store.
TEST_F(LogSubscriptionTest, CommittedEventsCountForTheirBytesAndCatchUpFromTheStore) {
  log_->set_max_live_bytes(64 * 1024);
  LogSubscription sub(log_, temp_.store(), 0);
  EXPECT_THAT(Drain(sub), IsEmpty());
  // Eight committed outputs of 16 KiB: far fewer than kMaxQueuedEvents.
  for (int i = 0; i < 8; ++i) {
    events::ToolResult result;
    result.call_id = "c" + std::to_string(i);
    result.name = "bash";
    result.content = std::string(16384, 'x');
    ASSERT_TRUE(log_->Commit("t", {result}).ok());
  }
  std::vector<events::SessionEvent> got = Drain(sub);
  ASSERT_FALSE(got.empty());
  ASSERT_TRUE(std::holds_alternative<events::Resync>(got[0].payload));
  got.erase(got.begin());
  EXPECT_THAT(SeqsOf(got), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
  for (const auto& e : got) {
    EXPECT_EQ(std::get<events::ToolResult>(e.payload).content.size(), 16384u);
  }

  // One event larger than the whole bound is still delivered as it is.
  events::ToolResult big;
  big.call_id = "big";
  big.content = std::string(100 * 1024, 'y');
  ASSERT_TRUE(log_->Commit("t", {big}).ok());
  got = Drain(sub);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(std::get<events::ToolResult>(got[0].payload).call_id, "big");
}

// A delta counts for what it holds, not for its text: a provider that
// streams one byte at a time cannot keep more events than the bound pays for.
TEST_F(LogSubscriptionTest, OneByteDeltasCountForTheEventsThatHoldThem) {
  log_->set_max_live_bytes(64 * 1024);
  ASSERT_TRUE(log_->Commit("t", {events::TurnStarted{"q"}}).ok());
  for (int i = 0; i < 20000; ++i) log_->PublishLive("t", events::TextDelta{"a"});
  LogSubscription late(log_, temp_.store(), 1);
  std::vector<events::SessionEvent> got = Drain(late);
  ASSERT_GE(got.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<events::Resync>(got[0].payload));
  EXPECT_LE((got.size() - 1) * sizeof(events::SessionEvent), 64u * 1024);
  EXPECT_EQ(got.back().seq, log_->last_seq());
}

// The live events kept for late subscribers stay within the bound: only the
// latest progress of a call is kept, and past the bound the oldest deltas
// are dropped; a late subscriber is told (Resync) and gets the rest.
TEST_F(LogSubscriptionTest, LateSubscribersGetBoundedLiveEventsAndAResyncAfterADrop) {
  log_->set_max_live_bytes(64 * 1024);
  ASSERT_TRUE(log_->Commit("t", {events::TurnStarted{"q"}}).ok());
  for (int i = 1; i <= 1000; ++i) {
    log_->PublishLive("t", events::ToolProgress{"c1", double(i), 1000.0, "step"});
  }
  {
    LogSubscription late(log_, temp_.store(), 1);
    std::vector<events::SessionEvent> got = Drain(late);
    ASSERT_EQ(got.size(), 1u);  // one progress event, the latest
    EXPECT_EQ(std::get<events::ToolProgress>(got[0].payload).progress, 1000.0);
  }
  // 40 deltas of 4 KiB: 160 KiB, more than the bound of 64 KiB.
  for (int i = 0; i < 40; ++i) {
    log_->PublishLive("t", events::TextDelta{std::string(4096, char('a' + i % 26))});
  }
  LogSubscription late(log_, temp_.store(), 1);
  std::vector<events::SessionEvent> got = Drain(late);
  ASSERT_GE(got.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<events::Resync>(got[0].payload));
  // The resync names the last delta dropped: nothing up to it can be had.
  const uint64_t dropped_through = std::get<events::Resync>(got[0].payload).last_delivered_seq;
  EXPECT_GT(dropped_through, 1u);
  EXPECT_LT(dropped_through, got[1].seq);
  size_t bytes = 0;
  for (size_t i = 1; i < got.size(); ++i) bytes += SessionLog::LiveBytes(got[i]);
  EXPECT_LE(bytes, 64u * 1024);
  // What is kept is the newest: the last delta published is there.
  EXPECT_EQ(got.back().seq, log_->last_seq());
  for (size_t i = 2; i < got.size(); ++i) EXPECT_GT(got[i].seq, got[i - 1].seq);

  // A client subscribes again after the resync's seq, as the clients do: it
  // gets the kept deltas and no second resync (a resync naming the last
  // event delivered sent it round in a loop until the step was stored).
  {
    LogSubscription again(log_, temp_.store(), dropped_through);
    std::vector<events::SessionEvent> rest = Drain(again);
    ASSERT_EQ(rest.size(), got.size() - 1);
    for (const auto& e : rest) EXPECT_FALSE(std::holds_alternative<events::Resync>(e.payload));
    EXPECT_EQ(rest.front().seq, got[1].seq);
  }

  // A commit ends the step: nothing live is kept, nothing was dropped.
  ASSERT_TRUE(log_->Commit("t", {events::AssistantMessage{"whole", "", 1}}).ok());
  LogSubscription after(log_, temp_.store(), 1);
  std::vector<events::SessionEvent> stored = Drain(after);
  for (const auto& e : stored) EXPECT_FALSE(std::holds_alternative<events::Resync>(e.payload));
  EXPECT_EQ(KindsOf(stored).back(), "assistant_message");
}

}  // namespace
}  // namespace raw::loop
