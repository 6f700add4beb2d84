// SessionStore's connections: reads on the read pool proceed while the
// writer is held by another session's commit, reads do not wait for each
// other, and removals (DeleteSession, PurgeExpired) give the writer back
// between batches. The store's test hook holds a call at a known point;
// every wait is on a notification, bounded only so that a regression fails
// instead of hanging.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/session_rows.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using events::SessionEvent;
using ::testing::ElementsAre;
using testing::RowsOf;
using testing::Session;
using testing::TempDir;

// Long enough never to fire on a working store; only turns a regression
// (a read waiting for the writer) into a failure instead of a hang.
constexpr absl::Duration kDeadline = absl::Seconds(60);

// `count` events (seq first..first+count-1, turn "t<seq/10>") and as many
// context items.
CommitBatch Batch(uint64_t first, int count) {
  CommitBatch batch;
  for (uint64_t seq = first; seq < first + static_cast<uint64_t>(count); ++seq) {
    SessionEvent event;
    event.seq = seq;
    event.turn_id = "t" + std::to_string(seq / 10);
    event.time_unix_ms = 1;
    event.payload = events::AssistantMessage{"message " + std::to_string(seq), "", 1};
    batch.events.push_back(std::move(event));
    batch.context_appends.push_back(events::UserText{"item " + std::to_string(seq)});
  }
  return batch;
}

// The hook a test installs before the store exists; it forwards to whatever
// the test sets later.
struct HookSlot {
  absl::Mutex mu;
  std::function<void(StoreStep, const std::string&)> fn ABSL_GUARDED_BY(mu);
  void Set(std::function<void(StoreStep, const std::string&)> f) {
    absl::MutexLock lock(&mu);
    fn = std::move(f);
  }
  void Call(StoreStep step, const std::string& id) {
    std::function<void(StoreStep, const std::string&)> f;
    {
      absl::MutexLock lock(&mu);
      f = fn;
    }
    if (f) f(step, id);
  }
};

class SessionStoreConcurrencyTest : public ::testing::Test {
 protected:
  void Open(StoreOptions options = {}) {
    options.test_hook = [this](StoreStep step, const std::string& id) { hook_.Call(step, id); };
    auto opened = SessionStore::Open(path_, std::move(options));
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(opened).value();
  }

  TempDir dir_;
  const std::string path_ = dir_.File(DatabaseFileName());
  HookSlot hook_;
  std::unique_ptr<SessionStore> store_;
};

// Every kind of read of one session completes while another session's
// commit holds the writer with its transaction open, and sees the last
// committed state (not the open transaction's rows).
TEST_F(SessionStoreConcurrencyTest, ReadsProceedWhileAnotherSessionCommits) {
  Open();
  ASSERT_TRUE(store_->CreateSession(Session("reader", 10)).ok());
  ASSERT_TRUE(store_->CreateSession(Session("writer", 20)).ok());
  ASSERT_TRUE(store_->Commit("reader", Batch(1, 3)).ok());

  absl::Notification writing, release;
  hook_.Set([&](StoreStep step, const std::string& id) {
    if (step == StoreStep::kCommitWriting && id == "writer") {
      writing.Notify();
      release.WaitForNotification();
    }
  });
  std::thread commit([&] { EXPECT_TRUE(store_->Commit("writer", Batch(1, 5)).ok()); });
  ASSERT_TRUE(writing.WaitForNotificationWithTimeout(kDeadline));

  absl::Notification reads_done;
  std::thread reads([&] {
    EXPECT_EQ(store_->GetSession("reader")->last_seq, 3u);
    EXPECT_EQ(store_->GetSession("writer")->last_seq, 0u);  // not committed yet
    EXPECT_EQ(store_->ListSessions(10, "")->sessions.size(), 2u);
    auto page = store_->GetHistory("reader", "", 2, HistoryDirection::kBackward);
    ASSERT_TRUE(page.ok()) << page.status();
    EXPECT_EQ(page->events.size(), 2u);
    EXPECT_EQ(store_->ReadEvents("reader", 0, 100)->size(), 3u);
    EXPECT_EQ(store_->LoadContext("reader")->size(), 3u);
    EXPECT_EQ(*store_->FirstSeqOfTurn("reader", "t0"), 1u);
    EXPECT_TRUE(store_->ReadEvents("writer", 0, 100)->empty());
    reads_done.Notify();
  });
  EXPECT_TRUE(reads_done.WaitForNotificationWithTimeout(kDeadline))
      << "reads waited for another session's commit";
  release.Notify();
  reads.join();
  commit.join();
  EXPECT_EQ(store_->GetSession("writer")->last_seq, 5u);
}

// A read holding its connection and snapshot does not stop other reads (of
// the same or another session) nor a commit; it keeps seeing its snapshot.
TEST_F(SessionStoreConcurrencyTest, ReadsDoNotWaitForEachOther) {
  StoreOptions options;
  options.read_connections = 2;
  Open(options);
  ASSERT_TRUE(store_->CreateSession(Session("a", 10)).ok());
  ASSERT_TRUE(store_->CreateSession(Session("b", 20)).ok());
  ASSERT_TRUE(store_->Commit("a", Batch(1, 2)).ok());

  absl::Notification reading, release;
  hook_.Set([&](StoreStep step, const std::string& id) {
    if (step == StoreStep::kReading && id == "a" && !reading.HasBeenNotified()) {
      reading.Notify();
      release.WaitForNotification();
    }
  });
  std::thread slow([&] {
    auto events = store_->ReadEvents("a", 0, 100);
    ASSERT_TRUE(events.ok());
    EXPECT_EQ(events->size(), 2u);  // its snapshot, taken before the commit below
  });
  ASSERT_TRUE(reading.WaitForNotificationWithTimeout(kDeadline));

  absl::Notification others_done;
  std::thread others([&] {
    EXPECT_TRUE(store_->GetSession("b").ok());
    EXPECT_TRUE(store_->Commit("a", Batch(3, 1)).ok());
    EXPECT_EQ(store_->ReadEvents("a", 0, 100)->size(), 3u);
    others_done.Notify();
  });
  EXPECT_TRUE(others_done.WaitForNotificationWithTimeout(kDeadline))
      << "a read or a commit waited for another read";
  release.Notify();
  slow.join();
  others.join();
}

// A purge hides the expired session at once, then deletes it a batch at a
// time: between two batches the writer is free, so another session
// commits, and reads see the expired session gone though some of its rows
// are still on disk.
TEST_F(SessionStoreConcurrencyTest, PurgeDeletesInBatchesAndOthersCommitBetween) {
  StoreOptions options;
  options.removal_batch_rows = 10;
  Open(options);
  ASSERT_TRUE(store_->CreateSession(Session("old", 100)).ok());
  ASSERT_TRUE(store_->CreateSession(Session("live", 5000)).ok());
  ASSERT_TRUE(store_->Commit("old", Batch(1, 35)).ok());

  int batches = 0;
  bool checked = false;
  hook_.Set([&](StoreStep step, const std::string& id) {
    if (step != StoreStep::kRemovalBatchDone || id != "old") return;
    ++batches;
    if (checked) return;
    checked = true;
    // The purge is between two transactions: this thread may write.
    EXPECT_TRUE(store_->Commit("live", Batch(1, 2)).ok());
    EXPECT_EQ(store_->GetHistory("live", "", 10, HistoryDirection::kForward)->events.size(), 2u);
    EXPECT_EQ(store_->GetSession("old").status().code(), absl::StatusCode::kNotFound);
    EXPECT_EQ(store_->GetHistory("old", "", 10, HistoryDirection::kForward).status().code(),
              absl::StatusCode::kNotFound);
    EXPECT_EQ(store_->LoadContext("old").status().code(), absl::StatusCode::kNotFound);
    EXPECT_EQ(store_->FirstSeqOfTurn("old", "t1").status().code(), absl::StatusCode::kNotFound);
    EXPECT_EQ(store_->Commit("old", Batch(36, 1)).code(), absl::StatusCode::kNotFound);
    auto list = store_->ListSessions(10, "");
    ASSERT_EQ(list->sessions.size(), 1u);
    EXPECT_EQ(list->sessions[0].id, "live");
    EXPECT_EQ(RowsOf(path_, "events", "old"), 25);
    EXPECT_EQ(RowsOf(path_, "context_items", "old"), 25);
  });
  auto removed = store_->PurgeExpired(1000);
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_THAT(removed->removed, ElementsAre("old"));
  EXPECT_EQ(batches, 4);  // 10 + 10 + 10 + 5 rows
  EXPECT_EQ(RowsOf(path_, "events", "old"), 0);
  EXPECT_EQ(RowsOf(path_, "context_items", "old"), 0);
  EXPECT_EQ(store_->GetSession("live")->last_seq, 2u);
}

// DeleteSession removes a large session the same way.
TEST_F(SessionStoreConcurrencyTest, DeleteSessionDeletesInBatches) {
  StoreOptions options;
  options.removal_batch_rows = 10;
  Open(options);
  ASSERT_TRUE(store_->CreateSession(Session("big", 100)).ok());
  ASSERT_TRUE(store_->CreateSession(Session("other", 100)).ok());
  ASSERT_TRUE(store_->Commit("big", Batch(1, 30)).ok());
  int batches = 0;
  hook_.Set([&](StoreStep step, const std::string& id) {
    if (step != StoreStep::kRemovalBatchDone) return;
    EXPECT_EQ(id, "big");
    if (++batches == 1) {
      EXPECT_TRUE(store_->Commit("other", Batch(1, 1)).ok());
    }
  });
  ASSERT_TRUE(store_->DeleteSession("big").ok());
  EXPECT_EQ(batches, 4);  // three full batches, then the row itself
  EXPECT_EQ(store_->DeleteSession("big").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(RowsOf(path_, "events", "big"), 0);
  EXPECT_EQ(store_->GetSession("other")->last_seq, 1u);
}

// A removal cut short (the process died between batches) leaves a hidden
// session with some rows; the next purge finishes it, whatever its age.
TEST_F(SessionStoreConcurrencyTest, PurgeFinishesARemovalCutShort) {
  Open();
  ASSERT_TRUE(store_->CreateSession(Session("half", 9000)).ok());
  ASSERT_TRUE(store_->CreateSession(Session("kept", 9000)).ok());
  ASSERT_TRUE(store_->Commit("half", Batch(1, 5)).ok());
  {
    auto db = *Database::Open(path_);
    ASSERT_TRUE(db->Exec("UPDATE sessions SET removing = 1 WHERE id = 'half'; "
                         "DELETE FROM events WHERE session_id = 'half' AND seq <= 2")
                    .ok());
  }
  EXPECT_EQ(store_->GetSession("half").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->ListSessions(10, "")->sessions.size(), 1u);

  auto removed = store_->PurgeExpired(1000);  // nothing is that old
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_THAT(removed->removed, ElementsAre("half"));
  EXPECT_EQ(RowsOf(path_, "events", "half"), 0);
  EXPECT_EQ(RowsOf(path_, "context_items", "half"), 0);
  EXPECT_TRUE(store_->GetSession("kept").ok());
}

// A batch that fails after the mark (a full disk; here a trigger refuses
// the delete) leaves the session hidden and says so; FinishRemovals, which
// marks nothing new, deletes the rest.
TEST_F(SessionStoreConcurrencyTest, ARemovalWhoseBatchFailedIsFinishedLater) {
  Open();
  ASSERT_TRUE(store_->CreateSession(Session("gone", 100)).ok());
  ASSERT_TRUE(store_->CreateSession(Session("old_but_kept", 100)).ok());
  ASSERT_TRUE(store_->Commit("gone", Batch(1, 5)).ok());
  {
    auto db = *Database::Open(path_);
    ASSERT_TRUE(db->Exec("CREATE TRIGGER refuse BEFORE DELETE ON events "
                         "BEGIN SELECT RAISE(ABORT, 'disk is full'); END")
                    .ok());
  }
  bool hidden = false;
  absl::Status deleted = store_->DeleteSession("gone", &hidden);
  EXPECT_FALSE(deleted.ok());
  EXPECT_TRUE(hidden);
  EXPECT_NE(deleted.message().find("session gone is removed, but deleting its stored rows failed"),
            std::string::npos)
      << deleted;
  EXPECT_EQ(store_->GetSession("gone").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(RowsOf(path_, "events", "gone"), 5);

  {
    auto db = *Database::Open(path_);
    ASSERT_TRUE(db->Exec("DROP TRIGGER refuse").ok());
  }
  auto finished = store_->FinishRemovals();
  ASSERT_TRUE(finished.ok()) << finished.status();
  EXPECT_THAT(finished->removed, ElementsAre("gone"));
  EXPECT_EQ(RowsOf(path_, "events", "gone"), 0);
  EXPECT_EQ(RowsOf(path_, "context_items", "gone"), 0);
  EXPECT_TRUE(store_->GetSession("old_but_kept").ok());
  EXPECT_THAT(store_->FinishRemovals()->removed, ::testing::IsEmpty());
}

// After a purge the free pages go back a step at a time, each step its own
// transaction with the writer released in between.
TEST_F(SessionStoreConcurrencyTest, SpaceComesBackInSteps) {
  StoreOptions options;
  options.vacuum_step_pages = 8;
  Open(options);
  ASSERT_TRUE(store_->CreateSession(Session("old", 100)).ok());
  CommitBatch big = Batch(1, 200);
  for (auto& event : big.events) {
    std::get<events::AssistantMessage>(event.payload).text = std::string(2000, 'x');
  }
  ASSERT_TRUE(store_->Commit("old", big).ok());
  int removal_writes = 0;
  hook_.Set([&](StoreStep step, const std::string& id) {
    if (step == StoreStep::kRemovalWriting && id.empty()) ++removal_writes;
  });
  ASSERT_THAT(store_->PurgeExpired(1000)->removed, ElementsAre("old"));
  // The marking transaction, then about 100 pages in steps of 8.
  EXPECT_GT(removal_writes, 10);
  auto db = *Database::Open(path_);
  EXPECT_EQ(*db->QueryInt64("PRAGMA freelist_count"), 0);
}

// A second connection holding the write lock (another process, say) does
// not stop the store's reads.
TEST_F(SessionStoreConcurrencyTest, ReadsProceedWhileAnotherConnectionWrites) {
  Open();
  ASSERT_TRUE(store_->CreateSession(Session("s1", 10)).ok());
  ASSERT_TRUE(store_->Commit("s1", Batch(1, 2)).ok());
  auto other = *Database::Open(path_);
  ASSERT_TRUE(other->Exec("BEGIN IMMEDIATE; UPDATE sessions SET title = 'x'").ok());
  EXPECT_EQ(store_->GetSession("s1")->title, "");
  EXPECT_EQ(store_->GetHistory("s1", "", 10, HistoryDirection::kForward)->events.size(), 2u);
  ASSERT_TRUE(other->Exec("COMMIT").ok());
  EXPECT_EQ(store_->GetSession("s1")->title, "x");
}

// An in-memory database runs on one connection and still works from many
// threads.
TEST(SessionStoreMemoryTest, InMemoryStoreServesReadsAndWrites) {
  auto store = SessionStore::Open(":memory:");
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->CreateSession(Session("s1", 10)).ok());
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int n = 0; n < 20; ++n) EXPECT_TRUE((*store)->GetSession("s1").ok());
    });
  }
  ASSERT_TRUE((*store)->Commit("s1", Batch(1, 3)).ok());
  for (auto& t : threads) t.join();
  EXPECT_EQ((*store)->ReadEvents("s1", 0, 10)->size(), 3u);
  ASSERT_TRUE((*store)->DeleteSession("s1").ok());
  EXPECT_EQ((*store)->GetSession("s1").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace raw::store
