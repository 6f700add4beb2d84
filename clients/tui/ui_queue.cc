#include "clients/tui/ui_queue.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace raw::tui {

UiQueue::UiQueue() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

UiQueue::~UiQueue() {
  if (fd_ >= 0) close(fd_);
}

void UiQueue::Post(Task task) {
  bool wake;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    wake = tasks_.empty();
    tasks_.push_back(std::move(task));
  }
  if (wake) {
    uint64_t one = 1;
    (void)!write(fd_, &one, sizeof one);
  }
}

int UiQueue::RunPending() {
  uint64_t count = 0;
  (void)!read(fd_, &count, sizeof count);
  std::deque<Task> tasks;
  {
    absl::MutexLock lock(&mu_);
    tasks.swap(tasks_);
  }
  for (Task& task : tasks) task();
  return static_cast<int>(tasks.size());
}

void UiQueue::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
  tasks_.clear();
}

}  // namespace raw::tui
