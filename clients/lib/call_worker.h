// CallWorker: one background thread that runs blocking calls (unary RPCs,
// connecting, starting the daemon) in the order they were queued, so that
// a front end's own thread never waits on the daemon. A task reports back
// through poster(), which posts to the owner's thread.
//
// Destruction never waits for a task: the owner's thread must not wait on
// a slow or stopped daemon (a call's deadline is long). The destructor
// drops the queued tasks; a task still running finishes on its thread,
// which then ends on its own (detached). So a task must not touch its
// owner directly: it captures what it needs by value (a shared client, the
// poster) and reaches the owner only through poster(), which does nothing
// once the worker is destroyed. The owner should end the running call
// first (RawClient::CancelCalls) so that the thread ends soon.
//
// A process lets its detached workers end before it exits (their tasks
// may still be in gRPC or in a posted executor): WaitForDetached.
//
// Thread-safe: Run and the poster from any thread; the destructor on the
// owner's thread.
#pragma once

#include <functional>
#include <memory>
#include <thread>

#include "absl/time/time.h"

namespace raw::client {

class CallWorker {
 public:
  using Executor = std::function<void(std::function<void()>)>;

  // `post` must run each task later on the owner's thread; it is called
  // only while the worker exists.
  explicit CallWorker(Executor post);
  ~CallWorker();
  CallWorker(const CallWorker&) = delete;
  CallWorker& operator=(const CallWorker&) = delete;

  void Run(std::function<void()> task);

  // Posts a task to the owner's thread, where it runs unless the worker
  // has been destroyed by then; after the destructor nothing is posted.
  // Copies may be kept by tasks.
  Executor poster() const;

  // Waits up to `timeout` for the threads of destroyed workers whose task
  // was still running; true when none is left.
  static bool WaitForDetached(absl::Duration timeout);

  // Shared by the worker, its thread and its posters.
  struct State;

 private:
  static void Loop(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace raw::client
