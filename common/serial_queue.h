// SerialQueue: runs the commands posted to it one at a time, in the order
// they were posted, on a WorkerPool. Distinct queues run independently: a
// slow command in one queue never delays another queue. Each session of the
// daemon has one (see loop::SessionRunner), so every change to a session is
// ordered without any caller waiting for it.
//
// Thread-safe. Post() never blocks and never runs the command inline. A
// command must not wait for a later command of the same queue. The queue
// must outlive its scheduled drain: owners hold it by shared_ptr, and the
// drain keeps it alive while it runs.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "common/worker_pool.h"

namespace raw {

class SerialQueue : public std::enable_shared_from_this<SerialQueue> {
 public:
  using Command = std::function<void()>;

  static std::shared_ptr<SerialQueue> Create(WorkerPool& pool) {
    return std::shared_ptr<SerialQueue>(new SerialQueue(pool));
  }

  // Returns false (the command is dropped) when the pool is shutting down.
  bool Post(Command command);

  // Commands posted and not yet finished (including the running one).
  size_t pending() const;

 private:
  explicit SerialQueue(WorkerPool& pool) : pool_(pool) {}
  void Drain();

  WorkerPool& pool_;
  mutable absl::Mutex mu_;
  std::deque<Command> commands_ ABSL_GUARDED_BY(mu_);
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace raw
