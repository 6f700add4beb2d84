// Cell: one entry of the transcript (a user message, an assistant message,
// reasoning, a tool call card, a notice, ...), the unit that the transcript
// model builds from events and that the cell renderer turns into lines.
//
// Every change to a cell bumps its `version`, which is how the view knows
// which cached renderings are stale. Plain data; owned by the Transcript.
#pragma once

#include <cstdint>
#include <string>

#include "clients/tui/styled_line.h"

namespace raw::tui {

enum class CellKind {
  kUser,
  kAssistant,
  kReasoning,
  kTool,
  kNotice,
  kTurnEnd,
  kCompaction,
  kInfo,  // client-side text: command output, errors, hints
};

enum class ToolStatus {
  kPending,          // committed, not started
  kWaitingApproval,  // a pending call of an approval request
  kRunning,
  kDone,
  kError,
  kDenied,
  kCancelled,
  kSkipped,
};

enum class Level { kInfo, kWarning, kError };

struct ToolCall {
  std::string call_id;
  std::string name;       // as the model named it
  std::string tool;       // registry name, e.g. builtin/edit_file
  std::string arguments;  // JSON text
  ToolStatus status = ToolStatus::kPending;
  int64_t started_unix_ms = 0;  // when it began to run (0: not yet)
  int64_t duration_ms = -1;     // once finished
  std::string content;          // the result the model received
  std::string display;          // what to show instead, when set (diffs)
  std::string approval_note;    // "allowed once", "denied: ...", "timed out"
  std::string progress;         // the last progress report while running ("2/3 step 2")
};

struct Compaction {
  bool running = true;
  int chunk = 0;
  int chunks = 0;
  bool automatic = false;
  bool accepted = false;
  int64_t tokens_before = 0;
  int64_t tokens_after = 0;
  std::string outcome;  // the ending in words, once ended
};

struct Cell {
  uint64_t id = 0;       // unique within the transcript, never reused
  uint64_t version = 0;  // bumped on every change
  CellKind kind = CellKind::kInfo;
  std::string turn_id;
  uint64_t seq = 0;      // the event that created it (0 for client cells)
  std::string text;      // message, reasoning or notice text
  // An assistant cell's text changes by appending (streamed deltas) except
  // where it is set whole, which bumps this: a renderer that keeps what it
  // made of the text so far starts over then, and need not compare the text.
  uint64_t text_resets = 0;
  bool streaming = false;
  bool expanded = false;  // reasoning and tool results
  Level level = Level::kInfo;
  ToolCall call;
  Compaction compaction;
  Lines info;  // kInfo: ready-made lines (wrapped again at render time)

  void Touch() { ++version; }
};

}  // namespace raw::tui
