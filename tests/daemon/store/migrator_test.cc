#include "daemon/store/migrator.h"

#include <filesystem>
#include <string>

#include "absl/strings/str_format.h"
#include "daemon/store/session_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using ::testing::HasSubstr;
using testing::ReadFileBytes;
using testing::TempDir;

int64_t UserVersion(Database& db) { return *db.QueryInt64("PRAGMA user_version"); }

bool TableExists(Database& db, const std::string& name) {
  auto select = *db.Prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1");
  select.BindString(0, name);
  return *select.Step() && select.ColumnInt(0) == 1;
}

size_t MigrationFilesInSourceTree() {
  size_t count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(RAW_SOURCE_DIR) + "/daemon/store/migrations")) {
    if (entry.path().extension() == ".sql") ++count;
  }
  return count;
}

TEST(MigratorTest, FreshDatabaseReachesTheNumberOfMigrations) {
  TempDir dir;
  auto db = *Database::Open(dir.File("s.db"));
  ASSERT_EQ(UserVersion(*db), 0);
  ASSERT_TRUE(Migrate(*db).ok());
  EXPECT_EQ(LatestSchemaVersion(), static_cast<int64_t>(MigrationFilesInSourceTree()));
  EXPECT_EQ(UserVersion(*db), LatestSchemaVersion());
  EXPECT_TRUE(TableExists(*db, "sessions"));
  EXPECT_TRUE(TableExists(*db, "events"));
  EXPECT_TRUE(TableExists(*db, "context_items"));
  // Running again is a no-op.
  ASSERT_TRUE(Migrate(*db).ok());
  EXPECT_EQ(UserVersion(*db), LatestSchemaVersion());
}

TEST(MigratorTest, BuiltInMigrationsAreNumberedInOrder) {
  std::vector<Migration> migrations = BuiltInMigrations();
  ASSERT_FALSE(migrations.empty());
  for (size_t i = 0; i < migrations.size(); ++i) {
    EXPECT_EQ(std::string(migrations[i].name).substr(0, 5), absl::StrFormat("%04d_", i + 1));
  }
}

TEST(MigratorTest, AppliesOnlyTheMissingMigrations) {
  std::vector<Migration> migrations = {
      {"0001_a.sql", "CREATE TABLE a (x INTEGER);"},
      {"0002_b.sql", "CREATE TABLE b (x INTEGER); INSERT INTO a VALUES (1);"},
  };
  auto db = *Database::Open(":memory:");
  ASSERT_TRUE(Migrate(*db, {migrations[0]}).ok());
  EXPECT_EQ(UserVersion(*db), 1);
  ASSERT_TRUE(Migrate(*db, migrations).ok());
  EXPECT_EQ(UserVersion(*db), 2);
  // 0001 did not run twice (it would fail: table a exists), 0002 ran once.
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM a"), 1);
}

TEST(MigratorTest, FailingMigrationIsRolledBackWholeAndNamed) {
  std::vector<Migration> migrations = {
      {"0001_a.sql", "CREATE TABLE a (x INTEGER);"},
      {"0002_broken.sql", "CREATE TABLE b (x INTEGER); INSERT INTO missing VALUES (1);"},
  };
  auto db = *Database::Open(":memory:");
  absl::Status status = Migrate(*db, migrations);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("migration 0002_broken.sql"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("no such table: missing"));
  EXPECT_EQ(UserVersion(*db), 1);
  EXPECT_TRUE(TableExists(*db, "a"));
  EXPECT_FALSE(TableExists(*db, "b"));
  EXPECT_FALSE(db->InTransaction());
}

TEST(MigratorTest, NewerDatabaseIsRefused) {
  auto db = *Database::Open(":memory:");
  ASSERT_TRUE(db->Exec("PRAGMA user_version = 5").ok());
  absl::Status status = Migrate(*db, {{"0001_a.sql", "CREATE TABLE a (x INTEGER);"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("schema version 5"));
  EXPECT_FALSE(TableExists(*db, "a"));
}

// A store file written by a newer Raw is refused and left byte-for-byte as it
// was, whether it uses WAL (as Raw's files do) or a rollback journal.
TEST(MigratorTest, SessionStoreRefusesFutureFileAndLeavesItUntouched) {
  for (const char* journal : {"WAL", "DELETE"}) {
    SCOPED_TRACE(journal);
    TempDir dir;
    const std::string path = dir.File(DatabaseFileName());
    {
      auto store = SessionStore::Open(path);
      ASSERT_TRUE(store.ok()) << store.status();
      SessionRecord record;
      record.id = "s1";
      ASSERT_TRUE((*store)->CreateSession(record).ok());
    }
    {
      auto db = *Database::Open(path);
      ASSERT_TRUE(db->Exec("PRAGMA user_version = " + std::to_string(LatestSchemaVersion() + 1))
                      .ok());
      ASSERT_TRUE(db->Exec(std::string("PRAGMA journal_mode=") + journal).ok());
    }
    ASSERT_FALSE(std::filesystem::exists(path + "-wal"));
    const std::string before = ReadFileBytes(path);

    auto store = SessionStore::Open(path);
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(store.status().message()), HasSubstr("newer"));
    EXPECT_THAT(std::string(store.status().message()), HasSubstr(path));
    EXPECT_EQ(ReadFileBytes(path), before);
  }
}

}  // namespace
}  // namespace raw::store
