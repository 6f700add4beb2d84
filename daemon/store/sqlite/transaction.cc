#include "daemon/store/sqlite/transaction.h"

#include "daemon/store/sqlite/db.h"
#include "daemon/store/sqlite/statement.h"

namespace raw::store {
namespace {

// BEGIN, COMMIT and ROLLBACK run at every transaction: through the
// connection's cache of prepared statements rather than parsed each time.
absl::Status Run(Database& db, const char* sql) {
  absl::StatusOr<Statement> statement = db.Prepare(sql);
  if (!statement.ok()) return statement.status();
  return statement->Run();
}

}  // namespace

Transaction::~Transaction() { Rollback(); }

absl::Status Transaction::Begin() {
  if (open_) return absl::FailedPreconditionError("sqlite: transaction already begun");
  absl::Status status =
      Run(db_, mode_ == TransactionMode::kWrite ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
  open_ = status.ok();
  return status;
}

absl::Status Transaction::Commit() {
  if (!open_) return absl::FailedPreconditionError("sqlite: commit without an open transaction");
  absl::Status status = Run(db_, "COMMIT");
  // A failed COMMIT (SQLITE_BUSY, say) can leave the transaction open; the
  // destructor then rolls it back.
  open_ = db_.InTransaction();
  return status;
}

void Transaction::Rollback() {
  if (!open_) return;
  open_ = false;
  // SQLite may already have rolled back on its own after certain errors
  // (disk full, I/O error); ROLLBACK would then fail for want of a
  // transaction, so only issue it while one is open.
  if (db_.InTransaction()) Run(db_, "ROLLBACK").IgnoreError();
}

}  // namespace raw::store
