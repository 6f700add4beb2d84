// Statement: one prepared SQL statement of a Database, with typed Bind* and
// Column* accessors (0-based indexes) and Step() returning whether a row is
// available.
//
// Binding never fails loudly at the call site: the first bind error (an
// index out of range, say) is remembered and returned by the next Step(), so
// call sites bind every parameter and check once. Bind* overloads that would
// narrow or reinterpret a value (an int64_t into BindInt, a bool into
// BindInt64, a double into an integer) are deleted.
//
// Ownership: a Statement is a move-only handle created by Database::Prepare.
// A cached statement goes back to the cache (reset, bindings cleared) when
// the handle is destroyed; an uncached one is finalized. It must not outlive
// its Database. Thread-safety: that of its Database (none).
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3_stmt;

namespace raw::store {

class Database;

namespace internal {
// True when every value of From is representable as To.
template <typename From, typename To>
concept LosslessInteger = std::integral<From> && !std::same_as<From, bool> &&
                          std::cmp_greater_equal(std::numeric_limits<From>::min(),
                                                 std::numeric_limits<To>::min()) &&
                          std::cmp_less_equal(std::numeric_limits<From>::max(),
                                              std::numeric_limits<To>::max());
}  // namespace internal

enum class ColumnType { kInteger, kFloat, kText, kBlob, kNull };

class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  void BindNull(int index);
  void BindBool(int index, bool value);
  void BindInt(int index, int value);
  void BindInt64(int index, int64_t value);
  void BindDouble(int index, double value);
  // Text is copied into SQLite; `value` need not outlive the call.
  void BindString(int index, absl::string_view value);
  void BindBlob(int index, absl::string_view bytes);

  // Narrowing or reinterpreting binds do not compile.
  template <typename T>
    requires(!std::same_as<T, bool>)
  void BindBool(int, T) = delete;
  template <typename T>
    requires(!internal::LosslessInteger<T, int>)
  void BindInt(int, T) = delete;
  template <typename T>
    requires(!internal::LosslessInteger<T, int64_t>)
  void BindInt64(int, T) = delete;

  // Advances: true when a row is available, false when the statement is
  // done. An error (including a remembered bind error) carries SQLite's
  // message and the SQL text.
  absl::StatusOr<bool> Step();
  // Steps a statement that must produce no row (INSERT, UPDATE, DDL).
  absl::Status Run();
  // Makes the statement ready to run again; clears bindings and any
  // remembered bind error.
  void Reset();

  // Column accessors for the current row. Conversions follow SQLite's rules
  // (NULL reads as 0 or ""); ColumnInt truncates a value that needs 64 bits.
  int ColumnCount() const;
  ColumnType GetColumnType(int index) const;
  bool ColumnBool(int index) const;
  int ColumnInt(int index) const;
  int64_t ColumnInt64(int index) const;
  double ColumnDouble(int index) const;
  std::string ColumnString(int index) const;
  std::string ColumnBlob(int index) const;
  // The bytes of a TEXT or BLOB value without a copy; valid until the next
  // Step, Reset or column access of another type on this column.
  std::string_view ColumnBytes(int index) const;

  // The SQL text as prepared.
  std::string sql() const;

 private:
  friend class Database;
  // `in_use` is the cache slot flag of a cached statement, nullptr for an
  // uncached one (which the handle finalizes).
  Statement(Database* db, sqlite3_stmt* stmt, bool* in_use)
      : db_(db), stmt_(stmt), in_use_(in_use) {}
  void RecordBindResult(int code, int index);
  void Close();

  Database* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  bool* in_use_ = nullptr;
  absl::Status bind_status_;
};

}  // namespace raw::store
