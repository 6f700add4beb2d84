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
    transient_.push_back(e);
    to_wake = FanOutLocked({e});
  }
  Wake(to_wake);
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
    queue->overflowed = false;
  }
  if (std::find(subscribers_.begin(), subscribers_.end(), queue) == subscribers_.end()) {
    subscribers_.push_back(queue);
  }
  return Snapshot{durable_head_, transient_};
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
