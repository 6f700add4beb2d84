// Schema migrations: the numbered SQL files of daemon/store/migrations/,
// embedded at build time, applied in order. Migration N (1-based) moves the
// database from PRAGMA user_version N-1 to N inside one transaction, so a
// failure leaves the database at the last complete version.
//
// Pure functions over a Database; thread-safety is the Database's (none).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "daemon/store/sqlite/db.h"

namespace raw::store {

struct Migration {
  const char* name;  // file name, for messages
  const char* sql;
};

// The migrations built into this binary, in order.
std::vector<Migration> BuiltInMigrations();

// The schema version a fully migrated database has (the number of built-in
// migrations).
int64_t LatestSchemaVersion();

// Applies the migrations of `migrations` the database has not seen yet. A
// database whose user_version is greater than migrations.size() is
// kFailedPrecondition and is not modified.
absl::Status Migrate(Database& db, const std::vector<Migration>& migrations);
inline absl::Status Migrate(Database& db) { return Migrate(db, BuiltInMigrations()); }

}  // namespace raw::store
