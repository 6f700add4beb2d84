#include "daemon/store/sqlite/transaction.h"

#include <string>

#include "daemon/store/sqlite/db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

class TransactionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = Database::Open(dir_.File("t.db"));
    ASSERT_TRUE(opened.ok()) << opened.status();
    db_ = std::move(opened).value();
    ASSERT_TRUE(db_->Exec("CREATE TABLE t (a INTEGER)").ok());
  }
  int64_t Rows() { return *db_->QueryInt64("SELECT count(*) FROM t"); }

  TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(TransactionTest, CommitKeepsTheWrites) {
  {
    Transaction txn(*db_);
    ASSERT_TRUE(txn.Begin().ok());
    EXPECT_TRUE(db_->InTransaction());
    ASSERT_TRUE(db_->Exec("INSERT INTO t VALUES (1), (2)").ok());
    ASSERT_TRUE(txn.Commit().ok());
    EXPECT_FALSE(txn.is_open());
  }
  EXPECT_FALSE(db_->InTransaction());
  EXPECT_EQ(Rows(), 2);
}

TEST_F(TransactionTest, DestructorRollsBackWithoutCommit) {
  {
    Transaction txn(*db_);
    ASSERT_TRUE(txn.Begin().ok());
    ASSERT_TRUE(db_->Exec("INSERT INTO t VALUES (1)").ok());
    EXPECT_EQ(Rows(), 1);
  }
  EXPECT_FALSE(db_->InTransaction());
  EXPECT_EQ(Rows(), 0);
}

TEST_F(TransactionTest, ExplicitRollback) {
  Transaction txn(*db_);
  ASSERT_TRUE(txn.Begin().ok());
  ASSERT_TRUE(db_->Exec("INSERT INTO t VALUES (1)").ok());
  txn.Rollback();
  EXPECT_FALSE(txn.is_open());
  EXPECT_EQ(Rows(), 0);
  EXPECT_EQ(txn.Commit().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(TransactionTest, TransactionsDoNotNest) {
  Transaction outer(*db_);
  ASSERT_TRUE(outer.Begin().ok());
  EXPECT_EQ(outer.Begin().code(), absl::StatusCode::kFailedPrecondition);
  Transaction inner(*db_);
  absl::Status status = inner.Begin();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("within a transaction"));
  EXPECT_FALSE(inner.is_open());
  // The failed inner Begin must not end the outer transaction.
  EXPECT_TRUE(db_->InTransaction());
  ASSERT_TRUE(outer.Commit().ok());
}

TEST_F(TransactionTest, FailedCommitIsRolledBackByTheDestructor) {
  ASSERT_TRUE(db_->Exec("CREATE TABLE parent (id INTEGER PRIMARY KEY); "
                        "CREATE TABLE child (p INTEGER REFERENCES parent (id) "
                        "DEFERRABLE INITIALLY DEFERRED)")
                  .ok());
  {
    Transaction txn(*db_);
    ASSERT_TRUE(txn.Begin().ok());
    ASSERT_TRUE(db_->Exec("INSERT INTO t VALUES (1); INSERT INTO child VALUES (42)").ok());
    absl::Status status = txn.Commit();  // the deferred foreign key check fails here
    ASSERT_FALSE(status.ok());
    EXPECT_THAT(std::string(status.message()), HasSubstr("FOREIGN KEY constraint failed"));
    EXPECT_TRUE(txn.is_open());
  }
  EXPECT_FALSE(db_->InTransaction());
  EXPECT_EQ(Rows(), 0);
}

TEST_F(TransactionTest, BeginWhileAnotherConnectionWritesIsUnavailable) {
  DatabaseOptions no_wait;
  no_wait.busy_timeout_ms = 0;
  auto other = Database::Open(dir_.File("t.db"), no_wait);
  ASSERT_TRUE(other.ok()) << other.status();
  Transaction writer(*db_);
  ASSERT_TRUE(writer.Begin().ok());
  Transaction blocked(**other);
  absl::Status status = blocked.Begin();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(status.message()), HasSubstr("database is locked"));
  EXPECT_FALSE(blocked.is_open());
}

}  // namespace
}  // namespace raw::store
