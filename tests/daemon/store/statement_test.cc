#include "daemon/store/sqlite/statement.h"

#include <cstdint>
#include <limits>
#include <string>

#include "daemon/store/sqlite/db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::store {
namespace {

using ::testing::HasSubstr;

// Narrowing and reinterpreting binds must not compile.
template <typename T>
concept CanBindInt = requires(Statement& s, T v) { s.BindInt(0, v); };
template <typename T>
concept CanBindInt64 = requires(Statement& s, T v) { s.BindInt64(0, v); };
template <typename T>
concept CanBindBool = requires(Statement& s, T v) { s.BindBool(0, v); };

static_assert(CanBindInt<int>);
static_assert(CanBindInt<int16_t>);
static_assert(!CanBindInt<int64_t>);
static_assert(!CanBindInt<uint32_t>);
static_assert(!CanBindInt<double>);
static_assert(!CanBindInt<bool>);
static_assert(CanBindInt64<int64_t>);
static_assert(CanBindInt64<int>);
static_assert(CanBindInt64<uint32_t>);
static_assert(!CanBindInt64<uint64_t>);
static_assert(!CanBindInt64<double>);
static_assert(!CanBindInt64<bool>);
static_assert(CanBindBool<bool>);
static_assert(!CanBindBool<int>);

class StatementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = Database::Open(":memory:");
    ASSERT_TRUE(opened.ok()) << opened.status();
    db_ = std::move(opened).value();
    ASSERT_TRUE(db_->Exec("CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, "
                          "b BLOB, f INTEGER, n TEXT)")
                    .ok());
  }
  std::unique_ptr<Database> db_;
};

TEST_F(StatementTest, TypedBindsAndColumnsRoundTrip) {
  const std::string text("h\xC3\xA9llo\0world", 12);
  const std::string blob("\x00\x01\xFF\x7F", 4);
  {
    auto insert = *db_->Prepare("INSERT INTO t (id, i, r, s, b, f, n) VALUES (?, ?, ?, ?, ?, ?, ?)");
    insert.BindInt(0, 7);
    insert.BindInt64(1, std::numeric_limits<int64_t>::min());
    insert.BindDouble(2, 2.5);
    insert.BindString(3, text);
    insert.BindBlob(4, blob);
    insert.BindBool(5, true);
    insert.BindNull(6);
    ASSERT_TRUE(insert.Run().ok());
  }
  EXPECT_EQ(db_->LastInsertRowId(), 7);
  EXPECT_EQ(db_->ChangedRows(), 1);

  auto select = *db_->Prepare("SELECT id, i, r, s, b, f, n FROM t");
  ASSERT_TRUE(*select.Step());
  EXPECT_EQ(select.ColumnCount(), 7);
  EXPECT_EQ(select.ColumnInt(0), 7);
  EXPECT_EQ(select.ColumnInt64(1), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(select.GetColumnType(1), ColumnType::kInteger);
  EXPECT_DOUBLE_EQ(select.ColumnDouble(2), 2.5);
  EXPECT_EQ(select.GetColumnType(2), ColumnType::kFloat);
  EXPECT_EQ(select.ColumnString(3), text);  // embedded NUL kept
  EXPECT_EQ(select.GetColumnType(3), ColumnType::kText);
  EXPECT_EQ(select.ColumnBlob(4), blob);
  EXPECT_EQ(select.GetColumnType(4), ColumnType::kBlob);
  EXPECT_TRUE(select.ColumnBool(5));
  EXPECT_EQ(select.GetColumnType(6), ColumnType::kNull);
  EXPECT_EQ(select.ColumnString(6), "");
  EXPECT_FALSE(*select.Step());
}

TEST_F(StatementTest, BindErrorIsReportedByStepAndClearedByReset) {
  auto select = *db_->Prepare("SELECT ?1");
  select.BindInt(3, 1);  // there is one parameter
  absl::StatusOr<bool> row = select.Step();
  ASSERT_FALSE(row.ok());
  EXPECT_THAT(std::string(row.status().message()), HasSubstr("column index out of range"));
  EXPECT_THAT(std::string(row.status().message()), HasSubstr("binding parameter 3 of: SELECT ?1"));

  select.Reset();
  select.BindString(0, "ok");
  row = select.Step();
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(select.ColumnString(0), "ok");
}

TEST_F(StatementTest, ConstraintViolationIsAlreadyExistsWithSqliteMessage) {
  ASSERT_TRUE(db_->Exec("INSERT INTO t (id) VALUES (1)").ok());
  auto insert = *db_->Prepare("INSERT INTO t (id) VALUES (?1)");
  insert.BindInt(0, 1);
  absl::Status status = insert.Run();
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(status.message()), HasSubstr("UNIQUE constraint failed: t.id"));
  // The statement is usable again after the error.
  insert.Reset();
  insert.BindInt(0, 2);
  EXPECT_TRUE(insert.Run().ok());
}

TEST_F(StatementTest, RunRefusesAStatementThatReturnsRows) {
  auto select = *db_->Prepare("SELECT 1");
  absl::Status status = select.Run();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), HasSubstr("SELECT 1"));
}

TEST_F(StatementTest, ResetRunsTheStatementAgain) {
  ASSERT_TRUE(db_->Exec("INSERT INTO t (id) VALUES (1), (2)").ok());
  auto select = *db_->Prepare("SELECT count(*) FROM t WHERE id > ?1");
  select.BindInt(0, 0);
  ASSERT_TRUE(*select.Step());
  EXPECT_EQ(select.ColumnInt(0), 2);
  select.Reset();
  select.BindInt(0, 1);
  ASSERT_TRUE(*select.Step());
  EXPECT_EQ(select.ColumnInt(0), 1);
}

TEST_F(StatementTest, MovedFromHandleReleasesNothingTwice) {
  auto first = *db_->Prepare("SELECT 1");
  Statement second = std::move(first);
  ASSERT_TRUE(*second.Step());
  EXPECT_EQ(second.ColumnInt(0), 1);
  first = std::move(second);
  EXPECT_EQ(first.sql(), "SELECT 1");
}

}  // namespace
}  // namespace raw::store
