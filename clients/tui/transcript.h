// Transcript: the display model of one session, built from raw.v1 events.
//
// Live and replayed events go through Apply in seq order; older history
// pages (loaded on demand while the user scrolls back) go through
// PrependHistory, oldest first, and are merged at the top: a tool call whose
// batch is in the older page and whose result is in the newer part becomes
// one card. Streamed text and reasoning deltas extend the step's open
// cells; the committed AssistantMessage replaces what was streamed (it is
// authoritative), and a StreamReset discards it.
//
// The transcript also derives the session's turn state (idle, running,
// compacting) and the pending approval request, which the app shows.
//
// Single-threaded: owned and used by the UI thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "clients/tui/cell.h"
#include "raw/v1/event.pb.h"

namespace raw::tui {

class Transcript {
 public:
  void Apply(const v1::Event& event);
  // `older` holds stored events older than everything applied so far, in
  // seq order.
  void PrependHistory(const std::vector<v1::Event>& older);

  // A client-side message at the end of the transcript.
  void AddInfo(Lines lines);
  void AddInfoText(const std::string& text, Level level = Level::kInfo);
  // Ends a turn or compaction that the daemon no longer runs (it restarted
  // meanwhile): a running compaction is shown interrupted.
  void AbandonOpenTurn();
  // Removes every cell (switching sessions).
  void Clear();

  const std::deque<Cell>& cells() const { return cells_; }
  Cell* Find(uint64_t id);

  // Expands or collapses every reasoning cell and tool card.
  void SetAllExpanded(bool expanded);
  void ToggleExpanded(uint64_t id);

  // Highest seq applied (live or replayed); 0 before any.
  uint64_t last_seq() const { return last_seq_; }
  // Lowest seq seen (from either direction); 0 before any.
  uint64_t first_seq() const { return first_seq_; }
  bool turn_running() const { return !open_turn_.empty(); }
  bool compacting() const { return compacting_; }
  // The open approval request with calls still waiting for an answer.
  const std::optional<v1::ApprovalRequested>& pending_approval() const { return pending_; }
  // The user's prompts, oldest first (for the input history).
  std::vector<std::string> UserPrompts() const;
  // Tool cards that are running (their elapsed time changes).
  bool HasRunningTools() const;

 private:
  Cell& Push(CellKind kind, const v1::Event& event);
  Cell* StreamingCell(CellKind kind);
  Cell* CardFor(const std::string& call_id);
  void ApplyToolResult(const v1::Event& event);
  void ApplyToolProgress(const v1::ToolProgress& progress);
  void ApplyApprovalRequested(const v1::ApprovalRequested& request);
  void ApplyApprovalResolved(const v1::ApprovalResolved& resolved);
  void ApplyCompaction(const v1::Event& event);
  void DropStreaming();

  std::deque<Cell> cells_;
  uint64_t next_id_ = 1;
  uint64_t last_seq_ = 0;
  uint64_t first_seq_ = 0;
  std::string open_turn_;
  bool compacting_ = false;
  // Open streamed cells of the current step (by cell id; 0 when none).
  uint64_t streaming_text_ = 0;
  uint64_t streaming_reasoning_ = 0;
  std::optional<v1::ApprovalRequested> pending_;
};

}  // namespace raw::tui
