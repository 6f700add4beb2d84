#include "common/worker_pool.h"

#include <pthread.h>

#include <system_error>
#include <utility>

#include "common/logging.h"

namespace raw {

WorkerPool::WorkerPool(std::string name, absl::Duration idle_exit, ThreadStarter start_thread,
                       size_t max_threads)
    : name_(name.substr(0, 15)),
      idle_exit_(idle_exit),
      start_thread_(start_thread
                        ? std::move(start_thread)
                        : [](std::function<void()> body) { return std::thread(std::move(body)); }),
      max_threads_(max_threads) {
  absl::MutexLock lock(&mu_);
  StartWorkerLocked();  // when it fails, the first Schedule tries again
}

WorkerPool::~WorkerPool() { Shutdown(); }

bool WorkerPool::Schedule(Task task) {
  std::list<Worker> reaped;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return false;
    ReapLocked(&reaped);
    tasks_.push_back(std::move(task));
    wake_.Signal();
    // Every queued task has an idle worker to take it, or gets a new one
    // (below the ceiling; past it, the next worker free takes it).
    if (tasks_.size() > idle_ && (max_threads_ == 0 || LiveWorkersLocked() < max_threads_)) {
      StartWorkerLocked();
    }
  }
  for (Worker& w : reaped) w.thread.join();
  return true;
}

bool WorkerPool::StartWorkerLocked() {
  workers_.emplace_back();
  auto self = std::prev(workers_.end());
  ++idle_;
  try {
    self->thread = start_thread_([this, self] { Run(self); });
    spawn_failing_ = false;
    return true;
  } catch (const std::system_error& e) {
    // No thread to be had: a queued task waits for a running worker.
    --idle_;
    workers_.erase(self);
    if (!spawn_failing_) {
      RAW_LOG(Warning) << "cannot start a worker thread (" << e.what() << "); " << tasks_.size()
                       << " task(s) wait for the " << LiveWorkersLocked() << " running";
    }
    spawn_failing_ = true;
    return false;
  }
}

size_t WorkerPool::LiveWorkersLocked() const { return workers_.size() - exited_; }

void WorkerPool::Run(std::list<Worker>::iterator self) {
  pthread_setname_np(pthread_self(), name_.c_str());  // fails only for a name over 15 bytes
  absl::MutexLock lock(&mu_);
  while (true) {
    absl::Time deadline = absl::Now() + idle_exit_;
    while (tasks_.empty() && !stopping_) {
      if (wake_.WaitWithDeadline(&mu_, deadline) && tasks_.empty() && !stopping_) {
        if (LiveWorkersLocked() == 1) {
          // The last worker stays, until a task or Shutdown wakes it.
          deadline = absl::InfiniteFuture();
          continue;
        }
        // Idle too long: leave; Schedule or Shutdown joins the thread.
        --idle_;
        self->exited = true;
        ++exited_;
        return;
      }
    }
    if (tasks_.empty()) {  // stopping, nothing left to do
      // Shutdown took every worker out of workers_ (it joins them), so this
      // one is not counted in exited_.
      --idle_;
      self->exited = true;
      return;
    }
    Task task = std::move(tasks_.front());
    tasks_.pop_front();
    --idle_;
    mu_.Unlock();
    task();
    task = nullptr;  // destroy captures outside the lock
    mu_.Lock();
    ++idle_;
  }
}

void WorkerPool::ReapLocked(std::list<Worker>* reaped) {
  // Most calls find none: the list is walked only when one has exited.
  if (exited_ == 0) return;
  for (auto it = workers_.begin(); it != workers_.end();) {
    auto next = std::next(it);
    if (it->exited) {
      reaped->splice(reaped->end(), workers_, it);
      --exited_;
    }
    it = next;
  }
}

void WorkerPool::Shutdown() {
  std::list<Worker> all;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    wake_.SignalAll();
    // Workers finish the queued tasks, then see stopping_ and exit.
    all.splice(all.end(), workers_);
    exited_ = 0;
  }
  for (Worker& w : all) {
    if (w.thread.joinable()) w.thread.join();
  }
}

size_t WorkerPool::threads() const {
  absl::MutexLock lock(&mu_);
  return LiveWorkersLocked();
}

}  // namespace raw
