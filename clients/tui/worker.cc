#include "clients/tui/worker.h"

namespace raw::tui {

Worker::Worker() : thread_([this] { Loop(); }) {}

Worker::~Worker() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    tasks_.clear();
  }
  thread_.join();
}

void Worker::Run(std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  if (!stopping_) tasks_.push_back(std::move(task));
}

bool Worker::Ready() const { return stopping_ || !tasks_.empty(); }

void Worker::Loop() {
  for (;;) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &Worker::Ready));
      if (stopping_) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace raw::tui
