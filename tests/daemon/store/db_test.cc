#include "daemon/store/sqlite/db.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using ::testing::HasSubstr;
using testing::ReadFileBytes;
using testing::TempDir;

std::string Text(Database& db, const std::string& sql) {
  absl::StatusOr<Statement> statement = db.Prepare(sql);
  EXPECT_TRUE(statement.ok()) << statement.status();
  if (!statement.ok()) return "";
  absl::StatusOr<bool> row = statement->Step();
  EXPECT_TRUE(row.ok() && *row) << sql;
  return statement->ColumnString(0);
}

TEST(DatabaseTest, OpenConfiguresWalSynchronousForeignKeysAndBusyTimeout) {
  TempDir dir;
  DatabaseOptions options;
  options.busy_timeout_ms = 1234;
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(dir.File("a.db"), options);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ(Text(**db, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(*(*db)->QueryInt64("PRAGMA synchronous"), 1);  // NORMAL
  EXPECT_EQ(*(*db)->QueryInt64("PRAGMA foreign_keys"), 1);
  EXPECT_EQ(*(*db)->QueryInt64("PRAGMA busy_timeout"), 1234);
  EXPECT_EQ((*db)->path(), dir.File("a.db"));
}

TEST(DatabaseTest, InMemoryDatabaseOpens) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(":memory:");
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_TRUE((*db)->Exec("CREATE TABLE t (a INTEGER)").ok());
  EXPECT_EQ(*(*db)->QueryInt64("PRAGMA foreign_keys"), 1);
}

TEST(DatabaseTest, OpenInMissingDirectoryFailsWithSqliteMessage) {
  TempDir dir;
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(dir.File("no/such/dir/a.db"));
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("unable to open database file"));
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("no/such/dir/a.db"));
}

TEST(DatabaseTest, FileThatIsNotADatabaseIsDataLoss) {
  TempDir dir;
  std::ofstream(dir.File("junk.db")) << std::string(4096, 'x');
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(dir.File("junk.db"));
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("file is not a database"));
  EXPECT_EQ(ReadFileBytes(dir.File("junk.db")), std::string(4096, 'x'));
}

TEST(DatabaseTest, ExecErrorCarriesSqliteMessageAndSql) {
  auto db = *Database::Open(":memory:");
  absl::Status status = db->Exec("CREATE TABLE t (a INTEGER); INSERT INTO nowhere VALUES (1)");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("no such table: nowhere"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("INSERT INTO nowhere"));
}

TEST(DatabaseTest, PrepareErrorsCarrySqliteMessage) {
  auto db = *Database::Open(":memory:");
  absl::StatusOr<Statement> bad = db->Prepare("SELEC 1");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("syntax error"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("SELEC 1"));

  absl::StatusOr<Statement> two = db->Prepare("SELECT 1; SELECT 2");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(two.status().message()), HasSubstr("one statement"));
  // A trailing semicolon is still one statement.
  EXPECT_TRUE(db->Prepare("SELECT 1;  ").ok());
}

TEST(DatabaseTest, PrepareReusesCachedStatements) {
  auto db = *Database::Open(":memory:");
  ASSERT_TRUE(db->Exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2), (3)").ok());
  const std::string sql = "SELECT a FROM t WHERE a >= ?1 ORDER BY a";
  const size_t cached_before = db->CachedStatementCount();
  for (int round = 0; round < 3; ++round) {
    absl::StatusOr<Statement> select = db->Prepare(sql);
    ASSERT_TRUE(select.ok()) << select.status();
    select->BindInt(0, 2);
    ASSERT_TRUE(*select->Step());
    EXPECT_EQ(select->ColumnInt(0), 2);
    // Destroyed mid-iteration: the next Prepare gets it back reset and unbound.
  }
  EXPECT_EQ(db->CachedStatementCount(), cached_before + 1);

  // A handle given out again has no bindings left: an unbound ?1 is NULL,
  // and a >= NULL matches no row.
  absl::StatusOr<Statement> again = db->Prepare(sql);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again->Step());
  again->Reset();
  again->BindInt(0, 3);
  ASSERT_TRUE(*again->Step());
  EXPECT_EQ(again->ColumnInt(0), 3);
}

TEST(DatabaseTest, NestedUseOfTheSameSqlGetsASeparateStatement) {
  auto db = *Database::Open(":memory:");
  ASSERT_TRUE(db->Exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2)").ok());
  const std::string sql = "SELECT a FROM t ORDER BY a";
  const size_t cached_before = db->CachedStatementCount();
  absl::StatusOr<Statement> outer = db->Prepare(sql);
  ASSERT_TRUE(outer.ok());
  ASSERT_TRUE(*outer->Step());
  EXPECT_EQ(outer->ColumnInt(0), 1);
  {
    absl::StatusOr<Statement> inner = db->Prepare(sql);
    ASSERT_TRUE(inner.ok());
    ASSERT_TRUE(*inner->Step());
    EXPECT_EQ(inner->ColumnInt(0), 1);
    ASSERT_TRUE(*inner->Step());
    EXPECT_EQ(inner->ColumnInt(0), 2);
  }
  // The outer statement kept its own position.
  ASSERT_TRUE(*outer->Step());
  EXPECT_EQ(outer->ColumnInt(0), 2);
  EXPECT_FALSE(*outer->Step());
  EXPECT_EQ(db->CachedStatementCount(), cached_before + 1);
}

// A file that is not a database (or lost its header) is named in the
// error, with what to do, not only SQLite's "file is not a database".
TEST(DatabaseTest, AFileThatIsNotADatabaseIsNamedWithWhatToDo) {
  TempDir dir;
  const std::string path = dir.File("sessions.sqlite3");
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string(8192, 'x');
  }
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  DatabaseOptions options;
  options.cache_kib = 1024;
  auto db = Database::Open(path, options);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("file is not a database"));
  EXPECT_THAT(std::string(db.status().message()),
              HasSubstr(path + " is damaged or is not a Raw session database"));
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("move it aside"));
  EXPECT_EQ(ReadFileBytes(path), std::string(8192, 'x'));
}

TEST(DatabaseTest, NewerUserVersionIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  const std::string path = dir.File("future.db");
  {
    // A database in rollback-journal mode: switching it to WAL would rewrite
    // its header, so the refusal must come first.
    auto db = *Database::Open(path);
    ASSERT_TRUE(db->Exec("PRAGMA journal_mode=DELETE; CREATE TABLE t (a INTEGER); "
                         "PRAGMA user_version = 9")
                    .ok());
  }
  const std::string before = ReadFileBytes(path);
  ASSERT_FALSE(before.empty());
  DatabaseOptions options;
  options.max_user_version = 3;
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path, options);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("schema version 9"));
  EXPECT_THAT(std::string(db.status().message()), HasSubstr("up to 3"));
  EXPECT_EQ(ReadFileBytes(path), before);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));

  options.max_user_version = 9;
  EXPECT_TRUE(Database::Open(path, options).ok());
}


mode_t PermissionBits(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(DatabaseTest, NewFileAndItsWalAndShmArePrivate) {
  TempDir dir;
  const std::string path = dir.File("a.db");
  auto db = *Database::Open(path);
  ASSERT_TRUE(db->Exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1)").ok());
  EXPECT_EQ(PermissionBits(path), 0600u);
  ASSERT_TRUE(std::filesystem::exists(path + "-wal"));
  EXPECT_EQ(PermissionBits(path + "-wal"), 0600u);
  EXPECT_EQ(PermissionBits(path + "-shm"), 0600u);
}

// A file others may read (a copy made with umask 022, an earlier build)
// loses the others' permission bits when opened, and so do the -wal and
// -shm files SQLite then makes from its mode; the owner's bits stay.
TEST(DatabaseTest, AnExistingFileOpenToOthersIsMadePrivate) {
  TempDir dir;
  const std::string path = dir.File("a.db");
  int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fchmod(fd, 0644), 0);
  close(fd);
  auto db = Database::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1)").ok());
  EXPECT_EQ(PermissionBits(path), 0600u);
  EXPECT_EQ(PermissionBits(path + "-wal"), 0600u);
  EXPECT_EQ(PermissionBits(path + "-shm"), 0600u);
}

// A database file that is a symbolic link (another user who can write the
// state directory could plant one to a file of theirs) is refused, naming
// it, and the file it points to is neither used nor changed.
TEST(DatabaseTest, ASymlinkedFileIsRefused) {
  TempDir dir;
  const std::string elsewhere = dir.File("stolen.db");
  {
    auto db = *Database::Open(elsewhere);
    ASSERT_TRUE(db->Exec("PRAGMA journal_mode=DELETE; CREATE TABLE t (a INTEGER)").ok());
  }
  ASSERT_EQ(chmod(elsewhere.c_str(), 0666), 0);
  const std::string before = ReadFileBytes(elsewhere);
  const std::string path = dir.File("sessions.sqlite3");
  ASSERT_EQ(symlink(elsewhere.c_str(), path.c_str()), 0);
  for (OpenMode mode : {OpenMode::kReadWrite, OpenMode::kReadOnly}) {
    auto db = Database::Open(path, {.mode = mode});
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(db.status().message()), HasSubstr(path + " is a symbolic link"));
  }
  EXPECT_EQ(ReadFileBytes(elsewhere), before);
  EXPECT_EQ(PermissionBits(elsewhere), 0666u);
  EXPECT_FALSE(std::filesystem::exists(elsewhere + "-wal"));
}

// A file with a second name (a hard link another user made to it, or to
// one of theirs) is refused too.
TEST(DatabaseTest, AFileWithTwoNamesIsRefused) {
  TempDir dir;
  const std::string path = dir.File("a.db");
  { ASSERT_TRUE(Database::Open(path).ok()); }
  ASSERT_EQ(link(path.c_str(), dir.File("b.db").c_str()), 0);
  auto db = Database::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(db.status().message()), HasSubstr(path + " has 2 names"));
}

// A state directory reached through a symbolic link is fine: only the file
// itself must not be one.
TEST(DatabaseTest, ADirectoryReachedThroughALinkIsFine) {
  TempDir dir;
  ASSERT_EQ(mkdir(dir.File("real").c_str(), 0700), 0);
  ASSERT_EQ(symlink(dir.File("real").c_str(), dir.File("link").c_str()), 0);
  auto db = Database::Open(dir.File("link") + "/a.db");
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t (a INTEGER)").ok());
  EXPECT_TRUE(std::filesystem::exists(dir.File("real") + "/a.db"));
}

TEST(DatabaseTest, NewFileGetsIncrementalAutoVacuumExistingOneKeepsItsMode) {
  TempDir dir;
  {
    auto db = *Database::Open(dir.File("new.db"));
    ASSERT_TRUE(db->Exec("CREATE TABLE t (a INTEGER)").ok());
    EXPECT_EQ(*db->GetAutoVacuum(), AutoVacuum::kIncremental);
  }
  {
    DatabaseOptions options;
    options.new_auto_vacuum = AutoVacuum::kNone;  // as an earlier build made them
    auto db = *Database::Open(dir.File("old.db"), options);
    ASSERT_TRUE(db->Exec("CREATE TABLE t (a INTEGER)").ok());
    EXPECT_EQ(*db->GetAutoVacuum(), AutoVacuum::kNone);
  }
  auto reopened = *Database::Open(dir.File("old.db"));
  EXPECT_EQ(*reopened->GetAutoVacuum(), AutoVacuum::kNone);
  EXPECT_EQ(*Database::Open(dir.File("new.db")).value()->GetAutoVacuum(),
            AutoVacuum::kIncremental);
}

int64_t FileSize(const std::string& path) {
  std::error_code error;
  auto size = std::filesystem::file_size(path, error);
  return error ? 0 : static_cast<int64_t>(size);
}

// Writes about 8 MB, deletes it, reclaims: the file and its WAL shrink.
TEST(DatabaseTest, ReclaimSpaceShrinksTheFileWithOrWithoutAutoVacuum) {
  for (AutoVacuum mode : {AutoVacuum::kIncremental, AutoVacuum::kNone}) {
    SCOPED_TRACE(static_cast<int>(mode));
    TempDir dir;
    const std::string path = dir.File("a.db");
    DatabaseOptions options;
    options.new_auto_vacuum = mode;
    auto db = *Database::Open(path, options);
    ASSERT_TRUE(db->Exec("CREATE TABLE keep (a TEXT); INSERT INTO keep VALUES ('kept');"
                         "CREATE TABLE big (a BLOB);"
                         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                         "WHERE i < 2000) INSERT INTO big SELECT randomblob(4000) FROM n;"
                         "PRAGMA wal_checkpoint(TRUNCATE)")
                    .ok());
    const int64_t full = FileSize(path);
    ASSERT_GT(full, 8'000'000);
    ASSERT_TRUE(db->Exec("DELETE FROM big").ok());
    ASSERT_TRUE(db->ReclaimSpace().ok());
    EXPECT_LT(FileSize(path), full / 10);
    EXPECT_EQ(FileSize(path + "-wal"), 0);
    EXPECT_EQ(*db->QueryInt64("PRAGMA freelist_count"), 0);
    EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM keep"), 1);
  }
}

TEST(DatabaseTest, ReclaimSpaceInsideATransactionIsRefused) {
  auto db = *Database::Open(":memory:");
  ASSERT_TRUE(db->Exec("BEGIN").ok());
  absl::Status status = db->ReclaimSpace();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("inside a transaction"));
}

}  // namespace
}  // namespace raw::store
