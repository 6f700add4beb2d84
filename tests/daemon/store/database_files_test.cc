#include "daemon/store/database_files.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::ReadFileBytes;
using testing::TempDir;

void Touch(const std::string& path) { std::ofstream(path) << "x"; }

TEST(FindOldDatabasesTest, ListsOtherGenerationsSorted) {
  TempDir dir;
  for (const char* name : {"sessions.sqlite3", "sessions.db", "sessions-v0.sqlite3",
                           "sessions-v2.sqlite3", "sessions-v10.sqlite3",
                           // Not session databases of another generation:
                           "sessions-v1.sqlite3", "sessions-v1.sqlite3-wal",
                           "sessions-v2.sqlite3-wal", "sessions.db-shm", "sessions-v.sqlite3",
                           "sessions-vx.sqlite3", "sessions-v2.db", "other.sqlite3", "rawd.log"}) {
    Touch(dir.File(name));
  }
  std::filesystem::create_directory(dir.File("sessions-v3.sqlite3"));  // not a file
  EXPECT_THAT(FindOldDatabases(dir.path()),
              ElementsAre(dir.File("sessions-v0.sqlite3"), dir.File("sessions-v10.sqlite3"),
                          dir.File("sessions-v2.sqlite3"), dir.File("sessions.db"),
                          dir.File("sessions.sqlite3")));
}

TEST(FindOldDatabasesTest, NothingToFind) {
  TempDir dir;
  EXPECT_THAT(FindOldDatabases(dir.path()), IsEmpty());
  Touch(dir.File(DatabaseFileName()));
  EXPECT_THAT(FindOldDatabases(dir.path()), IsEmpty());
  EXPECT_THAT(FindOldDatabases(dir.File("missing")), IsEmpty());
}

struct FileState {
  std::string bytes;
  timespec mtime{};
};

FileState StateOf(const std::string& path) {
  FileState state;
  state.bytes = ReadFileBytes(path);
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  state.mtime = st.st_mtim;
  return state;
}

void ExpectUnchanged(const std::string& path, const FileState& before) {
  FileState now = StateOf(path);
  EXPECT_EQ(now.bytes, before.bytes) << path;
  EXPECT_EQ(now.mtime.tv_sec, before.mtime.tv_sec) << path;
  EXPECT_EQ(now.mtime.tv_nsec, before.mtime.tv_nsec) << path;
  EXPECT_FALSE(std::filesystem::exists(path + "-wal")) << path;
  EXPECT_FALSE(std::filesystem::exists(path + "-shm")) << path;
  EXPECT_FALSE(std::filesystem::exists(path + "-journal")) << path;
}

// Old databases (real SQLite files, one with a rollback journal header, one
// with a WAL header) stay byte-for-byte as they were, with the same
// modification time, while the current database is used beside them.
TEST(FindOldDatabasesTest, OldFilesAreNeverOpenedOrModified) {
  TempDir dir;
  const std::vector<std::string> old = {dir.File("sessions-v2.sqlite3"),  // sorted
                                        dir.File("sessions.sqlite3")};
  for (const std::string& path : old) {
    auto db = *Database::Open(path);
    ASSERT_TRUE(
        db->Exec("CREATE TABLE sessions (id TEXT); INSERT INTO sessions VALUES ('x')").ok());
    if (path == old[0]) {
      ASSERT_TRUE(db->Exec("PRAGMA journal_mode=DELETE").ok());
    }
  }
  // A fixed past modification time, so that any write would show.
  const timespec past[2] = {{1'600'000'000, 123}, {1'600'000'000, 456}};
  std::vector<FileState> before;
  for (const std::string& path : old) {
    ASSERT_FALSE(std::filesystem::exists(path + "-wal"));
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), past, 0), 0);
    before.push_back(StateOf(path));
  }

  EXPECT_EQ(FindOldDatabases(dir.path()), old);
  for (size_t i = 0; i < old.size(); ++i) ExpectUnchanged(old[i], before[i]);

  {
    auto store = SessionStore::Open(dir.File(DatabaseFileName()));
    ASSERT_TRUE(store.ok()) << store.status();
    SessionRecord record;
    record.id = "s1";
    record.last_activity_unix_ms = 10;
    ASSERT_TRUE((*store)->CreateSession(record).ok());
    for (const std::string& path : FindOldDatabases(dir.path())) {
      ASSERT_TRUE((*store)->NoteOnce("old_database:" + path).ok());
    }
    ASSERT_TRUE((*store)->PurgeExpired(20).ok());
  }
  EXPECT_EQ(FindOldDatabases(dir.path()), old);
  for (size_t i = 0; i < old.size(); ++i) ExpectUnchanged(old[i], before[i]);
}

}  // namespace
}  // namespace raw::store
