#include "clients/lib/call_worker.h"

namespace raw::client {

CallWorker::CallWorker() : thread_([this] { Loop(); }) {}

CallWorker::~CallWorker() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    tasks_.clear();
  }
  thread_.join();
}

void CallWorker::Run(std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  if (!stopping_) tasks_.push_back(std::move(task));
}

bool CallWorker::Ready() const { return stopping_ || !tasks_.empty(); }

void CallWorker::Loop() {
  for (;;) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &CallWorker::Ready));
      if (stopping_) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace raw::client
