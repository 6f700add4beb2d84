// SessionLog: the single place where a session's events get their seq.
//
// Durable events are written to the store (together with the model-context
// and usage changes they imply, in one transaction) before anyone sees them;
// live-only events (deltas, stream resets) are only fanned out. Every event
// gets the next seq, so stored seqs may have holes where deltas were; they
// never repeat and always increase, also across daemon restarts: the seqs
// live-only events may take are reserved in the store ahead of use
// (store::CommitBatch::reserve_seqs_through), and a log created for a
// session numbers after the reservation, so a client that saw a delta's seq
// never has a later event skipped as already seen.
//
// The log also remembers the live-only events published since the last
// durable commit, so a subscriber that joins in the middle of a streamed
// answer still sees all of it. What it remembers is bounded
// (set_max_live_bytes, sessions.max_live_bytes): only the latest progress
// of each call is kept, and past the bound the oldest live events are
// dropped; a subscriber that joins after a drop first gets a Resync and
// then the rest (the committed message carries the whole text).
//
// Thread-safety: all methods are thread-safe. Subscriptions are woken after
// the log's lock is released, so a wakeup may call back into the log.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/time.h"
#include "daemon/events/session_event.h"
#include "daemon/loop/subscription.h"
#include "daemon/store/session_store.h"

namespace raw::loop {

struct SubscriberQueue;

// What a durable commit changes besides the display history.
struct CommitExtras {
  std::vector<events::ContextItem> context_appends;
  std::optional<events::Usage> usage;
  bool conversation_activity = false;
  std::string title;
  // Replaces the whole model context before context_appends (compaction,
  // /clear); see store::CommitBatch.
  std::optional<std::vector<events::ContextItem>> replace_context{};
  // The context meter's state and the runtime record, stored with the
  // session (see store::CommitBatch).
  std::optional<std::string> context_meter{};
  std::optional<std::string> runtime_hash{};
  bool compaction_accepted = false;
};

// An event published without being stored (SessionLog::PublishUnstored)
// that is still to be stored, under the seq clients saw it under.
struct OwedEvent {
  uint64_t seq = 0;
  events::EventPayload payload;
};

class SessionLog : public std::enable_shared_from_this<SessionLog> {
 public:
  // Applied before anything is stored or published to every string of
  // every event payload and model-context item (events/payload_strings.h:
  // assistant text and reasoning, tool-call arguments, tool output,
  // approval requests, compaction summaries, notices, what the user typed,
  // ...) and to the session title, so that known secret values never reach
  // the database or a client, whichever way a model, tool or hook echoes
  // them. The same strings are made valid UTF-8 first, so that nothing can
  // send a client a string it cannot decode. The running turn keeps its
  // own unredacted copies (the provider already has them).
  // The known secret values of the moment (VariableStore::SecretValues).
  using SecretSource = std::function<std::vector<std::string>()>;

  // `last_seq` is the last stored seq, `seq_reserved` the session's stored
  // reservation (store::SessionRecord); new events number after both.
  SessionLog(std::string session_id, uint64_t last_seq, store::SessionStore& store,
             const Clock& clock, SecretSource secrets = nullptr, uint64_t seq_reserved = 0);
  ~SessionLog();

  const std::string& session_id() const { return session_id_; }
  // The store the log commits to (for reads of this session's history).
  store::SessionStore& store() const { return store_; }

  // Stores `payloads` (all durable) as consecutive events of `turn_id` plus
  // `extras`, in one transaction, then publishes them. On error nothing was
  // stored or published and no seq was used. `payloads` may be empty (a
  // commit of context or meter changes only).
  absl::Status Commit(const std::string& turn_id, std::vector<events::EventPayload> payloads,
                      CommitExtras extras = {});

  // `text` made valid UTF-8 (ill-formed bytes become U+FFFD: the API's
  // string fields and the store's JSON take nothing else) and with known
  // secret values removed.
  std::string Redact(const std::string& text) const;
  // Every string of `item` cleaned as Redact does: what Commit stores of a
  // model-context item. The turn keeps in memory its items as stored, so
  // that its next request and a request after the session is reloaded send
  // the same bytes (a stable prefix), and a secret the model echoed is not
  // sent back to it.
  void RedactItem(events::ContextItem& item) const;

  // The secret values Redact hides now (empty without a SecretSource).
  std::vector<std::string> SecretValues() const;

  // Publishes a live-only event (a delta or a stream reset).
  //
  // Text and reasoning deltas are streamed pieces of one text, and a secret
  // may arrive split over several of them; so the end of the text so far
  // that could be the start of a secret is held back (vars::
  // SafeRedactionCut) and shown, redacted, with a later delta once it is
  // known not to be one, or by FlushLive. A delta with nothing safe to show
  // yet publishes nothing. A durable commit or a stream reset discards what
  // is held (the committed message carries the whole text, redacted).
  void PublishLive(const std::string& turn_id, events::EventPayload payload);

  // Publishes, redacted, what text and reasoning deltas still hold back;
  // called when a model's stream has ended.
  void FlushLive(const std::string& turn_id);

  // Publishes a durable-kind event without storing it; only for the case
  // where storing failed and clients must still learn that a turn ended.
  // Returns the seq it was published under (for CommitPublished). Like a
  // live event, it is kept for late subscribers until the next durable
  // commit.
  uint64_t PublishUnstored(const std::string& turn_id, events::EventPayload payload);

  // Stores `payload` (with `extras`, as Commit does) in place of the event
  // PublishUnstored published under `seq`: under that same seq while no
  // other event has taken a seq since, so that a subscriber that saw it
  // live does not get it again and one that replays the store gets it once;
  // otherwise under the next seq, as Commit would. On error nothing was
  // stored or published.
  absl::Status CommitPublished(uint64_t seq, const std::string& turn_id,
                               events::EventPayload payload, CommitExtras extras = {});
  // The same for several events, in one transaction and in their order:
  // under their own seqs while they are the latest ones, consecutive and
  // after every stored event; otherwise all under the next seqs.
  absl::Status CommitPublished(std::vector<OwedEvent> owed, const std::string& turn_id,
                               CommitExtras extras = {});

  std::unique_ptr<Subscription> Subscribe(uint64_t after_seq);
  // The most subscriptions the API opens on one session (SessionManager::
  // Subscribe): each costs every event a copy and a wakeup on the thread
  // that publishes it, so their number bounds what watchers add to a turn.
  static constexpr size_t kMaxSubscriptions = 64;
  // Subscriptions of this log open now (made and not yet destroyed).
  size_t subscriptions() const { return subscriptions_.load(std::memory_order_acquire); }
  // Ends every subscription with `why` (the session was removed): the next
  // TryNext of each returns it, and so does that of any made later.
  void EndSubscriptions(absl::Status why);

  // Events a subscriber may have queued before it counts as lagging.
  static constexpr size_t kMaxQueuedEvents = 8192;

  // Bytes of live events kept for late subscribers, and of events (live
  // and committed) queued for any one subscriber before it counts as
  // lagging (sessions.max_live_bytes). A lagging subscriber's queue is
  // emptied; it catches up from the store (SubscriberQueue::Push).
  void set_max_live_bytes(int64_t bytes);
  // The bytes a live event counts for against that bound: what it holds in
  // memory, the event object (sizeof, whatever its kind) and the heap copies
  // of its ids and text, so that a stream of one-byte deltas is bounded by
  // what it really costs.
  static size_t LiveBytes(const events::SessionEvent& event);
  // The bytes any event counts for in a subscriber's queue: LiveBytes for a
  // live event; for a committed one (a tool's output, a whole message),
  // every string it holds, plus the same event object and ids.
  static size_t QueuedBytes(const events::SessionEvent& event);

  uint64_t last_seq() const;

  // Seqs reserved at a time: a restart skips at most this many.
  static constexpr uint64_t kSeqReservation = 4096;

 private:
  friend class LogSubscription;

  // The state a subscription replays from, taken under the lock together
  // with (re)attaching its live queue, so nothing falls between the two.
  struct Snapshot {
    uint64_t durable_head = 0;
    std::vector<events::SessionEvent> transient;
    // Live events up to this seq were dropped from `transient` (0 = none).
    uint64_t dropped_through = 0;
  };
  Snapshot Attach(const std::shared_ptr<SubscriberQueue>& queue);
  void Detach(const std::shared_ptr<SubscriberQueue>& queue);
  events::SessionEvent Stamp(const std::string& turn_id, events::EventPayload payload)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Queues `events` for every subscriber; returns those to wake once the
  // lock is released.
  std::vector<std::shared_ptr<SubscriberQueue>> FanOutLocked(
      const std::vector<events::SessionEvent>& events) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static void Wake(const std::vector<std::shared_ptr<SubscriberQueue>>& queues);

  // Keeps `e` for late subscribers within the bound (see the file comment).
  void RetainLocked(const events::SessionEvent& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Returns the seq the event got.
  uint64_t PublishLocked(const std::string& turn_id, events::EventPayload payload,
                         std::vector<std::shared_ptr<SubscriberQueue>>& to_wake)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Stores `stamped` (seqs assigned, consecutive) with `extras` and queues
  // them for the subscribers to wake in `to_wake`. On error nothing was
  // stored; the caller gives the seqs back.
  absl::Status CommitStampedLocked(std::vector<events::SessionEvent> stamped, CommitExtras extras,
                                   std::vector<std::shared_ptr<SubscriberQueue>>& to_wake)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Extends the stored reservation when the next seq is not covered by it
  // (a long stream of live events between commits).
  void ReserveLiveSeqLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  void RedactLocked(store::CommitBatch& batch) const;
  void RedactPayload(events::EventPayload& payload) const;

  const std::string session_id_;
  store::SessionStore& store_;
  const Clock& clock_;
  const SecretSource secrets_;

  mutable absl::Mutex mu_;
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_);
  uint64_t durable_head_ ABSL_GUARDED_BY(mu_);
  // Seqs up to here are reserved in the store: raised only by a commit
  // that stored the reservation.
  uint64_t seq_reserved_ ABSL_GUARDED_BY(mu_);
  // The end of the last reservation ReserveLiveSeqLocked asked for, stored
  // or not: it asks again only past it.
  uint64_t reservation_tried_through_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<events::SessionEvent> transient_ ABSL_GUARDED_BY(mu_);
  size_t transient_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t transient_dropped_through_ ABSL_GUARDED_BY(mu_) = 0;
  size_t max_live_bytes_ ABSL_GUARDED_BY(mu_) = 8 * 1024 * 1024;
  std::vector<std::shared_ptr<SubscriberQueue>> subscribers_ ABSL_GUARDED_BY(mu_);
  // Counted by LogSubscription's constructor and destructor.
  std::atomic<size_t> subscriptions_{0};
  absl::Status ended_ ABSL_GUARDED_BY(mu_);  // EndSubscriptions' reason
  // Streamed text and reasoning not yet shown (see PublishLive).
  std::string pending_text_ ABSL_GUARDED_BY(mu_);
  std::string pending_reasoning_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::loop
