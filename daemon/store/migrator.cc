#include "daemon/store/migrator.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "daemon/store/migrations_embedded.h"
#include "daemon/store/sqlite/transaction.h"

namespace raw::store {

std::vector<Migration> BuiltInMigrations() {
  std::vector<Migration> migrations;
  for (const EmbeddedMigration& m : kMigrations) migrations.push_back({m.name, m.sql});
  return migrations;
}

int64_t LatestSchemaVersion() { return static_cast<int64_t>(std::size(kMigrations)); }

absl::Status Migrate(Database& db, const std::vector<Migration>& migrations) {
  const int64_t latest = static_cast<int64_t>(migrations.size());
  ASSIGN_OR_RETURN(int64_t version, db.QueryInt64("PRAGMA user_version"));
  if (version > latest) {
    return absl::FailedPreconditionError(absl::StrCat(
        db.path(), " has schema version ", version, " but this build knows versions up to ",
        latest, "; it was written by a newer Raw and is left untouched"));
  }
  if (version < 0) {
    return absl::DataLossError(
        absl::StrCat(db.path(), " has an invalid schema version ", version));
  }
  for (int64_t next = version + 1; next <= latest; ++next) {
    const Migration& migration = migrations[static_cast<size_t>(next - 1)];
    Transaction txn(db);
    RETURN_IF_ERROR(txn.Begin());
    absl::Status applied = db.Exec(migration.sql);
    if (!applied.ok()) {
      return absl::Status(applied.code(), absl::StrCat("migration ", migration.name, " of ",
                                                       db.path(), ": ", applied.message()));
    }
    // PRAGMA takes no bound parameters; `next` is an integer we formatted.
    RETURN_IF_ERROR(db.Exec(absl::StrCat("PRAGMA user_version = ", next)));
    RETURN_IF_ERROR(txn.Commit());
  }
  return absl::OkStatus();
}

}  // namespace raw::store
