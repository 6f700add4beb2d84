// SerialQueue: runs the commands posted to it one at a time, in the order
// they were posted, on a WorkerPool. Distinct queues run independently: a
// slow command in one queue never delays another queue. Each session of the
// daemon has one (see loop::SessionRunner), so every change to a session is
// ordered without any caller waiting for it.
//
// Thread-safe. Post() never waits for a command and never runs one inline
// (it may wait for another Post handing the queue's drain to the pool). A
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

  // Returns true when the command will run, false (the command is dropped,
  // and the caller answers for it) when the pool refused to run the queue's
  // drain because it is shutting down. Exact both ways, also for posts that
  // race the pool's shutdown: a command for which Post returned true always
  // runs, one for which it returned false never does. A post while the
  // queue's drain is scheduled or running is accepted (that drain runs it),
  // also after the pool began to shut down.
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
