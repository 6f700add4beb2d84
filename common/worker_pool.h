// WorkerPool: runs tasks on threads of its own, so that whoever schedules a
// task never waits for it. Elastic: a task starts at once on an idle worker,
// or on a new one when every worker is busy (so a slow task never delays an
// unrelated one), up to an optional ceiling of threads; a worker idle for
// `idle_exit` exits, except the last one.
// The pool starts that one worker when it is made. Used for the daemon's
// slow work: turns, compactions, turn preparation (MCP start, secret
// variables, probes) and the per-session serial queues (serial_queue.h).
//
// When no thread can be started (a process or thread limit), the task
// waits in the queue for a worker that runs now to take it, and the next
// Schedule tries again: the daemon keeps going on the threads it has. The
// worker that never idles out is what makes this hold: without it, a pool
// whose workers had all exited would keep such a task queued until some
// later Schedule found a thread, which may never come.
//
// Each worker names its thread `name` (cut to the 15 bytes Linux keeps), so
// that /proc/PID/task/*/comm, top -H and a debugger tell the pools apart.
//
// Thread-safe. Shutdown() refuses new tasks, lets running and queued tasks
// finish and joins every worker; the destructor calls it. A task must not
// call Shutdown().
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace raw {

class WorkerPool {
 public:
  using Task = std::function<void()>;

  // Starts a thread running `body`; throws std::system_error when none can
  // be started (std::thread's contract). Replaceable for tests.
  using ThreadStarter = std::function<std::thread(std::function<void()> body)>;

  // `max_threads` (0 = no bound): past that many workers a task waits in
  // the queue for a running worker, as when no thread can be started. Only
  // for tasks that never wait on one another.
  explicit WorkerPool(std::string name = "raw-worker", absl::Duration idle_exit = absl::Seconds(30),
                      ThreadStarter start_thread = nullptr, size_t max_threads = 0);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs `task` on a worker. Returns false (and drops the task) after
  // Shutdown() began. Never runs `task` inline and waits for no task: a
  // SerialQueue calls it with its own lock held.
  bool Schedule(Task task);
  void Shutdown();

  // Workers alive now (busy or idle).
  size_t threads() const;

 private:
  struct Worker {
    std::thread thread;
    bool exited = false;
  };
  // Starts a worker, counted idle until it takes its first task; false when
  // no thread can be started.
  bool StartWorkerLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Run(std::list<Worker>::iterator self);
  size_t LiveWorkersLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Joins workers that have exited.
  void ReapLocked(std::list<Worker>* reaped) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  const absl::Duration idle_exit_;
  const ThreadStarter start_thread_;
  const size_t max_threads_;
  mutable absl::Mutex mu_;
  absl::CondVar wake_;
  std::list<Task> tasks_ ABSL_GUARDED_BY(mu_);
  std::list<Worker> workers_ ABSL_GUARDED_BY(mu_);
  size_t idle_ ABSL_GUARDED_BY(mu_) = 0;
  // Workers in workers_ that have exited and wait to be joined.
  size_t exited_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool spawn_failing_ ABSL_GUARDED_BY(mu_) = false;  // warned once per run of failures
};

}  // namespace raw
