#include "daemon/loop/session_log.h"

#include <algorithm>

#include "common/logging.h"
#include "common/utf8.h"
#include "daemon/loop/log_subscription.h"

namespace raw::loop {

SessionLog::SessionLog(std::string session_id, uint64_t last_seq, store::SessionStore& store,
                       const Clock& clock, Redactor redact)
    : session_id_(std::move(session_id)),
      store_(store),
      clock_(clock),
      redact_(std::move(redact)),
      next_seq_(last_seq + 1),
      durable_head_(last_seq) {}

SessionLog::~SessionLog() = default;

std::string SessionLog::Redact(const std::string& text) const {
  std::string valid = SanitizeUtf8(text);
  return redact_ ? redact_(valid) : valid;
}

void SessionLog::RedactPayload(events::EventPayload& payload) const {
  if (auto* result = std::get_if<events::ToolResult>(&payload)) {
    result->content = Redact(result->content);
    result->display = Redact(result->display);
  } else if (auto* progress = std::get_if<events::ToolProgress>(&payload)) {
    progress->message = Redact(progress->message);
  } else if (auto* notice = std::get_if<events::Notice>(&payload)) {
    notice->text = Redact(notice->text);
  } else if (auto* ended = std::get_if<events::TurnEnded>(&payload)) {
    ended->message = Redact(ended->message);
  } else if (auto* compacted = std::get_if<events::CompactionEnded>(&payload)) {
    compacted->message = Redact(compacted->message);
  } else if (auto* reset = std::get_if<events::StreamReset>(&payload)) {
    reset->reason = Redact(reset->reason);
  }
}

void SessionLog::RedactLocked(store::CommitBatch& batch) const {
  for (auto& e : batch.events) RedactPayload(e.payload);
  for (auto& item : batch.context_appends) {
    if (auto* outcome = std::get_if<events::ToolOutcome>(&item)) {
      outcome->content = Redact(outcome->content);
    }
  }
}

events::SessionEvent SessionLog::Stamp(const std::string& turn_id, events::EventPayload payload) {
  events::SessionEvent e;
  e.session_id = session_id_;
  e.seq = next_seq_++;
  e.turn_id = turn_id;
  e.time_unix_ms = clock_.NowUnixMs();
  e.payload = std::move(payload);
  return e;
}

absl::Status SessionLog::Commit(const std::string& turn_id,
                                std::vector<events::EventPayload> payloads, CommitExtras extras) {
  std::vector<std::shared_ptr<SubscriberQueue>> to_wake;
  {
    absl::MutexLock lock(&mu_);
    const uint64_t first_seq = next_seq_;
    store::CommitBatch batch;
    for (auto& p : payloads) batch.events.push_back(Stamp(turn_id, std::move(p)));
    batch.context_appends = std::move(extras.context_appends);
    batch.usage = std::move(extras.usage);
    batch.conversation_activity = extras.conversation_activity;
    batch.title = std::move(extras.title);
    batch.replace_context = std::move(extras.replace_context);
    batch.context_meter = std::move(extras.context_meter);
    batch.runtime_hash = std::move(extras.runtime_hash);
    batch.compaction_accepted = extras.compaction_accepted;
    RedactLocked(batch);
    absl::Status status = store_.Commit(session_id_, batch);
    if (!status.ok()) {
      next_seq_ = first_seq;  // nothing was stored or published
      return status;
    }
    // A commit without events (only context or meter changes) ends no
    // streamed step: the live events since the last durable one stay.
    if (batch.events.empty()) return absl::OkStatus();
    durable_head_ = next_seq_ - 1;
    transient_.clear();
    transient_bytes_ = 0;
    transient_dropped_through_ = 0;
    to_wake = FanOutLocked(batch.events);
  }
  Wake(to_wake);
  return absl::OkStatus();
}

void SessionLog::PublishLive(const std::string& turn_id, events::EventPayload payload) {
  std::vector<std::shared_ptr<SubscriberQueue>> to_wake;
  RedactPayload(payload);
  {
    absl::MutexLock lock(&mu_);
    events::SessionEvent e = Stamp(turn_id, std::move(payload));
    RetainLocked(e);
    to_wake = FanOutLocked({e});
  }
  Wake(to_wake);
}

void SessionLog::set_max_live_bytes(int64_t bytes) {
  absl::MutexLock lock(&mu_);
  max_live_bytes_ = static_cast<size_t>(std::max<int64_t>(bytes, 1));
}

size_t SessionLog::LiveBytes(const events::SessionEvent& event) {
  constexpr size_t kFields = 64;
  if (const auto* text = std::get_if<events::TextDelta>(&event.payload)) {
    return kFields + text->text.size();
  }
  if (const auto* reasoning = std::get_if<events::ReasoningDelta>(&event.payload)) {
    return kFields + reasoning->text.size();
  }
  if (const auto* progress = std::get_if<events::ToolProgress>(&event.payload)) {
    return kFields + progress->call_id.size() + progress->message.size();
  }
  if (const auto* reset = std::get_if<events::StreamReset>(&event.payload)) {
    return kFields + reset->reason.size();
  }
  return kFields;
}

void SessionLog::RetainLocked(const events::SessionEvent& e) {
  if (const auto* progress = std::get_if<events::ToolProgress>(&e.payload)) {
    // A late subscriber needs only the latest progress of a call.
    auto same_call = [&](const events::SessionEvent& kept) {
      const auto* earlier = std::get_if<events::ToolProgress>(&kept.payload);
      return earlier != nullptr && earlier->call_id == progress->call_id;
    };
    auto it = std::find_if(transient_.begin(), transient_.end(), same_call);
    if (it != transient_.end()) {
      transient_bytes_ -= LiveBytes(*it);
      transient_.erase(it);
    }
  }
  transient_.push_back(e);
  transient_bytes_ += LiveBytes(e);
  if (transient_bytes_ <= max_live_bytes_) return;
  // Drop the oldest down to half the bound, so that trimming is amortized.
  size_t drop = 0;
  while (drop + 1 < transient_.size() && transient_bytes_ > max_live_bytes_ / 2) {
    transient_bytes_ -= LiveBytes(transient_[drop]);
    transient_dropped_through_ = transient_[drop].seq;
    ++drop;
  }
  transient_.erase(transient_.begin(), transient_.begin() + static_cast<std::ptrdiff_t>(drop));
}

void SessionLog::PublishUnstored(const std::string& turn_id, events::EventPayload payload) {
  PublishLive(turn_id, std::move(payload));
}

std::vector<std::shared_ptr<SubscriberQueue>> SessionLog::FanOutLocked(
    const std::vector<events::SessionEvent>& events) {
  std::vector<std::shared_ptr<SubscriberQueue>> to_wake;
  for (const auto& q : subscribers_) {
    bool wake = false;
    for (const auto& e : events) wake = q->Push(e) || wake;
    if (wake) to_wake.push_back(q);
  }
  return to_wake;
}

void SessionLog::Wake(const std::vector<std::shared_ptr<SubscriberQueue>>& queues) {
  for (const auto& q : queues) q->Wake();
}

SessionLog::Snapshot SessionLog::Attach(const std::shared_ptr<SubscriberQueue>& queue) {
  absl::MutexLock lock(&mu_);
  {
    absl::MutexLock qlock(&queue->mu);
    queue->events.clear();
    queue->bytes = 0;
    queue->max_bytes = max_live_bytes_;
    queue->overflowed = false;
  }
  if (std::find(subscribers_.begin(), subscribers_.end(), queue) == subscribers_.end()) {
    subscribers_.push_back(queue);
  }
  return Snapshot{durable_head_, transient_, transient_dropped_through_};
}

void SessionLog::Detach(const std::shared_ptr<SubscriberQueue>& queue) {
  absl::MutexLock lock(&mu_);
  subscribers_.erase(std::remove(subscribers_.begin(), subscribers_.end(), queue),
                     subscribers_.end());
}

std::unique_ptr<Subscription> SessionLog::Subscribe(uint64_t after_seq) {
  return std::make_unique<LogSubscription>(shared_from_this(), store_, after_seq);
}

uint64_t SessionLog::last_seq() const {
  absl::MutexLock lock(&mu_);
  return next_seq_ - 1;
}

}  // namespace raw::loop
