#include "daemon/store/sqlite/statement.h"

#include <sqlite3.h>

#include "absl/strings/str_cat.h"
#include "daemon/store/sqlite/db.h"

namespace raw::store {

Statement::Statement(Statement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      stmt_(std::exchange(other.stmt_, nullptr)),
      in_use_(std::exchange(other.in_use_, nullptr)),
      bind_status_(std::move(other.bind_status_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    Close();
    db_ = std::exchange(other.db_, nullptr);
    stmt_ = std::exchange(other.stmt_, nullptr);
    in_use_ = std::exchange(other.in_use_, nullptr);
    bind_status_ = std::move(other.bind_status_);
  }
  return *this;
}

Statement::~Statement() { Close(); }

void Statement::Close() {
  if (stmt_ == nullptr) return;
  if (in_use_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    *in_use_ = false;
  } else {
    sqlite3_finalize(stmt_);
  }
  stmt_ = nullptr;
  in_use_ = nullptr;
  db_ = nullptr;
}

std::string Statement::sql() const {
  const char* text = stmt_ ? sqlite3_sql(stmt_) : nullptr;
  return text ? text : "";
}

void Statement::RecordBindResult(int code, int index) {
  if (code == SQLITE_OK || !bind_status_.ok()) return;
  bind_status_ = db_->Error(code, absl::StrCat("binding parameter ", index, " of: ", sql()));
}

// SQLite numbers parameters from 1; Raw's wrapper from 0.
void Statement::BindNull(int index) { RecordBindResult(sqlite3_bind_null(stmt_, index + 1), index); }

void Statement::BindBool(int index, bool value) {
  RecordBindResult(sqlite3_bind_int(stmt_, index + 1, value ? 1 : 0), index);
}

void Statement::BindInt(int index, int value) {
  RecordBindResult(sqlite3_bind_int(stmt_, index + 1, value), index);
}

void Statement::BindInt64(int index, int64_t value) {
  RecordBindResult(sqlite3_bind_int64(stmt_, index + 1, value), index);
}

void Statement::BindDouble(int index, double value) {
  RecordBindResult(sqlite3_bind_double(stmt_, index + 1, value), index);
}

void Statement::BindString(int index, absl::string_view value) {
  RecordBindResult(sqlite3_bind_text64(stmt_, index + 1, value.data(), value.size(),
                                       SQLITE_TRANSIENT, SQLITE_UTF8),
                   index);
}

void Statement::BindBlob(int index, absl::string_view bytes) {
  RecordBindResult(
      sqlite3_bind_blob64(stmt_, index + 1, bytes.data(), bytes.size(), SQLITE_TRANSIENT), index);
}

absl::StatusOr<bool> Statement::Step() {
  if (!bind_status_.ok()) return bind_status_;
  int code = sqlite3_step(stmt_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  absl::Status error = db_->Error(code, absl::StrCat("running: ", sql()));
  // Leave the statement runnable again; the error is already captured.
  sqlite3_reset(stmt_);
  return error;
}

absl::Status Statement::Run() {
  absl::StatusOr<bool> row = Step();
  if (!row.ok()) return row.status();
  if (*row) {
    return absl::InternalError(absl::StrCat("statement returned a row where none was expected: ",
                                            sql()));
  }
  return absl::OkStatus();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_status_ = absl::OkStatus();
}

int Statement::ColumnCount() const { return sqlite3_column_count(stmt_); }

ColumnType Statement::GetColumnType(int index) const {
  switch (sqlite3_column_type(stmt_, index)) {
    case SQLITE_INTEGER:
      return ColumnType::kInteger;
    case SQLITE_FLOAT:
      return ColumnType::kFloat;
    case SQLITE_TEXT:
      return ColumnType::kText;
    case SQLITE_BLOB:
      return ColumnType::kBlob;
    default:
      return ColumnType::kNull;
  }
}

bool Statement::ColumnBool(int index) const { return sqlite3_column_int64(stmt_, index) != 0; }

int Statement::ColumnInt(int index) const { return sqlite3_column_int(stmt_, index); }

int64_t Statement::ColumnInt64(int index) const { return sqlite3_column_int64(stmt_, index); }

double Statement::ColumnDouble(int index) const { return sqlite3_column_double(stmt_, index); }

std::string Statement::ColumnString(int index) const {
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, index)));
}

std::string_view Statement::ColumnBytes(int index) const {
  const void* data = sqlite3_column_blob(stmt_, index);
  if (data == nullptr) return {};
  return std::string_view(static_cast<const char*>(data),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, index)));
}

std::string Statement::ColumnBlob(int index) const {
  const void* data = sqlite3_column_blob(stmt_, index);
  if (data == nullptr) return {};
  return std::string(static_cast<const char*>(data),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, index)));
}

}  // namespace raw::store
