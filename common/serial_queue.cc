#include "common/serial_queue.h"

#include <utility>

namespace raw {

bool SerialQueue::Post(Command command) {
  // Kept past the lock: a refused drain task is destroyed inside Schedule,
  // with mu_ held, and must not hold the queue's last reference.
  std::shared_ptr<SerialQueue> self = shared_from_this();
  absl::MutexLock lock(&mu_);
  if (!draining_) {
    // Scheduled with mu_ held, so no other Post sees draining_ before the
    // pool has taken the drain: when it refuses, nothing was accepted
    // meanwhile, and this command, never queued, is the only one refused.
    // The drain cannot start before mu_ is let go, and finds the command
    // then. Lock order: mu_, then the pool's lock (Schedule never runs a
    // task inline, and a worker runs tasks without its lock).
    if (!pool_.Schedule([self] { self->Drain(); })) return false;
    draining_ = true;
  }
  commands_.push_back(std::move(command));
  return true;
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
