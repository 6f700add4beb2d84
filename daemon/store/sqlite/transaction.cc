#include "daemon/store/sqlite/transaction.h"

#include "daemon/store/sqlite/db.h"

namespace raw::store {

Transaction::~Transaction() { Rollback(); }

absl::Status Transaction::Begin() {
  if (open_) return absl::FailedPreconditionError("sqlite: transaction already begun");
  absl::Status status = db_.Exec(mode_ == TransactionMode::kWrite ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
  open_ = status.ok();
  return status;
}

absl::Status Transaction::Commit() {
  if (!open_) return absl::FailedPreconditionError("sqlite: commit without an open transaction");
  absl::Status status = db_.Exec("COMMIT");
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
  if (db_.InTransaction()) db_.Exec("ROLLBACK").IgnoreError();
}

}  // namespace raw::store
