// ReadPool: a fixed set of read-only connections to one WAL database file,
// lent out one caller at a time. Under WAL a reader never waits for the
// writer or for other readers, so a read that holds a lease proceeds while
// another connection commits; only a caller that finds every connection lent
// out waits, for the first one returned.
//
// Ownership: the pool owns its connections; a Lease borrows one and must not
// outlive the pool. Thread-safety: Acquire may be called from any thread; a
// Lease and its Database are used by the thread that holds it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "daemon/store/sqlite/db.h"

namespace raw::store {

class ReadPool {
 public:
  // Opens `size` (at least 1) read-only connections to the database at
  // `path`, which must already exist in WAL mode, each with a page cache of
  // at most `cache_kib` (0: SQLite's default).
  static absl::StatusOr<std::unique_ptr<ReadPool>> Open(const std::string& path, int size,
                                                        int busy_timeout_ms, int cache_kib);
  ReadPool(const ReadPool&) = delete;
  ReadPool& operator=(const ReadPool&) = delete;

  // One lent connection; destroying the lease gives it back.
  class Lease {
   public:
    Lease(Lease&& other) noexcept : pool_(other.pool_), db_(other.db_) { other.pool_ = nullptr; }
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    Database& db() const { return *db_; }

   private:
    friend class ReadPool;
    Lease(ReadPool* pool, Database* db) : pool_(pool), db_(db) {}
    ReadPool* pool_;
    Database* db_;
  };

  // Waits while every connection is lent out.
  Lease Acquire();
  int size() const { return static_cast<int>(connections_.size()); }

 private:
  explicit ReadPool(std::vector<std::unique_ptr<Database>> connections);
  void Return(Database* db);

  const std::vector<std::unique_ptr<Database>> connections_;
  absl::Mutex mu_;
  std::vector<Database*> idle_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::store
