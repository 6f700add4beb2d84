// Transaction: a scoped SQLite transaction. Begin() opens it; Commit() ends
// it; if Commit() has not succeeded by the time the object is destroyed
// (an early return on error, a failed COMMIT), the destructor rolls back.
//
//   Transaction txn(db);
//   RETURN_IF_ERROR(txn.Begin());
//   ... writes, returning on the first error ...
//   return txn.Commit();
//
// Transactions do not nest: Begin() while the connection is already in one
// is an error. A kWrite transaction takes the write lock at once (BEGIN
// IMMEDIATE), so it never fails half-way because another connection wrote
// first. A kRead transaction (BEGIN DEFERRED) takes no lock until its first
// read, and then holds one snapshot: under WAL every statement in it sees
// the database as it was at that read, whatever writers commit meanwhile.
//
// Ownership: borrows the Database, which must outlive it. Thread-safety:
// that of its Database (none).
#pragma once

#include "absl/status/status.h"

namespace raw::store {

class Database;

enum class TransactionMode { kWrite, kRead };

class Transaction {
 public:
  explicit Transaction(Database& db, TransactionMode mode = TransactionMode::kWrite)
      : db_(db), mode_(mode) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  absl::Status Begin();
  absl::Status Commit();
  // Rolls back now; the destructor then has nothing to do.
  void Rollback();

  bool is_open() const { return open_; }

 private:
  Database& db_;
  TransactionMode mode_;
  bool open_ = false;
};

}  // namespace raw::store
