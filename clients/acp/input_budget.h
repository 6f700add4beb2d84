// InputBudget: how much input one ACP connection has read but not yet
// handled, and the wait that keeps it bounded.
//
// A transport's reader claims each message's bytes before it hands the
// message on, and the claim travels with the message to whatever handles it
// (AcpServer posts it to the event loop with the message); the bytes are
// given back when the last copy of the claim is destroyed, i.e. once the
// task that handled the message has run (or was dropped). While the claims
// outstanding would pass the limit, Acquire waits: the reader stops
// reading, and the kernel's pipe or TCP window slows the client down,
// instead of raw-acp queueing every message it is sent. The wait is the
// reader's (stdio's reader thread, the WebSocket handler's turn), never
// the event loop's.
//
// Header-only: both raw_acp and raw_acp_ws (ws_listener.cc, a library of
// its own) use it.
//
// Thread-safe. Claims may be copied and destroyed on any thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace raw::acp {

class InputBudget;

// A received message's hold on its connection's budget. An empty claim
// (default-constructed) holds nothing.
class InputClaim {
 public:
  InputClaim() = default;
  // Gives this copy's hold back now (the bytes return once every copy did).
  void Release() { hold_.reset(); }

 private:
  friend class InputBudget;
  explicit InputClaim(std::shared_ptr<void> hold) : hold_(std::move(hold)) {}
  std::shared_ptr<void> hold_;
};

class InputBudget : public std::enable_shared_from_this<InputBudget> {
 public:
  // `limit`: the most bytes outstanding, except that one message always
  // passes when nothing is outstanding (so a message as long as the limit
  // is never refused).
  static std::shared_ptr<InputBudget> Create(size_t limit) {
    return std::shared_ptr<InputBudget>(new InputBudget(limit));
  }

  // Waits until `bytes` more fit (or nothing is outstanding), then claims
  // them. An empty claim, at once, after Close(): the connection is ending
  // and its reader must stop.
  InputClaim Acquire(size_t bytes) {
    absl::MutexLock lock(&mu_);
    auto room = [this, bytes]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return closed_ || outstanding_ == 0 || outstanding_ + bytes <= limit_;
    };
    if (!room()) {
      ++waiting_;
      mu_.Await(absl::Condition(&room));
      --waiting_;
    }
    if (closed_) return InputClaim();
    outstanding_ += bytes;
    peak_ = std::max(peak_, outstanding_);
    // The hold keeps the budget alive: a task may outlive the transport.
    auto hold = std::shared_ptr<void>(
        nullptr, [self = shared_from_this(), bytes](void*) { self->Give(bytes); });
    return InputClaim(std::move(hold));
  }

  // Ends every wait; Acquire claims nothing from now on.
  void Close() {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }
  bool closed() const {
    absl::MutexLock lock(&mu_);
    return closed_;
  }

  size_t limit() const { return limit_; }
  size_t outstanding() const {
    absl::MutexLock lock(&mu_);
    return outstanding_;
  }
  // Tests: waits at most `timeout` for a reader to wait in Acquire.
  bool AwaitWaitingReader(absl::Duration timeout) const {
    absl::MutexLock lock(&mu_);
    auto waiting = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return waiting_ > 0; };
    return mu_.AwaitWithTimeout(absl::Condition(&waiting), timeout);
  }
  // The most that was ever outstanding (tests).
  size_t peak() const {
    absl::MutexLock lock(&mu_);
    return peak_;
  }

 private:
  explicit InputBudget(size_t limit) : limit_(limit) {}

  void Give(size_t bytes) {
    absl::MutexLock lock(&mu_);
    outstanding_ -= std::min(outstanding_, bytes);
  }

  const size_t limit_;
  mutable absl::Mutex mu_;
  size_t outstanding_ ABSL_GUARDED_BY(mu_) = 0;
  size_t peak_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;  // readers in Acquire
};

}  // namespace raw::acp
