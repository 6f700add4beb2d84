#include "daemon/store/sqlite/db.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "daemon/store/sqlite/file_checks.h"

namespace raw::store {
namespace {

// SQLite creates a database file with mode 0644 (minus the umask). Creating
// it first with 0600 keeps it, and the -wal and -shm files SQLite derives
// from it, private from the start. Failures are left to sqlite3_open_v2,
// which reports them with its own message.
void CreatePrivateFile(const std::string& path) {
  if (!IsDatabaseFilePath(path)) return;
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) close(fd);
}

struct WriteFailure {
  absl::StatusCode code = absl::StatusCode::kInternal;
  std::string text;  // "" when nothing explains the failure
};

// Why writing the database at `path` (or its -wal file) fails, judged from
// the file system and the process's limits now.
WriteFailure DiagnoseWriteFailure(const std::string& path) {
  const std::string dir = path.substr(0, path.rfind('/') + 1);
  struct statvfs fs {};
  if (statvfs(dir.empty() ? "." : dir.c_str(), &fs) == 0) {
    if ((fs.f_flag & ST_RDONLY) != 0) {
      return {absl::StatusCode::kPermissionDenied, "its file system is mounted read-only"};
    }
    if (fs.f_bavail == 0) {
      return {absl::StatusCode::kResourceExhausted,
              "the disk holding it is full (no free blocks): free some space"};
    }
  }
  if (access(path.c_str(), W_OK) != 0 && errno != ENOENT) {
    return {absl::StatusCode::kPermissionDenied,
            absl::StrCat("rawd may not write it (", std::strerror(errno), ")")};
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    for (const std::string& file : {path, path + "-wal"}) {
      struct stat st {};
      // A write that would take the file past the limit fails (EFBIG), so
      // a file near it is the cause.
      if (stat(file.c_str(), &st) == 0 &&
          static_cast<rlim_t>(st.st_size) + 65536 > limit.rlim_cur) {
        return {absl::StatusCode::kResourceExhausted,
                absl::StrCat("File too large: a file size limit (ulimit -f, ", limit.rlim_cur,
                             " bytes) stops ", file, " from growing")};
      }
    }
  }
  return {};
}

}  // namespace

absl::StatusOr<std::unique_ptr<Database>> Database::Open(const std::string& path,
                                                         const DatabaseOptions& options) {
  const bool read_only = options.mode == OpenMode::kReadOnly;
  const bool file = IsDatabaseFilePath(path);
  // Never through a symbolic link (file_checks.h); NOFOLLOW closes the gap
  // between the check and the open.
  std::string open_path = path;
  if (file) {
    ASSIGN_OR_RETURN(open_path, PathToOpen(path));
  }
  if (!read_only) CreatePrivateFile(open_path);
  sqlite3* handle = nullptr;
  const int flags =
      (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
      SQLITE_OPEN_NOMUTEX | (file ? SQLITE_OPEN_NOFOLLOW : 0);
  int code = sqlite3_open_v2(open_path.c_str(), &handle, flags, nullptr);
  if (handle == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat("sqlite: cannot allocate a connection for ",
                                                     path));
  }
  std::unique_ptr<Database> db(new Database(handle, path));
  if (code != SQLITE_OK && sqlite3_extended_errcode(handle) == SQLITE_CANTOPEN_SYMLINK) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the session database file ", path,
        " became a symbolic link while it was opened; rawd does not follow one. Move it aside "
        "(and check who can write to its directory), then start rawd again"));
  }
  if (code != SQLITE_OK) return db->Error(code, absl::StrCat("opening ", path));
  sqlite3_extended_result_codes(handle, 1);
  if (file) {
    RETURN_IF_ERROR(CheckDatabaseFiles(open_path));
  }
  // SQLite opens a file it may not write read-only, without an error; every
  // later write would fail instead.
  if (!read_only && sqlite3_db_readonly(handle, "main") == 1) {
    WriteFailure cause = DiagnoseWriteFailure(path);
    return absl::PermissionDeniedError(absl::StrCat(
        "sqlite: ", path, " is read-only for rawd",
        cause.text.empty() ? "" : absl::StrCat(" (", cause.text, ")"),
        ": make it and its directory writable (chmod u+w), or stop what holds it read-only"));
  }
  RETURN_IF_ERROR(db->Configure(options));
  return db;
}

void Database::OnWalCommit(std::function<void(int wal_pages)> hook) {
  wal_hook_ = std::move(hook);
  sqlite3_wal_hook(
      db_,
      [](void* self, sqlite3*, const char*, int pages) {
        static_cast<Database*>(self)->wal_hook_(pages);
        return SQLITE_OK;
      },
      this);
}

void Database::SetBusyTimeout(int ms) {
  sqlite3_busy_timeout(db_, ms);
  busy_timeout_ms_ = ms;
}

absl::Status Database::Configure(const DatabaseOptions& options) {
  SetBusyTimeout(options.busy_timeout_ms);
  if (options.cache_kib > 0) {
    // A negative cache_size counts KiB rather than pages.
    RETURN_IF_ERROR(Exec(absl::StrCat("PRAGMA cache_size = -", options.cache_kib)));
  }
  // Reading the header writes nothing; it must come before the WAL switch,
  // which rewrites the header of a database in rollback-journal mode.
  if (options.max_user_version) {
    ASSIGN_OR_RETURN(int64_t version, QueryInt64("PRAGMA user_version"));
    if (version > *options.max_user_version) {
      return absl::FailedPreconditionError(absl::StrCat(
          path_, " has schema version ", version, " but this build knows versions up to ",
          *options.max_user_version, "; it was written by a newer Raw and is left untouched"));
    }
  }
  if (options.mode == OpenMode::kReadOnly) {
    ASSIGN_OR_RETURN(Statement journal, Prepare("PRAGMA journal_mode"));
    ASSIGN_OR_RETURN(bool has_row, journal.Step());
    if (!has_row || absl::AsciiStrToLower(journal.ColumnString(0)) != "wal") {
      return absl::FailedPreconditionError(
          absl::StrCat("sqlite: ", path_, " is not in WAL mode; it cannot be read beside a writer"));
    }
    return absl::OkStatus();
  }
  // Only a database with no pages can still choose its auto-vacuum mode.
  ASSIGN_OR_RETURN(int64_t pages, QueryInt64("PRAGMA page_count"));
  if (pages == 0) {
    RETURN_IF_ERROR(Exec(absl::StrCat("PRAGMA auto_vacuum = ",
                                      static_cast<int>(options.new_auto_vacuum))));
  }
  ASSIGN_OR_RETURN(Statement journal, Prepare("PRAGMA journal_mode=WAL"));
  ASSIGN_OR_RETURN(bool has_row, journal.Step());
  std::string mode = has_row ? absl::AsciiStrToLower(journal.ColumnString(0)) : "";
  // In-memory and temporary databases report "memory"; they have no file to
  // journal.
  if (mode != "wal" && mode != "memory") {
    return absl::FailedPreconditionError(
        absl::StrCat("sqlite: cannot use WAL journal mode for ", path_, " (got \"", mode, "\")"));
  }
  return Exec("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
}

Database::~Database() {
  for (auto& [sql, cached] : cache_) sqlite3_finalize(cached.stmt);
  sqlite3_close_v2(db_);
}

absl::Status Database::Exec(absl::string_view sql) {
  std::string text(sql);
  // On failure sqlite3_errmsg() holds the message, which Error() reports.
  int code = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (code == SQLITE_OK) return absl::OkStatus();
  return Error(code, absl::StrCat("running: ", text));
}

absl::StatusOr<Statement> Database::Prepare(absl::string_view sql) {
  std::string key(sql);
  auto it = cache_.find(key);
  if (it != cache_.end() && !it->second.in_use) {
    it->second.in_use = true;
    return Statement(this, it->second.stmt, &it->second.in_use);
  }
  const bool cache = it == cache_.end();
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  int code = sqlite3_prepare_v3(db_, key.data(), static_cast<int>(key.size()),
                                cache ? SQLITE_PREPARE_PERSISTENT : 0, &stmt, &tail);
  if (code != SQLITE_OK) return Error(code, absl::StrCat("preparing: ", key));
  if (stmt == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("sqlite: no statement in: ", key));
  }
  for (const char* p = tail; p != nullptr && *p != '\0'; ++p) {
    if (!std::isspace(static_cast<unsigned char>(*p)) && *p != ';') {
      sqlite3_finalize(stmt);
      return absl::InvalidArgumentError(
          absl::StrCat("sqlite: Prepare takes one statement; extra text after it: ", p));
    }
  }
  if (!cache) return Statement(this, stmt, nullptr);
  CachedStatement& slot = cache_[key];
  slot.stmt = stmt;
  slot.in_use = true;
  return Statement(this, stmt, &slot.in_use);
}

absl::StatusOr<int64_t> Database::QueryInt64(absl::string_view sql) {
  ASSIGN_OR_RETURN(Statement statement, Prepare(sql));
  ASSIGN_OR_RETURN(bool has_row, statement.Step());
  if (!has_row) {
    return absl::InternalError(absl::StrCat("sqlite: no row from: ", std::string(sql)));
  }
  return statement.ColumnInt64(0);
}

absl::StatusOr<AutoVacuum> Database::GetAutoVacuum() {
  ASSIGN_OR_RETURN(int64_t mode, QueryInt64("PRAGMA auto_vacuum"));
  switch (mode) {
    case 0:
      return AutoVacuum::kNone;
    case 1:
      return AutoVacuum::kFull;
    case 2:
      return AutoVacuum::kIncremental;
    default:
      return absl::DataLossError(
          absl::StrCat("sqlite: ", path_, " reports an unknown auto_vacuum mode ", mode));
  }
}

absl::Status Database::ReclaimSpace() {
  if (InTransaction()) {
    return absl::FailedPreconditionError(
        absl::StrCat("sqlite: cannot reclaim space in ", path_, " inside a transaction"));
  }
  ASSIGN_OR_RETURN(AutoVacuum mode, GetAutoVacuum());
  switch (mode) {
    case AutoVacuum::kIncremental:
      RETURN_IF_ERROR(Exec("PRAGMA incremental_vacuum"));
      break;
    case AutoVacuum::kNone:
      RETURN_IF_ERROR(Exec("VACUUM"));
      break;
    case AutoVacuum::kFull:
      break;  // every commit already gave free pages back
  }
  // One row (busy, WAL frames, frames checkpointed); a busy checkpoint is
  // not an error, only a deferred shrink.
  return Exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

int64_t Database::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }

int64_t Database::ChangedRows() const { return sqlite3_changes64(db_); }

bool Database::InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }


absl::Status Database::Error(int code, absl::string_view context) const {
  std::string message = absl::StrCat("sqlite: ", sqlite3_errmsg(db_));
  if (!context.empty()) absl::StrAppend(&message, " (", context, ")");
  // SQLite's own words for a failed write ("disk I/O error") do not say
  // why, and the operating system's error is often gone by the time they
  // are reported; the state of the machine now says why, and what to do.
  const int primary = code & 0xff;
  if (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_READONLY ||
      primary == SQLITE_CANTOPEN) {
    const WriteFailure cause = DiagnoseWriteFailure(path_);
    if (!cause.text.empty()) {
      absl::StrAppend(&message, ": ", path_, ": ", cause.text);
      return absl::Status(cause.code, message);
    }
    if (const int os_error = sqlite3_system_errno(db_); os_error != 0) {
      absl::StrAppend(&message, ": ", path_, ": ", std::strerror(os_error));
    }
  }
  // SQLite's "file is not a database" names neither the file nor a way on.
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
    absl::StrAppend(
        &message, ": ", path_,
        " is damaged or is not a Raw session database. With rawd stopped, move it aside "
        "with its -wal and -shm files (keep them: the sessions they hold may still be "
        "recoverable with sqlite3's .recover); rawd then starts with an empty one");
  }
  switch (primary) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(message);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::DataLossError(message);
    case SQLITE_CONSTRAINT:
      if (code == SQLITE_CONSTRAINT_PRIMARYKEY || code == SQLITE_CONSTRAINT_UNIQUE) {
        return absl::AlreadyExistsError(message);
      }
      return absl::FailedPreconditionError(message);
    case SQLITE_FULL:
      return absl::ResourceExhaustedError(message);
    case SQLITE_CANTOPEN:
      return absl::FailedPreconditionError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace raw::store
