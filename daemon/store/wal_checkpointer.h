// WalCheckpointer: the WAL checkpoints of the store's database, on a thread
// of their own.
//
// SQLite checkpoints a WAL database on the committing connection once the
// WAL passes 1,000 pages, and a checkpoint writes those pages back into the
// database file and syncs it: 10-25 ms on this kind of machine, paid by
// whichever commit crossed the line (the turn thread committing a tool
// result, say). The store's writer hands that to this class instead
// (Database::OnWalCommit): after a commit that leaves the WAL at
// kWalPages pages or more, this thread runs a PASSIVE checkpoint over a
// connection of its own, which never blocks the writer or the readers (it
// copies what no reader still needs; the WAL restarts from its beginning
// once a checkpoint completed). A failed checkpoint is logged and tried
// again after the next commit; the data is in the WAL either way.
//
// Thread-safe. The destructor stops the thread (a checkpoint in progress
// finishes first).
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "daemon/store/sqlite/db.h"

namespace raw::store {

class WalCheckpointer {
 public:
  static constexpr int kWalPages = 1000;

  // Opens its connection to the database at `path` (in WAL mode).
  static absl::StatusOr<std::unique_ptr<WalCheckpointer>> Start(const std::string& path,
                                                                int busy_timeout_ms);
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // After a commit: the WAL now holds `wal_pages` pages. Never waits.
  void Committed(int wal_pages);

  // While one lives, no checkpoint of this thread runs (its construction
  // waits for one in progress): for a checkpoint of the writer's own that
  // must not find the checkpoint lock taken (SessionStore's TRUNCATE after
  // a purge).
  class Hold {
   public:
    explicit Hold(WalCheckpointer& c) : lock_(&c.run_mu_) {}

   private:
    absl::MutexLock lock_;
  };

  // Checkpoints completed so far, and a wait until there are `n` (false
  // after `timeout`); for tests.
  int checkpoints();
  bool AwaitCheckpoints(int n, absl::Duration timeout);

 private:
  explicit WalCheckpointer(std::unique_ptr<Database> db);
  void Run();

  const std::unique_ptr<Database> db_;  // used by the thread only
  absl::Mutex run_mu_;                  // held while a checkpoint runs
  absl::Mutex mu_;
  bool wanted_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int checkpoints_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace raw::store
