// The store's WAL checkpoints run on WalCheckpointer's thread: a writer
// whose commits are hooked never checkpoints itself, and the checkpointer
// copies the WAL back into the database file once it passed its size.
#include "daemon/store/wal_checkpointer.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>

#include "common/thread_start.h"
#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using testing::TempDir;

// Commits about 1,600 pages (of 4 KiB) in 400 transactions.
void FillWal(Database& db) {
  ASSERT_TRUE(db.Exec("CREATE TABLE IF NOT EXISTS t (v BLOB)").ok());
  for (int i = 0; i < 400; ++i) {
    ASSERT_TRUE(db.Exec("INSERT INTO t VALUES (randomblob(16000))").ok());
  }
}

uintmax_t WalFileSize(const std::string& path) { return std::filesystem::file_size(path); }

TEST(WalCheckpointerTest, AHookedWriterNeverCheckpointsItself) {
  TempDir dir;
  // Without the hook SQLite checkpoints on the committing connection: the
  // WAL's pages reach the database file.
  {
    auto plain = Database::Open(dir.File("plain.db"));
    ASSERT_TRUE(plain.ok()) << plain.status();
    FillWal(**plain);
    EXPECT_GT(WalFileSize(dir.File("plain.db")), 4u * 1024 * 1024);
  }
  auto db = Database::Open(dir.File("hooked.db"));
  ASSERT_TRUE(db.ok()) << db.status();
  int largest = 0;
  (*db)->OnWalCommit([&largest](int pages) { largest = std::max(largest, pages); });
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t (v BLOB)").ok());
  const uintmax_t before = WalFileSize(dir.File("hooked.db"));
  FillWal(**db);
  EXPECT_GE(largest, WalCheckpointer::kWalPages);
  EXPECT_EQ(WalFileSize(dir.File("hooked.db")), before);  // everything is still in the WAL
}

TEST(WalCheckpointerTest, TheCheckpointerCopiesTheWalBackOnItsThread) {
  TempDir dir;
  auto db = Database::Open(dir.File("s.db"));
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t (v BLOB)").ok());
  auto checkpointer = WalCheckpointer::Start(dir.File("s.db"), 5000);
  ASSERT_TRUE(checkpointer.ok()) << checkpointer.status();
  WalCheckpointer* cp = checkpointer->get();
  (*db)->OnWalCommit([cp](int pages) { cp->Committed(pages); });
  const uintmax_t before = WalFileSize(dir.File("s.db"));
  FillWal(**db);
  ASSERT_TRUE(cp->AwaitCheckpoints(1, absl::Seconds(30)));
  EXPECT_GT(WalFileSize(dir.File("s.db")), before);
}

TEST(WalCheckpointerTest, TheStoreWritesTheWalsFirstFrameAtOpen) {
  // SQLite syncs the directory at the first sync of a WAL it created, and
  // the WAL is new each time the daemon starts (closing removed it): that
  // cost belongs to the open, not to the daemon's first commit in a turn.
  TempDir dir;
  const std::string path = dir.File("s.db");
  ASSERT_TRUE(SessionStore::Open(path).ok());
  ASSERT_FALSE(std::filesystem::exists(path + "-wal")) << "closing removes the WAL";
  absl::StatusOr<std::unique_ptr<SessionStore>> store = SessionStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_GT(WalFileSize(path + "-wal"), 0u) << "no frame was written at open";
}

// Without a thread to checkpoint on, opening the store fails and says why.
TEST(WalCheckpointerTest, WithoutAThreadTheStoreDoesNotOpen) {
  TempDir dir;
  RefuseThreadStartsForTesting refuse("checkpointing the database's write-ahead log");
  absl::StatusOr<std::unique_ptr<SessionStore>> store = SessionStore::Open(dir.File("s.db"));
  EXPECT_EQ(refuse.refused(), 1);
  EXPECT_TRUE(absl::IsResourceExhausted(store.status())) << store.status();
  EXPECT_EQ(store.status().message().find("could not start a thread for checkpointing"), 0u)
      << store.status();
}

}  // namespace
}  // namespace raw::store
