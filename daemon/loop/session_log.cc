#include "daemon/loop/session_log.h"

#include <algorithm>

#include "common/logging.h"
#include "common/status_macros.h"
#include "common/utf8.h"
#include "daemon/events/payload_strings.h"
#include "daemon/loop/log_subscription.h"
#include "daemon/vars/redact.h"

namespace raw::loop {

SessionLog::SessionLog(std::string session_id, uint64_t last_seq, store::SessionStore& store,
                       const Clock& clock, SecretSource secrets, uint64_t seq_reserved)
    : session_id_(std::move(session_id)),
      store_(store),
      clock_(clock),
      secrets_(std::move(secrets)),
      next_seq_(std::max(last_seq, seq_reserved) + 1),
      durable_head_(last_seq),
      seq_reserved_(std::max(last_seq, seq_reserved)) {}

SessionLog::~SessionLog() = default;

std::string SessionLog::Redact(const std::string& text) const {
  std::string out = text;
  vars::SanitizeAndRedact(out, SecretValues());
  return out;
}

std::vector<std::string> SessionLog::SecretValues() const {
  return secrets_ ? secrets_() : std::vector<std::string>{};
}

void SessionLog::RedactPayload(events::EventPayload& payload) const {
  const std::vector<std::string> secrets = SecretValues();
  events::ForEachString(payload,
                        [&secrets](std::string& text) { vars::SanitizeAndRedact(text, secrets); });
}

void SessionLog::RedactItem(events::ContextItem& item) const {
  const std::vector<std::string> secrets = SecretValues();
  events::ForEachString(item,
                        [&secrets](std::string& text) { vars::SanitizeAndRedact(text, secrets); });
}

void SessionLog::RedactLocked(store::CommitBatch& batch) const {
  const std::vector<std::string> secrets = SecretValues();
  auto redact = [&secrets](std::string& text) { vars::SanitizeAndRedact(text, secrets); };
  for (auto& e : batch.events) events::ForEachString(e.payload, redact);
  for (auto& item : batch.context_appends) events::ForEachString(item, redact);
  if (batch.replace_context.has_value()) {
    for (auto& item : *batch.replace_context) events::ForEachString(item, redact);
  }
  redact(batch.title);
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
    std::vector<events::SessionEvent> stamped;
    for (auto& p : payloads) stamped.push_back(Stamp(turn_id, std::move(p)));
    absl::Status status = CommitStampedLocked(std::move(stamped), std::move(extras), to_wake);
    if (!status.ok()) {
      next_seq_ = first_seq;  // nothing was stored or published
      return status;
    }
  }
  Wake(to_wake);
  return absl::OkStatus();
}

absl::Status SessionLog::CommitPublished(uint64_t seq, const std::string& turn_id,
                                         events::EventPayload payload, CommitExtras extras) {
  std::vector<OwedEvent> owed;
  owed.push_back(OwedEvent{seq, std::move(payload)});
  return CommitPublished(std::move(owed), turn_id, std::move(extras));
}

absl::Status SessionLog::CommitPublished(std::vector<OwedEvent> owed, const std::string& turn_id,
                                         CommitExtras extras) {
  std::vector<std::shared_ptr<SubscriberQueue>> to_wake;
  {
    absl::MutexLock lock(&mu_);
    const uint64_t first_seq = next_seq_;
    // Their own seqs while they are still the latest: the events take the
    // place of what subscribers saw under them.
    bool own_seqs =
        !owed.empty() && owed.front().seq > durable_head_ && owed.back().seq + 1 == first_seq;
    for (size_t i = 1; own_seqs && i < owed.size(); ++i) {
      own_seqs = owed[i].seq == owed[i - 1].seq + 1;
    }
    if (own_seqs) next_seq_ = owed.front().seq;
    std::vector<events::SessionEvent> stamped;
    for (OwedEvent& e : owed) stamped.push_back(Stamp(turn_id, std::move(e.payload)));
    absl::Status status = CommitStampedLocked(std::move(stamped), std::move(extras), to_wake);
    if (!status.ok()) {
      next_seq_ = first_seq;
      return status;
    }
  }
  Wake(to_wake);
  return absl::OkStatus();
}

absl::Status SessionLog::CommitStampedLocked(
    std::vector<events::SessionEvent> stamped, CommitExtras extras,
    std::vector<std::shared_ptr<SubscriberQueue>>& to_wake) {
  store::CommitBatch batch;
  batch.events = std::move(stamped);
  batch.context_appends = std::move(extras.context_appends);
  batch.usage = std::move(extras.usage);
  batch.conversation_activity = extras.conversation_activity;
  batch.title = std::move(extras.title);
  batch.replace_context = std::move(extras.replace_context);
  batch.context_meter = std::move(extras.context_meter);
  batch.runtime_hash = std::move(extras.runtime_hash);
  batch.compaction_accepted = extras.compaction_accepted;
  // Keep at least half a reservation ahead of the live events to come.
  if (next_seq_ + kSeqReservation / 2 > seq_reserved_) {
    batch.reserve_seqs_through = next_seq_ - 1 + kSeqReservation;
  }
  RedactLocked(batch);
  RETURN_IF_ERROR(store_.Commit(session_id_, batch));
  seq_reserved_ = std::max(seq_reserved_, batch.reserve_seqs_through);
  // A commit without events (only context or meter changes) ends no
  // streamed step: the live events since the last durable one stay.
  if (batch.events.empty()) return absl::OkStatus();
  durable_head_ = next_seq_ - 1;
  transient_.clear();
  transient_bytes_ = 0;
  transient_dropped_through_ = 0;
  pending_text_.clear();
  pending_reasoning_.clear();
  to_wake = FanOutLocked(batch.events);
  return absl::OkStatus();
}

namespace {

// The part of `pending` (streamed text not yet shown) that may be shown now,
// redacted, removed from it; all of it when `flush`. What was taken before
// ended at a safe cut, so no secret spans the start of `pending`.
std::string TakeShowable(std::string& pending, bool flush,
                         const std::vector<std::string>& secrets) {
  size_t cut = pending.size();
  if (!flush) cut = Utf8Floor(pending, vars::SafeRedactionCut(pending, secrets));
  std::string shown = vars::Redact(SanitizeUtf8(std::string_view(pending).substr(0, cut)), secrets);
  pending.erase(0, cut);
  return shown;
}

}  // namespace

void SessionLog::ReserveLiveSeqLocked() {
  if (next_seq_ <= std::max(seq_reserved_, reservation_tried_through_)) return;
  store::CommitBatch reservation;
  reservation.reserve_seqs_through = next_seq_ - 1 + kSeqReservation;
  // Tried once per reservation's worth of seqs, whether or not it is
  // stored: a failing store is not asked again for every delta.
  reservation_tried_through_ = reservation.reserve_seqs_through;
  if (absl::Status s = store_.Commit(session_id_, reservation); !s.ok()) {
    // Publishing goes on, and seq_reserved_ stays what the store holds, so
    // the next durable commit carries the reservation: only a restart
    // before it could number an event with a seq a client has seen.
    RAW_LOG(Warning) << "session " << session_id_ << ": reserving event seqs: " << s;
    return;
  }
  seq_reserved_ = reservation.reserve_seqs_through;
}

uint64_t SessionLog::PublishLocked(const std::string& turn_id, events::EventPayload payload,
                                   std::vector<std::shared_ptr<SubscriberQueue>>& to_wake) {
  ReserveLiveSeqLocked();
  events::SessionEvent e = Stamp(turn_id, std::move(payload));
  RetainLocked(e);
  for (auto& q : FanOutLocked({e})) to_wake.push_back(std::move(q));
  return e.seq;
}

void SessionLog::PublishLive(const std::string& turn_id, events::EventPayload payload) {
  std::vector<std::shared_ptr<SubscriberQueue>> to_wake;
  auto* text = std::get_if<events::TextDelta>(&payload);
  auto* reasoning = std::get_if<events::ReasoningDelta>(&payload);
  if (text == nullptr && reasoning == nullptr) RedactPayload(payload);
  const std::vector<std::string> secrets = SecretValues();
  {
    absl::MutexLock lock(&mu_);
    if (text != nullptr || reasoning != nullptr) {
      std::string& pending = text != nullptr ? pending_text_ : pending_reasoning_;
      std::string& piece = text != nullptr ? text->text : reasoning->text;
      pending += piece;
      piece = TakeShowable(pending, /*flush=*/false, secrets);
      if (piece.empty()) return;
    } else if (std::holds_alternative<events::StreamReset>(payload)) {
      pending_text_.clear();
      pending_reasoning_.clear();
    }
    PublishLocked(turn_id, std::move(payload), to_wake);
  }
  Wake(to_wake);
}

void SessionLog::FlushLive(const std::string& turn_id) {
  std::vector<std::shared_ptr<SubscriberQueue>> to_wake;
  const std::vector<std::string> secrets = SecretValues();
  {
    absl::MutexLock lock(&mu_);
    std::string reasoning = TakeShowable(pending_reasoning_, /*flush=*/true, secrets);
    if (!reasoning.empty()) PublishLocked(turn_id, events::ReasoningDelta{reasoning}, to_wake);
    std::string text = TakeShowable(pending_text_, /*flush=*/true, secrets);
    if (!text.empty()) PublishLocked(turn_id, events::TextDelta{text}, to_wake);
  }
  Wake(to_wake);
}

void SessionLog::set_max_live_bytes(int64_t bytes) {
  absl::MutexLock lock(&mu_);
  max_live_bytes_ = static_cast<size_t>(std::max<int64_t>(bytes, 1));
}

namespace {
// glibc's header and rounding for one heap block.
constexpr size_t kHeapBlock = 16;

// The heap bytes of a string beyond the object itself: none while it fits
// in the object (libstdc++ keeps up to 15 characters there). By size, not
// capacity, so that an event and its copies count the same.
size_t HeapBytes(const std::string& s) { return s.size() > 15 ? s.size() + 1 + kHeapBlock : 0; }

// What an event costs before its payload's strings: the event object (its
// payload a variant as large as its largest kind) and its ids' heap copies.
// A queue of one-byte deltas is bounded by this, not by its text.
size_t FixedBytes(const events::SessionEvent& event) {
  return sizeof(events::SessionEvent) + HeapBytes(event.session_id) + HeapBytes(event.turn_id);
}
}  // namespace

size_t SessionLog::QueuedBytes(const events::SessionEvent& event) {
  if (!events::IsDurable(event.payload)) return LiveBytes(event);
  size_t bytes = FixedBytes(event);
  // ForEachString visits for rewriting; here it only reads, so the event
  // is not changed.
  events::ForEachString(const_cast<events::EventPayload&>(event.payload),
                        [&bytes](std::string& text) { bytes += text.size(); });
  // Image data is not text ForEachString visits (nothing rewrites it).
  if (const auto* user = std::get_if<events::UserMessage>(&event.payload)) {
    for (const events::ImagePart& image : user->images) bytes += image.base64.size();
  }
  return bytes;
}

size_t SessionLog::LiveBytes(const events::SessionEvent& event) {
  const size_t fixed = FixedBytes(event);
  if (const auto* text = std::get_if<events::TextDelta>(&event.payload)) {
    return fixed + HeapBytes(text->text);
  }
  if (const auto* reasoning = std::get_if<events::ReasoningDelta>(&event.payload)) {
    return fixed + HeapBytes(reasoning->text);
  }
  if (const auto* progress = std::get_if<events::ToolProgress>(&event.payload)) {
    return fixed + HeapBytes(progress->call_id) + HeapBytes(progress->message);
  }
  if (const auto* reset = std::get_if<events::StreamReset>(&event.payload)) {
    return fixed + HeapBytes(reset->reason);
  }
  return fixed;
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

uint64_t SessionLog::PublishUnstored(const std::string& turn_id, events::EventPayload payload) {
  RedactPayload(payload);
  std::vector<std::shared_ptr<SubscriberQueue>> to_wake;
  uint64_t seq = 0;
  {
    absl::MutexLock lock(&mu_);
    seq = PublishLocked(turn_id, std::move(payload), to_wake);
  }
  Wake(to_wake);
  return seq;
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
    queue->ended = ended_;
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

void SessionLog::EndSubscriptions(absl::Status why) {
  std::vector<std::shared_ptr<SubscriberQueue>> to_wake;  // those waiting for an event
  {
    absl::MutexLock lock(&mu_);
    ended_ = why;
    for (const auto& queue : subscribers_) {
      absl::MutexLock qlock(&queue->mu);
      queue->ended = why;
      queue->events.clear();
      queue->bytes = 0;
      if (queue->want_wakeup) to_wake.push_back(queue);
      queue->want_wakeup = false;
    }
  }
  Wake(to_wake);
}

uint64_t SessionLog::last_seq() const {
  absl::MutexLock lock(&mu_);
  return next_seq_ - 1;
}

}  // namespace raw::loop
