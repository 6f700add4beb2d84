// A sessions row whose sequence counters its history contradicts (written
// into a real database file through SQLite, as another program or a
// damaged disk could leave it) is put right when the store opens: the
// session numbers its next events after its newest stored one, and its
// commits go on. Other rows are left as they are.
#include <sqlite3.h>

#include <string>

#include "daemon/store/session_store.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using testing::TempDir;

SessionRecord RepairedSession(const std::string& id) {
  SessionRecord record;
  record.id = id;
  record.agent = "coder";
  record.cwd = "/";
  record.created_at_unix_ms = 1;
  record.last_activity_unix_ms = 1;
  return record;
}

events::SessionEvent CountedMessage(uint64_t seq) {
  events::SessionEvent event;
  event.seq = seq;
  event.turn_id = "turn_1";
  event.time_unix_ms = 5000;
  event.payload = events::AssistantMessage{"message " + std::to_string(seq), "", 1};
  return event;
}

void ExecOnFile(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  ASSERT_EQ(sqlite3_changes(db), 1);
  sqlite3_close(db);
}

class SeqRepairTest : public ::testing::Test {
 protected:
  std::unique_ptr<SessionStore> Open() {
    auto opened = SessionStore::Open(path_);
    EXPECT_TRUE(opened.ok()) << opened.status();
    return opened.ok() ? std::move(opened).value() : nullptr;
  }

  // Sessions "damaged" and "healthy", three events each; the store closed.
  void Seed() {
    std::unique_ptr<SessionStore> store = Open();
    ASSERT_NE(store, nullptr);
    for (const char* id : {"damaged", "healthy"}) {
      ASSERT_TRUE(store->CreateSession(RepairedSession(id)).ok());
      CommitBatch batch;
      batch.events = {CountedMessage(1), CountedMessage(2), CountedMessage(3)};
      batch.reserve_seqs_through = 10;
      ASSERT_TRUE(store->Commit(id, batch).ok());
    }
  }

  TempDir dir_;
  const std::string path_ = dir_.File(DatabaseFileName());
};

TEST_F(SeqRepairTest, ANegativeLastSeqIsSetToTheNewestEventAndCommitsGoOn) {
  Seed();
  ExecOnFile(path_, "UPDATE sessions SET last_seq = -3, seq_reserved = -7 WHERE id = 'damaged'");
  std::unique_ptr<SessionStore> store = Open();
  ASSERT_NE(store, nullptr);

  absl::StatusOr<SessionRecord> damaged = store->GetSession("damaged");
  ASSERT_TRUE(damaged.ok()) << damaged.status();
  EXPECT_EQ(damaged->last_seq, 3u);
  EXPECT_EQ(damaged->seq_reserved, 3u);
  CommitBatch next;
  next.events = {CountedMessage(4)};
  EXPECT_TRUE(store->Commit("damaged", next).ok());
  EXPECT_EQ(store->GetSession("damaged")->last_seq, 4u);

  absl::StatusOr<SessionRecord> healthy = store->GetSession("healthy");
  ASSERT_TRUE(healthy.ok()) << healthy.status();
  EXPECT_EQ(healthy->last_seq, 3u);
  EXPECT_EQ(healthy->seq_reserved, 10u);
}

TEST_F(SeqRepairTest, ALastSeqBelowTheStoredHistoryIsRaisedToIt) {
  Seed();
  ExecOnFile(path_, "UPDATE sessions SET last_seq = 1 WHERE id = 'damaged'");
  std::unique_ptr<SessionStore> store = Open();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<SessionRecord> damaged = store->GetSession("damaged");
  ASSERT_TRUE(damaged.ok()) << damaged.status();
  EXPECT_EQ(damaged->last_seq, 3u);
  EXPECT_EQ(damaged->seq_reserved, 10u);  // a reservation above it is kept
  auto events = store->ReadEvents("damaged", 0, 100);
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(events->size(), 3u);
}

}  // namespace
}  // namespace raw::store
