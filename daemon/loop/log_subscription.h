// LogSubscription: the Subscription implementation over a SessionLog.
// See subscription.h for the delivery contract and session_log.h for where
// events come from. Internal to the loop.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "daemon/loop/session_log.h"
#include "daemon/loop/subscription.h"

namespace raw::loop {

// The live half of a subscription, shared between the log (producer) and
// the subscription (consumer).
struct SubscriberQueue {
  absl::Mutex mu;
  std::deque<events::SessionEvent> events ABSL_GUARDED_BY(mu);
  // SessionLog::QueuedBytes of `events`, and its bound.
  size_t bytes ABSL_GUARDED_BY(mu) = 0;
  size_t max_bytes ABSL_GUARDED_BY(mu) = 8 * 1024 * 1024;
  bool overflowed ABSL_GUARDED_BY(mu) = false;
  bool closed ABSL_GUARDED_BY(mu) = false;
  absl::Status ended ABSL_GUARDED_BY(mu);  // SessionLog::EndSubscriptions
  bool want_wakeup ABSL_GUARDED_BY(mu) = false;
  std::function<void()> wakeup ABSL_GUARDED_BY(mu);

  // Producer side: queues `event`; returns true when the consumer must be
  // woken. On overflow the queue is emptied and marked; the consumer then
  // catches up from the store.
  bool Push(const events::SessionEvent& event);
  // Runs the wakeup callback if one is installed (outside `mu`).
  void Wake();
};

class LogSubscription : public Subscription {
 public:
  LogSubscription(std::shared_ptr<SessionLog> log, store::SessionStore& store, uint64_t after_seq);
  ~LogSubscription() override;

  absl::StatusOr<std::optional<events::SessionEvent>> TryNext() override;
  void SetWakeup(std::function<void()> wakeup) override;
  void Close() override;

 private:
  enum class Phase { kStore, kTransient, kLive };
  // (Re)attaches the live queue and restarts replay from last_delivered_.
  void Restart();
  absl::StatusOr<std::optional<events::SessionEvent>> NextFromStore();

  std::shared_ptr<SessionLog> log_;
  store::SessionStore& store_;
  std::shared_ptr<SubscriberQueue> queue_;

  // Consumer-thread state.
  Phase phase_ = Phase::kStore;
  uint64_t last_delivered_ = 0;
  uint64_t replay_head_ = 0;
  std::deque<events::SessionEvent> page_;
  std::deque<events::SessionEvent> transient_;
  // The log dropped live events up to this seq before the snapshot.
  uint64_t transient_dropped_through_ = 0;
  // Close() may run on any thread while the consumer is in TryNext().
  std::atomic<bool> closed_{false};
};

}  // namespace raw::loop
