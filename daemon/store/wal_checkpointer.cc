#include "daemon/store/wal_checkpointer.h"

#include <utility>

#include "common/logging.h"
#include "common/status_macros.h"
#include "common/thread_start.h"

namespace raw::store {

absl::StatusOr<std::unique_ptr<WalCheckpointer>> WalCheckpointer::Start(const std::string& path,
                                                                        int busy_timeout_ms) {
  DatabaseOptions options;
  options.busy_timeout_ms = busy_timeout_ms;
  ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, options));
  auto checkpointer = std::unique_ptr<WalCheckpointer>(new WalCheckpointer(std::move(db)));
  ASSIGN_OR_RETURN(checkpointer->thread_,
                   StartThread("checkpointing the database's write-ahead log",
                               [cp = checkpointer.get()] { cp->Run(); }));
  return checkpointer;
}

WalCheckpointer::WalCheckpointer(std::unique_ptr<Database> db) : db_(std::move(db)) {}

WalCheckpointer::~WalCheckpointer() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();  // not when Start could not start it
}

void WalCheckpointer::Committed(int wal_pages) {
  if (wal_pages < kWalPages) return;
  absl::MutexLock lock(&mu_);
  wanted_ = true;
}

int WalCheckpointer::checkpoints() {
  absl::MutexLock lock(&mu_);
  return checkpoints_;
}

bool WalCheckpointer::AwaitCheckpoints(int n, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto reached = [this, n]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return checkpoints_ >= n; };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

void WalCheckpointer::Run() {
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return wanted_ || stopping_; };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      wanted_ = false;
    }
    absl::Status s;
    {
      absl::MutexLock running(&run_mu_);
      s = db_->Exec("PRAGMA wal_checkpoint(PASSIVE)");
    }
    if (!s.ok()) {
      RAW_LOG(Warning) << "WAL checkpoint of " << db_->path() << " failed (tried again after the "
                       << "next commit): " << s.message();
      continue;
    }
    absl::MutexLock lock(&mu_);
    ++checkpoints_;
  }
}

}  // namespace raw::store
