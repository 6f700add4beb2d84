// SessionActivity: what a session is doing, as its events tell it: the
// last event seen, the turn running, a compaction running, and the
// approval request waiting for an answer.
//
// Apply() takes the events in log order (history first, then the live
// stream); an event whose seq is not above the last one seen is a replay
// and returns false (live-only events without a seq, such as text deltas,
// always apply). Not thread-safe: one owner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "raw/v1/event.pb.h"

namespace raw::client {

class SessionActivity {
 public:
  // False when `event` was already seen (its seq is not above last_seq()).
  bool Apply(const v1::Event& event);
  // Events up to `seq` count as seen (a stream that starts after them).
  void SeenUpTo(uint64_t seq) { last_seq_ = seq > last_seq_ ? seq : last_seq_; }
  // The daemon no longer runs the turn (it restarted during it).
  void AbandonTurn();
  void Clear() { *this = SessionActivity(); }

  uint64_t last_seq() const { return last_seq_; }
  bool turn_running() const { return !open_turn_.empty(); }
  bool compacting() const { return compacting_; }
  // A turn or a compaction: the session is busy.
  bool busy() const { return turn_running() || compacting_; }
  const std::optional<v1::ApprovalRequested>& pending_approval() const { return pending_; }

 private:
  uint64_t last_seq_ = 0;
  std::string open_turn_;
  bool compacting_ = false;
  // The turn id of the running compaction's events: an automatic
  // compaction ends at the latest with its turn.
  std::string compacting_turn_;
  std::optional<v1::ApprovalRequested> pending_;
};

}  // namespace raw::client
