// ActiveStreams: the open server streams of one service (Subscribe and
// AcquireLease), so that shutdown can end them cleanly instead of waiting
// for the server's deadline.
//
// A stream registers itself when it starts and removes itself in OnDone.
// At most kMaxStreams are open at once: each holds a reactor, a queue and
// a share of the stream pool's work, and one client must not be able to
// open them without end.
// DrainAll() asks every stream to deliver what is already queued and then
// finish with UNAVAILABLE; streams that start afterwards finish at once.
//
// Thread-safe. Drain() is called with the registry's lock held, so a stream
// cannot be destroyed while it is being drained (Remove waits); Drain() must
// therefore be quick and must not call back into the registry.
#pragma once

#include <cstddef>
#include <functional>
#include <set>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/worker_pool.h"

namespace raw::api::rpc {

class DrainableStream {
 public:
  virtual ~DrainableStream() = default;
  virtual void Drain() = 0;
};

class ActiveStreams {
 public:
  static constexpr size_t kMaxStreams = 1024;

  // Unavailable when draining already began, ResourceExhausted when
  // kMaxStreams are open; the caller must then finish its stream at once
  // with that status (and not call Remove).
  absl::Status Add(DrainableStream* stream);
  void Remove(DrainableStream* stream);
  void DrainAll();
  int size();

  // Runs `task` soon on a thread of the registry's own (an elastic pool: an
  // idle worker, or a new one when all are busy), so that a stream's wakeup,
  // which comes on the publishing thread, hands the stream's work over
  // without doing it there. Starting a task this way takes tens of
  // microseconds, where an immediate grpc::Alarm took hundreds
  // (docs/performance.md). False once the pool has shut down.
  bool RunSoon(std::function<void()> task);

 private:
  absl::Mutex mu_;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  std::set<DrainableStream*> streams_ ABSL_GUARDED_BY(mu_);
  // Last: destroyed first, so its tasks end before the registry does.
  // A pull never waits on another, so a few threads serve every stream:
  // a burst of events that wakes many subscriptions at once queues their
  // pulls instead of starting a thread for each.
  static constexpr size_t kPullThreads = 8;
  WorkerPool pool_{"rawd-streams", absl::Seconds(30), nullptr, kPullThreads};
};

}  // namespace raw::api::rpc
