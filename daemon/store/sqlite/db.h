// Database: one SQLite connection, the small RAII wrapper the store is built
// on. Every failure is an absl::Status carrying SQLite's own message.
//
// Open() configures the connection the way every Raw database is used: WAL
// journal, synchronous=NORMAL (a committed transaction survives a crash of
// the process; only an OS crash or power loss may drop the last ones),
// foreign_keys=ON and a busy timeout. A file Open() creates is private: mode
// 0600 (SQLite gives its -wal and -shm files the mode of the database file),
// and, while still empty, it gets incremental auto-vacuum so that
// ReclaimSpace() can shrink it cheaply. A file is never opened through a
// symbolic link, and must be a regular file of the effective user with one
// name; one open to other users is made private (store/sqlite/file_checks.h).
//
// Prepare() hands out Statements whose compiled form is cached per
// connection (SQLITE_PREPARE_PERSISTENT), keyed by the SQL text.
//
// A read-only connection (DatabaseOptions::mode) opens an existing database
// that already uses WAL and changes nothing about it: no auto-vacuum choice,
// no journal switch. It can never write, so a reader lent out by the store
// cannot take the write lock by mistake.
//
// Ownership: the Database owns the connection and its statement cache; every
// Statement and Transaction made from it must be destroyed before it.
// Thread-safety: none. A Database and its statements are used by one thread
// at a time; callers that share one serialize access themselves.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "daemon/store/sqlite/statement.h"

struct sqlite3;
struct sqlite3_stmt;

namespace raw::store {

// PRAGMA auto_vacuum modes; the values are SQLite's.
enum class AutoVacuum { kNone = 0, kFull = 1, kIncremental = 2 };

enum class OpenMode { kReadWrite, kReadOnly };

struct DatabaseOptions {
  int busy_timeout_ms = 5000;
  // kReadOnly: the file must exist and already be in WAL mode (otherwise
  // kFailedPrecondition).
  OpenMode mode = OpenMode::kReadWrite;
  // When set, a file whose PRAGMA user_version is greater is refused with
  // kFailedPrecondition before anything is written to it (not even the switch
  // to WAL), so a database from a newer schema stays byte-for-byte untouched.
  std::optional<int64_t> max_user_version;
  // The auto-vacuum mode of a database that has no pages yet (a new file);
  // SQLite fixes it when the first table is created. An existing database
  // keeps its own (a VACUUM can change it; see SessionStore::Open).
  AutoVacuum new_auto_vacuum = AutoVacuum::kIncremental;
  // The most memory this connection's page cache may hold, in KiB (PRAGMA
  // cache_size); 0 keeps SQLite's default of 2,000 KiB. The kernel keeps the
  // file's pages cached anyway, so a miss costs a copy, not a disk read.
  int cache_kib = 0;
};

class Database {
 public:
  // Opens or creates the database at `path` (":memory:" for a private
  // in-memory database). A file that is a symbolic link, is not a regular
  // file, belongs to another user or has more than one name is
  // kFailedPrecondition naming it, and left untouched.
  static absl::StatusOr<std::unique_ptr<Database>> Open(const std::string& path,
                                                        const DatabaseOptions& options = {});
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs one or more statements that return no rows of interest.
  absl::Status Exec(absl::string_view sql);

  // Returns a statement for exactly one SQL statement, reset and with no
  // bindings. The compiled form is cached: preparing the same text again
  // reuses it. If the cached statement is still in use (a nested use of the
  // same SQL), a separate uncached one is returned.
  absl::StatusOr<Statement> Prepare(absl::string_view sql);

  // The single integer a query such as "PRAGMA user_version" returns.
  absl::StatusOr<int64_t> QueryInt64(absl::string_view sql);

  // The file's auto-vacuum mode.
  absl::StatusOr<AutoVacuum> GetAutoVacuum();

  // Gives the pages freed by deletions back to the file system: PRAGMA
  // incremental_vacuum under incremental auto-vacuum; VACUUM (which rewrites
  // the whole file and needs as much free disk space) when the file has no
  // auto-vacuum; nothing more under full auto-vacuum. Then checkpoints the
  // WAL with TRUNCATE, so the database file shrinks on disk and the WAL goes
  // back to empty. If another connection is reading, that checkpoint stops
  // short; the file then shrinks at a later checkpoint.
  // REQUIRES: no transaction is open on this connection.
  absl::Status ReclaimSpace();

  int64_t LastInsertRowId() const;
  // Rows changed by the most recent INSERT, UPDATE or DELETE.
  int64_t ChangedRows() const;
  // True while a transaction is open on this connection.
  bool InTransaction() const;
  // Number of statements held in the cache.
  size_t CachedStatementCount() const { return cache_.size(); }
  const std::string& path() const { return path_; }
  int busy_timeout_ms() const { return busy_timeout_ms_; }
  // Sets the time a statement waits for a lock held by another connection.
  void SetBusyTimeout(int ms);
  // Calls `hook` after each commit of this connection with the WAL's size
  // in pages, on the committing thread. This replaces SQLite's automatic
  // checkpoints on this connection: the caller takes them over (see
  // store/wal_checkpointer.h). REQUIRES: `hook` does not use this
  // connection, and stays valid while the connection can commit.
  void OnWalCommit(std::function<void(int wal_pages)> hook);

  // An error status for SQLite result code `code` on this connection,
  // carrying sqlite3_errmsg() and `context`. The status code follows the
  // kind of failure: busy/locked -> kUnavailable, corrupt or not a database
  // -> kDataLoss (naming the file and saying to move it aside), constraint -> kAlreadyExists for
  // unique keys and kFailedPrecondition otherwise, disk full -> kResourceExhausted, cannot open ->
  // kFailedPrecondition, anything else -> kInternal.
  absl::Status Error(int code, absl::string_view context) const;

 private:
  struct CachedStatement {
    sqlite3_stmt* stmt = nullptr;
    bool in_use = false;
  };

  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  absl::Status Configure(const DatabaseOptions& options);

  sqlite3* db_;
  std::string path_;
  std::function<void(int)> wal_hook_;
  int busy_timeout_ms_ = 0;
  // Node-based on purpose: a cached Statement points at its slot's in_use
  // flag, which must not move when the map grows.
  std::unordered_map<std::string, CachedStatement> cache_;
};

}  // namespace raw::store
