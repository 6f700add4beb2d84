#include "clients/lib/call_worker.h"

#include <deque>
#include <utility>

#include "absl/synchronization/mutex.h"

namespace raw::client {

struct CallWorker::State {
  explicit State(Executor to_owner) : post(std::move(to_owner)) {}

  const Executor post;
  absl::Mutex mu;
  std::deque<std::function<void()>> tasks ABSL_GUARDED_BY(mu);
  bool stopping ABSL_GUARDED_BY(mu) = false;
  bool running ABSL_GUARDED_BY(mu) = false;  // a task runs on the thread
  bool detached ABSL_GUARDED_BY(mu) = false;
};

namespace {

// The threads of destroyed workers that had a task running. Process-wide
// (and never destroyed) because such a thread outlives every object that
// could own it; the process waits for them before it exits.
struct Detached {
  absl::Mutex mu;
  int count ABSL_GUARDED_BY(mu) = 0;
};

Detached& DetachedThreads() {
  static Detached* detached = new Detached;
  return *detached;
}

}  // namespace

CallWorker::CallWorker(Executor post)
    : state_(std::make_shared<State>(std::move(post))),
      thread_([state = state_]() mutable { Loop(std::move(state)); }) {}

CallWorker::~CallWorker() {
  bool detach = false;
  {
    absl::MutexLock lock(&state_->mu);
    state_->stopping = true;
    state_->tasks.clear();
    detach = state_->running;
    state_->detached = detach;
    if (detach) {
      Detached& detached = DetachedThreads();
      absl::MutexLock count_lock(&detached.mu);
      ++detached.count;
    }
  }
  // An idle thread sees `stopping` and ends at once; a busy one is left to
  // finish its task (which can post nothing any more).
  if (detach) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

void CallWorker::Run(std::function<void()> task) {
  absl::MutexLock lock(&state_->mu);
  if (!state_->stopping) state_->tasks.push_back(std::move(task));
}

CallWorker::Executor CallWorker::poster() const {
  return [state = state_](std::function<void()> fn) {
    // Under the lock: the destructor cannot return while `post` runs.
    absl::MutexLock lock(&state->mu);
    if (state->stopping) return;
    state->post([state, fn = std::move(fn)] {
      {
        absl::MutexLock owner_lock(&state->mu);
        if (state->stopping) return;
      }
      fn();
    });
  };
}

bool CallWorker::WaitForDetached(absl::Duration timeout) {
  Detached& detached = DetachedThreads();
  absl::MutexLock lock(&detached.mu);
  auto none = [&detached]()
                  ABSL_EXCLUSIVE_LOCKS_REQUIRED(detached.mu) { return detached.count == 0; };
  return detached.mu.AwaitWithTimeout(absl::Condition(&none), timeout);
}

void CallWorker::Loop(std::shared_ptr<State> state) {
  bool detached = false;
  for (;;) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&state->mu);
      state->running = false;
      auto ready = [&state]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(state->mu) {
        return state->stopping || !state->tasks.empty();
      };
      state->mu.Await(absl::Condition(&ready));
      if (state->stopping) {
        detached = state->detached;
        break;
      }
      task = std::move(state->tasks.front());
      state->tasks.pop_front();
      state->running = true;
    }
    task();
  }
  // Nothing of the worker is touched after the count goes down: the
  // process may be exiting.
  state.reset();
  if (detached) {
    Detached& d = DetachedThreads();
    absl::MutexLock lock(&d.mu);
    --d.count;
  }
}

}  // namespace raw::client
