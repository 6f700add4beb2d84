// SessionStore::PurgeExpired: which sessions go, what goes with them, the
// space given back on disk, and reads that never renew a session.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "daemon/store/migrator.h"
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
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::RowsOf;
using testing::Session;
using testing::TempDir;

int64_t DatabaseFileSize(const std::string& path) {
  std::error_code error;
  auto size = std::filesystem::file_size(path, error);
  return error ? 0 : static_cast<int64_t>(size);
}

// The database file and its WAL: what the data takes on disk.
int64_t DiskSize(const std::string& path) {
  return DatabaseFileSize(path) + DatabaseFileSize(path + "-wal");
}

// `count` events of about `bytes` each, plus as many context items, in
// commits that do not count as conversation activity.
void Fill(SessionStore& store, const std::string& id, int count, size_t bytes) {
  const std::string text(bytes, 'x');
  constexpr int kPerCommit = 500;
  for (int first = 1; first <= count; first += kPerCommit) {
    CommitBatch batch;
    for (int seq = first; seq < first + kPerCommit && seq <= count; ++seq) {
      SessionEvent event;
      event.seq = static_cast<uint64_t>(seq);
      event.turn_id = "t" + std::to_string(seq / 10);
      event.time_unix_ms = 1;
      event.payload = events::AssistantMessage{text, "", 1};
      batch.events.push_back(std::move(event));
      batch.context_appends.push_back(events::UserText{text});
    }
    ASSERT_TRUE(store.Commit(id, batch).ok());
  }
}

std::unique_ptr<SessionStore> OpenStore(const std::string& path) {
  auto opened = SessionStore::Open(path);
  EXPECT_TRUE(opened.ok()) << opened.status();
  return opened.ok() ? std::move(opened).value() : nullptr;
}

// Purges a large session from `store` at `path` and checks what is left.
void PurgeLargeSessionAndCheck(SessionStore& store, const std::string& path) {
  ASSERT_TRUE(store.CreateSession(Session("old_big", 1000)).ok());
  ASSERT_TRUE(store.CreateSession(Session("old_small", 500)).ok());
  ASSERT_TRUE(store.CreateSession(Session("at_cutoff", 3000)).ok());
  ASSERT_TRUE(store.CreateSession(Session("recent", 5000)).ok());
  Fill(store, "old_big", 2000, 2000);  // about 8 MB of history and context
  Fill(store, "old_small", 5, 10);
  Fill(store, "recent", 30, 100);
  const int64_t full = DiskSize(path);
  ASSERT_GT(full, 8'000'000);

  auto removed = store.PurgeExpired(3000);
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_THAT(removed->removed,
              ElementsAre("old_small", "old_big"));  // least recently active first

  EXPECT_LT(DatabaseFileSize(path), full / 4);
  EXPECT_EQ(DatabaseFileSize(path + "-wal"), 0);
  for (const char* id : {"old_big", "old_small"}) {
    EXPECT_EQ(store.GetSession(id).status().code(), absl::StatusCode::kNotFound);
    EXPECT_EQ(RowsOf(path, "events", id), 0);
    EXPECT_EQ(RowsOf(path, "context_items", id), 0);
  }
  // Sessions active at or after the cutoff stay whole.
  EXPECT_TRUE(store.GetSession("at_cutoff").ok());
  auto recent = store.GetSession("recent");
  ASSERT_TRUE(recent.ok());
  EXPECT_EQ(recent->last_seq, 30u);
  EXPECT_EQ(store.ReadEvents("recent", 0, 100)->size(), 30u);
  EXPECT_EQ(store.LoadContext("recent")->size(), 30u);
  EXPECT_EQ(*store.FirstSeqOfTurn("recent", "t2"), 20u);
}

TEST(SessionPurgeTest, RemovesExpiredSessionsAndShrinksTheFile) {
  TempDir dir;
  const std::string path = dir.File(DatabaseFileName());
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  PurgeLargeSessionAndCheck(*store, path);
}

// A file made by an earlier build has no auto-vacuum: opening the store
// converts it once (one VACUUM before it serves anything), so the purge
// gives space back in steps like on a file the store created.
TEST(SessionPurgeTest, FileWithoutAutoVacuumIsConvertedWhenOpened) {
  TempDir dir;
  const std::string path = dir.File(DatabaseFileName());
  {
    DatabaseOptions options;
    options.new_auto_vacuum = AutoVacuum::kNone;
    auto db = *Database::Open(path, options);
    ASSERT_TRUE(Migrate(*db).ok());
    ASSERT_TRUE(db->Exec("INSERT INTO sessions (id, agent, cwd, created_at, last_activity_at) "
                         "VALUES ('kept', 'coder', '/', 1, 9000)")
                    .ok());
    ASSERT_EQ(*db->GetAutoVacuum(), AutoVacuum::kNone);
  }
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(*Database::Open(path).value()->GetAutoVacuum(), AutoVacuum::kIncremental);
  EXPECT_TRUE(store->GetSession("kept").ok());
  PurgeLargeSessionAndCheck(*store, path);
}

TEST(SessionPurgeTest, NothingExpiredRemovesNothing) {
  TempDir dir;
  auto store = OpenStore(dir.File(DatabaseFileName()));
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(store->PurgeExpired(1'000'000)->removed, IsEmpty());
  ASSERT_TRUE(store->CreateSession(Session("s1", 2000)).ok());
  EXPECT_THAT(store->PurgeExpired(2000)->removed, IsEmpty());
  EXPECT_TRUE(store->GetSession("s1").ok());
  EXPECT_THAT(store->PurgeExpired(2001)->removed, ElementsAre("s1"));
}

// A session whose rows cannot be deleted (here a trigger refuses; a damaged
// page in the field) stays hidden and is named in the report; the other
// expired sessions go all the same, later purges go on expiring, and the
// session goes once its rows can be deleted.
TEST(SessionPurgeTest, ASessionThatCannotBeRemovedStopsNoOther) {
  TempDir dir;
  const std::string path = dir.File(DatabaseFileName());
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  for (auto [id, activity] : {std::pair{"stuck", 100}, {"old", 200}, {"later", 5000}}) {
    ASSERT_TRUE(store->CreateSession(Session(id, activity)).ok());
    Fill(*store, id, 20, 100);
  }
  {
    auto db = *Database::Open(path);
    ASSERT_TRUE(db->Exec("CREATE TRIGGER refuse BEFORE DELETE ON events "
                         "WHEN old.session_id = 'stuck' "
                         "BEGIN SELECT RAISE(ABORT, 'database disk image is malformed'); END")
                    .ok());
  }
  auto first = store->PurgeExpired(1000);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_THAT(first->removed, ElementsAre("old"));
  EXPECT_THAT(first->unfinished, ElementsAre("stuck"));
  EXPECT_FALSE(first->status.ok());
  EXPECT_THAT(first->status.message(), HasSubstr("session stuck "));
  EXPECT_THAT(first->status.message(), HasSubstr("database disk image is malformed"));
  EXPECT_EQ(RowsOf(path, "events", "old"), 0);
  EXPECT_EQ(store->GetSession("stuck").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(store->GetSession("later").ok());

  auto second = store->PurgeExpired(6000);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_THAT(second->removed, ElementsAre("later"));
  EXPECT_THAT(second->unfinished, ElementsAre("stuck"));
  EXPECT_THAT(second->status.message(), HasSubstr("session stuck "));
  EXPECT_EQ(RowsOf(path, "events", "later"), 0);

  {
    auto db = *Database::Open(path);
    ASSERT_TRUE(db->Exec("DROP TRIGGER refuse").ok());
  }
  auto finished = store->FinishRemovals();
  ASSERT_TRUE(finished.ok()) << finished.status();
  EXPECT_THAT(finished->removed, ElementsAre("stuck"));
  EXPECT_THAT(finished->unfinished, IsEmpty());
  EXPECT_TRUE(finished->status.ok()) << finished->status;
  EXPECT_EQ(RowsOf(path, "events", "stuck"), 0);
}

// Reading a session in every way leaves its last activity where it was, so
// a session that is only looked at still expires.
TEST(SessionPurgeTest, ReadingNeverRenewsASession) {
  TempDir dir;
  auto store = OpenStore(dir.File(DatabaseFileName()));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateSession(Session("s1", 1000)).ok());
  CommitBatch batch;
  for (uint64_t seq = 1; seq <= 5; ++seq) {
    SessionEvent event;
    event.seq = seq;
    event.turn_id = "t1";
    event.time_unix_ms = 4000;
    event.payload = events::UserMessage{"hello"};
    batch.events.push_back(event);
  }
  batch.context_appends = {events::UserText{"hello"}};
  batch.conversation_activity = true;
  ASSERT_TRUE(store->Commit("s1", batch).ok());
  ASSERT_EQ(store->GetSession("s1")->last_activity_unix_ms, 4000);

  ASSERT_TRUE(store->GetSession("s1").ok());
  ASSERT_EQ(store->ListSessions(10, "")->sessions.size(), 1u);
  auto forward = store->GetHistory("s1", "", 2, HistoryDirection::kForward);
  ASSERT_TRUE(forward.ok());
  ASSERT_TRUE(store->GetHistory("s1", forward->next_cursor, 2, HistoryDirection::kForward).ok());
  ASSERT_TRUE(store->GetHistory("s1", "", 2, HistoryDirection::kBackward).ok());
  ASSERT_EQ(store->ReadEvents("s1", 0, 100)->size(), 5u);
  ASSERT_EQ(store->LoadContext("s1")->size(), 1u);
  ASSERT_TRUE(store->FirstSeqOfTurn("s1", "t1").ok());

  EXPECT_EQ(store->GetSession("s1")->last_activity_unix_ms, 4000);
  EXPECT_EQ(store->ListSessions(10, "")->sessions[0].last_activity_unix_ms, 4000);
  EXPECT_THAT(store->PurgeExpired(4001)->removed, ElementsAre("s1"));
}

}  // namespace
}  // namespace raw::store
