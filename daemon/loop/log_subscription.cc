#include "daemon/loop/log_subscription.h"

#include <algorithm>

namespace raw::loop {
namespace {
// A replay reads the store a page at a time: at most this many events and
// (after the first) payload bytes, so that each subscriber that has not
// caught up holds about that much of the daemon's memory, however large
// the session's events.
constexpr int kStorePageSize = 256;
constexpr size_t kStorePageBytes = size_t{1} << 20;
}  // namespace

bool SubscriberQueue::Push(const events::SessionEvent& event) {
  absl::MutexLock lock(&mu);
  if (closed || overflowed) return false;
  const size_t event_bytes = SessionLog::QueuedBytes(event);
  // One event larger than the bound is still queued alone: the consumer
  // would read it from the store anyway.
  if (events.size() >= SessionLog::kMaxQueuedEvents ||
      (!events.empty() && bytes + event_bytes > max_bytes)) {
    // The consumer is too slow: drop what is queued and let it catch up
    // from the store (durable events are all there).
    events.clear();
    bytes = 0;
    overflowed = true;
  } else {
    events.push_back(event);
    bytes += event_bytes;
  }
  if (!want_wakeup) return false;
  want_wakeup = false;
  return true;
}

void SubscriberQueue::Wake() {
  std::function<void()> fn;
  {
    absl::MutexLock lock(&mu);
    if (closed) return;
    fn = wakeup;
  }
  if (fn) fn();
}

LogSubscription::LogSubscription(std::shared_ptr<SessionLog> log, store::SessionStore& store,
                                 uint64_t after_seq)
    : log_(std::move(log)),
      store_(store),
      queue_(std::make_shared<SubscriberQueue>()),
      last_delivered_(after_seq) {
  log_->subscriptions_.fetch_add(1, std::memory_order_acq_rel);
  Restart();
}

LogSubscription::~LogSubscription() {
  Close();
  log_->subscriptions_.fetch_sub(1, std::memory_order_acq_rel);
}

void LogSubscription::Restart() {
  SessionLog::Snapshot snap = log_->Attach(queue_);
  replay_head_ = snap.durable_head;
  page_.clear();
  transient_.assign(snap.transient.begin(), snap.transient.end());
  transient_dropped_through_ = snap.dropped_through;
  phase_ = Phase::kStore;
}

void LogSubscription::SetWakeup(std::function<void()> wakeup) {
  absl::MutexLock lock(&queue_->mu);
  queue_->wakeup = std::move(wakeup);
}

void LogSubscription::Close() {
  {
    absl::MutexLock lock(&queue_->mu);
    if (queue_->closed) return;
    queue_->closed = true;
    queue_->wakeup = nullptr;
  }
  closed_ = true;
  log_->Detach(queue_);
}

absl::StatusOr<std::optional<events::SessionEvent>> LogSubscription::NextFromStore() {
  while (true) {
    while (!page_.empty() && page_.front().seq <= last_delivered_) page_.pop_front();
    if (!page_.empty()) {
      if (page_.front().seq > replay_head_) {
        page_.clear();
        return std::nullopt;
      }
      events::SessionEvent e = std::move(page_.front());
      page_.pop_front();
      return e;
    }
    if (last_delivered_ >= replay_head_) return std::nullopt;
    auto rows =
        store_.ReadEvents(log_->session_id(), last_delivered_, kStorePageSize, kStorePageBytes);
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return std::nullopt;
    page_.assign(std::make_move_iterator(rows->begin()), std::make_move_iterator(rows->end()));
  }
}

absl::StatusOr<std::optional<events::SessionEvent>> LogSubscription::TryNext() {
  if (closed_) return std::nullopt;
  bool overflowed = false;
  {
    absl::MutexLock lock(&queue_->mu);
    if (!queue_->ended.ok()) return queue_->ended;
    overflowed = queue_->overflowed;
  }
  if (overflowed) {
    // Tell the consumer that live-only events were lost, then catch up.
    Restart();
    events::SessionEvent resync;
    resync.session_id = log_->session_id();
    resync.payload = events::Resync{last_delivered_};
    return resync;
  }
  if (phase_ == Phase::kStore) {
    auto next = NextFromStore();
    if (!next.ok()) return next.status();
    if (next->has_value()) {
      last_delivered_ = (*next)->seq;
      return next;
    }
    phase_ = Phase::kTransient;
  }
  if (phase_ == Phase::kTransient) {
    if (transient_dropped_through_ > last_delivered_) {
      // Live events this subscriber never saw were dropped (the session's
      // live bound): say so, as after a lagging queue, then go on. The
      // resync names the drop point, not the last event delivered: what
      // lies between is gone for good, and a client that subscribes again
      // after the last delivered seq would meet the same drop and the same
      // resync again, for as long as the step streams.
      last_delivered_ = transient_dropped_through_;
      events::SessionEvent resync;
      resync.session_id = log_->session_id();
      resync.payload = events::Resync{last_delivered_};
      return resync;
    }
    while (!transient_.empty()) {
      events::SessionEvent e = std::move(transient_.front());
      transient_.pop_front();
      if (e.seq <= last_delivered_) continue;
      last_delivered_ = e.seq;
      return e;
    }
    phase_ = Phase::kLive;
  }
  {
    absl::MutexLock lock(&queue_->mu);
    while (!queue_->events.empty()) {
      events::SessionEvent e = std::move(queue_->events.front());
      queue_->events.pop_front();
      queue_->bytes -= std::min(queue_->bytes, SessionLog::QueuedBytes(e));
      if (e.seq <= last_delivered_) continue;
      last_delivered_ = e.seq;
      return e;
    }
    if (!queue_->overflowed) {
      queue_->want_wakeup = true;
      return std::nullopt;
    }
  }
  return TryNext();  // overflowed since the check above: resync now
}

}  // namespace raw::loop
