#include "common/serial_queue.h"

#include <utility>

namespace raw {

bool SerialQueue::Post(Command command) {
  {
    absl::MutexLock lock(&mu_);
    commands_.push_back(std::move(command));
    if (draining_) return true;
    draining_ = true;
  }
  if (pool_.Schedule([self = shared_from_this()] { self->Drain(); })) return true;
  absl::MutexLock lock(&mu_);
  commands_.clear();
  draining_ = false;
  return false;
}

void SerialQueue::Drain() {
  while (true) {
    Command command;
    {
      absl::MutexLock lock(&mu_);
      if (commands_.empty()) {
        draining_ = false;
        return;
      }
      command = std::move(commands_.front());
    }
    command();
    command = nullptr;
    absl::MutexLock lock(&mu_);
    commands_.pop_front();
  }
}

size_t SerialQueue::pending() const {
  absl::MutexLock lock(&mu_);
  return commands_.size();
}

}  // namespace raw
