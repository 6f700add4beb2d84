#include "clients/tui/transcript.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "clients/present/compaction_text.h"
#include "clients/present/text.h"
#include "clients/present/turn_end.h"

namespace raw::tui {
namespace {

Level FromNotice(v1::NoticeLevel level) {
  switch (level) {
    case v1::NOTICE_LEVEL_WARNING: return Level::kWarning;
    case v1::NOTICE_LEVEL_ERROR: return Level::kError;
    default: return Level::kInfo;
  }
}

Level FromSeverity(present::Severity severity) {
  switch (severity) {
    case present::Severity::kWarning: return Level::kWarning;
    case present::Severity::kError: return Level::kError;
    default: return Level::kInfo;
  }
}

}  // namespace

Cell& Transcript::Push(CellKind kind, const v1::Event& event) {
  Cell cell;
  cell.id = next_id_++;
  cell.kind = kind;
  cell.turn_id = event.turn_id();
  cell.seq = event.seq();
  cells_.push_back(std::move(cell));
  return cells_.back();
}

Cell* Transcript::Find(uint64_t id) {
  if (id == 0) return nullptr;
  for (auto it = cells_.rbegin(); it != cells_.rend(); ++it) {
    if (it->id == id) return &*it;
  }
  return nullptr;
}

Cell* Transcript::StreamingCell(CellKind kind) {
  return Find(kind == CellKind::kAssistant ? streaming_text_ : streaming_reasoning_);
}

void Transcript::DropStreaming() {
  for (uint64_t id : {streaming_text_, streaming_reasoning_}) {
    if (id == 0) continue;
    cells_.erase(std::remove_if(cells_.begin(), cells_.end(),
                                [id](const Cell& c) { return c.id == id; }),
                 cells_.end());
  }
  streaming_text_ = streaming_reasoning_ = 0;
}

void Transcript::Apply(const v1::Event& event) {
  if (event.seq() != 0) {
    if (event.seq() <= last_seq_) return;  // already applied (replay overlap)
    last_seq_ = event.seq();
    if (first_seq_ == 0) first_seq_ = event.seq();
  }
  switch (event.payload_case()) {
    case v1::Event::kTurnStarted: {
      open_turn_ = event.turn_id();
      Cell& cell = Push(CellKind::kUser, event);
      cell.text = event.turn_started().user_text();
      break;
    }
    case v1::Event::kUserMessage: {
      // TurnStarted already showed its text; a user message on its own is
      // shown. Images are shown as labels under the text.
      const v1::UserMessage& message = event.user_message();
      bool shown = !cells_.empty() && cells_.back().kind == CellKind::kUser &&
                   cells_.back().turn_id == event.turn_id() && cells_.back().text == message.text();
      Cell& cell = shown ? cells_.back() : Push(CellKind::kUser, event);
      if (!shown) cell.text = message.text();
      if (std::string images = present::ImageLines(message); !images.empty()) {
        if (!cell.text.empty()) cell.text += "\n";
        cell.text += images;
      }
      break;
    }
    case v1::Event::kReasoningDelta:
    case v1::Event::kTextDelta: {
      bool text = event.has_text_delta();
      CellKind kind = text ? CellKind::kAssistant : CellKind::kReasoning;
      Cell* cell = StreamingCell(kind);
      if (cell == nullptr) {
        cell = &Push(kind, event);
        cell->streaming = true;
        (text ? streaming_text_ : streaming_reasoning_) = cell->id;
      }
      cell->text += text ? event.text_delta().text() : event.reasoning_delta().text();
      cell->Touch();
      break;
    }
    case v1::Event::kStreamReset:
      DropStreaming();
      AddInfoText(event.stream_reset().reason().empty()
                      ? "The response restarted; the partial text was discarded."
                      : absl::StrCat("The response restarted (", event.stream_reset().reason(),
                                     "); the partial text was discarded."),
                  Level::kWarning);
      break;
    case v1::Event::kAssistantMessage: {
      const v1::AssistantMessage& message = event.assistant_message();
      Cell* reasoning = StreamingCell(CellKind::kReasoning);
      Cell* text = StreamingCell(CellKind::kAssistant);
      if (reasoning == nullptr && !message.reasoning().empty()) {
        // Before the streamed text, if any.
        Cell cell;
        cell.id = next_id_++;
        cell.kind = CellKind::kReasoning;
        cell.turn_id = event.turn_id();
        cell.seq = event.seq();
        auto at = text == nullptr ? cells_.end()
                                  : std::find_if(cells_.begin(), cells_.end(),
                                                 [id = text->id](const Cell& c) { return c.id == id; });
        reasoning = &*cells_.insert(at, std::move(cell));
        text = StreamingCell(CellKind::kAssistant);
      }
      if (reasoning != nullptr) {
        if (!message.reasoning().empty()) reasoning->text = message.reasoning();
        reasoning->streaming = false;
        reasoning->Touch();
      }
      if (text == nullptr && !message.text().empty()) text = &Push(CellKind::kAssistant, event);
      if (text != nullptr) {
        text->text = message.text();
        ++text->text_resets;
        text->streaming = false;
        text->Touch();
        if (text->text.empty()) {
          uint64_t id = text->id;
          cells_.erase(std::remove_if(cells_.begin(), cells_.end(),
                                      [id](const Cell& c) { return c.id == id; }),
                       cells_.end());
        }
      }
      streaming_text_ = streaming_reasoning_ = 0;
      if (message.interrupted()) AddInfoText(present::Capitalized(present::kInterruptedNote), Level::kWarning);
      break;
    }
    case v1::Event::kToolCallBatch:
      for (const v1::ToolCall& call : event.tool_call_batch().calls()) {
        Cell& cell = Push(CellKind::kTool, event);
        cell.call.call_id = call.call_id();
        cell.call.name = call.name();
        cell.call.tool = call.tool();
        cell.call.arguments = call.arguments();
      }
      break;
    case v1::Event::kToolStarted: {
      Cell* cell = CardFor(event.tool_started().call_id());
      if (cell == nullptr) {
        cell = &Push(CellKind::kTool, event);
        cell->call.call_id = event.tool_started().call_id();
        cell->call.name = event.tool_started().name();
        cell->call.tool = event.tool_started().tool();
      }
      cell->call.status = ToolStatus::kRunning;
      cell->call.started_unix_ms = event.time_unix_ms();
      cell->Touch();
      break;
    }
    case v1::Event::kToolResult:
      ApplyToolResult(event);
      break;
    case v1::Event::kToolProgress:
      ApplyToolProgress(event.tool_progress());
      break;
    case v1::Event::kApprovalRequested:
      ApplyApprovalRequested(event.approval_requested());
      break;
    case v1::Event::kApprovalResolved:
      ApplyApprovalResolved(event.approval_resolved());
      break;
    case v1::Event::kNotice: {
      Cell& cell = Push(CellKind::kNotice, event);
      cell.text = event.notice().text();
      cell.level = FromNotice(event.notice().level());
      break;
    }
    case v1::Event::kTurnEnded: {
      if (event.turn_id() == open_turn_) open_turn_.clear();
      DropStreaming();
      pending_.reset();
      const v1::TurnEnded& ended = event.turn_ended();
      if (ended.reason() == v1::TURN_END_REASON_COMPLETED) break;
      Cell& cell = Push(CellKind::kTurnEnd, event);
      cell.text = present::Capitalized(present::TurnEndText(ended));
      cell.level = FromSeverity(present::TurnEndSeverity(ended));
      break;
    }
    case v1::Event::kCompactionStarted:
    case v1::Event::kCompactionProgress:
    case v1::Event::kCompactionEnded:
    case v1::Event::kContextCleared:
      ApplyCompaction(event);
      break;
    default:
      // Usage, context estimates and resyncs concern the footer and the
      // connection, not the transcript.
      break;
  }
}

void Transcript::ApplyCompaction(const v1::Event& event) {
  Cell* cell = nullptr;
  for (auto it = cells_.rbegin(); it != cells_.rend(); ++it) {
    if (it->kind == CellKind::kCompaction && it->compaction.running) {
      cell = &*it;
      break;
    }
  }
  if (event.has_context_cleared()) {
    Cell& c = Push(CellKind::kCompaction, event);
    c.compaction.running = false;
    c.compaction.tokens_before = event.context_cleared().tokens_before();
    c.compaction.tokens_after = event.context_cleared().tokens_after();
    c.compaction.outcome = "cleared";
    c.compaction.accepted = true;
    return;
  }
  if (event.has_compaction_started() || cell == nullptr) {
    cell = &Push(CellKind::kCompaction, event);
    compacting_ = true;
  }
  Compaction& c = cell->compaction;
  if (event.has_compaction_started()) {
    c.automatic = event.compaction_started().trigger() == v1::COMPACTION_TRIGGER_AUTOMATIC;
    c.tokens_before = event.compaction_started().tokens_before();
    c.chunks = event.compaction_started().chunks();
  } else if (event.has_compaction_progress()) {
    c.chunk = event.compaction_progress().chunk();
    c.chunks = event.compaction_progress().chunks();
  } else if (event.has_compaction_ended()) {
    const v1::CompactionEnded& ended = event.compaction_ended();
    compacting_ = false;
    c.running = false;
    c.automatic = ended.trigger() == v1::COMPACTION_TRIGGER_AUTOMATIC;
    c.tokens_before = ended.tokens_before();
    c.tokens_after = ended.tokens_after();
    c.accepted = ended.outcome() == v1::COMPACTION_OUTCOME_ACCEPTED;
    c.outcome = present::CompactionOutcomeText(ended);
  }
  cell->Touch();
}

void Transcript::PrependHistory(const std::vector<v1::Event>& older) {
  Transcript part;
  part.next_id_ = next_id_;
  for (const v1::Event& event : older) part.Apply(event);
  next_id_ = part.next_id_;
  if (!older.empty() && (first_seq_ == 0 || older.front().seq() < first_seq_)) {
    first_seq_ = older.front().seq();
  }
  if (last_seq_ == 0 && !older.empty()) last_seq_ = older.back().seq();
  // A card of the older part completed by a result in the newer part: the
  // result moves up and the newer, result-only card goes.
  for (Cell& cell : part.cells_) {
    if (cell.kind != CellKind::kTool) continue;
    for (auto it = cells_.begin(); it != cells_.end(); ++it) {
      if (it->kind == CellKind::kTool && it->call.call_id == cell.call.call_id) {
        ToolCall merged = it->call;
        merged.arguments = cell.call.arguments;
        if (merged.name.empty()) merged.name = cell.call.name;
        cell.call = merged;
        cell.Touch();
        cells_.erase(it);
        break;
      }
    }
  }
  cells_.insert(cells_.begin(), part.cells_.begin(), part.cells_.end());
}

void Transcript::AddInfo(Lines lines) {
  Cell cell;
  cell.id = next_id_++;
  cell.kind = CellKind::kInfo;
  cell.info = std::move(lines);
  cells_.push_back(std::move(cell));
}

void Transcript::AddInfoText(const std::string& text, Level level) {
  Cell cell;
  cell.id = next_id_++;
  cell.kind = CellKind::kNotice;
  cell.text = text;
  cell.level = level;
  cells_.push_back(std::move(cell));
}

void Transcript::AbandonOpenTurn() {
  const bool turn = !open_turn_.empty();
  open_turn_.clear();
  compacting_ = false;
  DropStreaming();
  pending_.reset();
  bool compaction = false;
  for (Cell& cell : cells_) {
    if (cell.kind != CellKind::kCompaction || !cell.compaction.running) continue;
    cell.compaction.running = false;
    cell.compaction.outcome = "interrupted by a daemon restart; context unchanged";
    cell.Touch();
    compaction = true;
  }
  if (turn || !compaction) {
    AddInfoText("The daemon restarted during the turn; the turn did not finish.", Level::kWarning);
  }
}

void Transcript::Clear() {
  uint64_t next = next_id_;  // ids are never reused: the view caches by id
  *this = Transcript();
  next_id_ = next;
}

void Transcript::SetAllExpanded(bool expanded) {
  for (Cell& cell : cells_) {
    if ((cell.kind == CellKind::kReasoning || cell.kind == CellKind::kTool) &&
        cell.expanded != expanded) {
      cell.expanded = expanded;
      cell.Touch();
    }
  }
}

void Transcript::ToggleExpanded(uint64_t id) {
  if (Cell* cell = Find(id)) {
    cell->expanded = !cell->expanded;
    cell->Touch();
  }
}

std::vector<std::string> Transcript::UserPrompts() const {
  std::vector<std::string> prompts;
  for (const Cell& cell : cells_) {
    if (cell.kind == CellKind::kUser) prompts.push_back(cell.text);
  }
  return prompts;
}

}  // namespace raw::tui
