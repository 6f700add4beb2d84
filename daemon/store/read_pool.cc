#include "daemon/store/read_pool.h"

#include <algorithm>
#include <utility>

#include "common/status_macros.h"

namespace raw::store {

absl::StatusOr<std::unique_ptr<ReadPool>> ReadPool::Open(const std::string& path, int size,
                                                         int busy_timeout_ms, int cache_kib) {
  DatabaseOptions options;
  options.cache_kib = cache_kib;
  options.mode = OpenMode::kReadOnly;
  options.busy_timeout_ms = busy_timeout_ms;
  std::vector<std::unique_ptr<Database>> connections;
  for (int i = 0; i < std::max(size, 1); ++i) {
    ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, options));
    connections.push_back(std::move(db));
  }
  return std::unique_ptr<ReadPool>(new ReadPool(std::move(connections)));
}

ReadPool::ReadPool(std::vector<std::unique_ptr<Database>> connections)
    : connections_(std::move(connections)) {
  for (const auto& db : connections_) idle_.push_back(db.get());
}

ReadPool::Lease ReadPool::Acquire() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](std::vector<Database*>* idle) { return !idle->empty(); }, &idle_));
  Database* db = idle_.back();
  idle_.pop_back();
  return Lease(this, db);
}

void ReadPool::Return(Database* db) {
  absl::MutexLock lock(&mu_);
  idle_.push_back(db);
}

ReadPool::Lease::~Lease() {
  if (pool_ != nullptr) pool_->Return(db_);
}

}  // namespace raw::store
