// Transcript: tool call cards, their results and approvals.
#include "absl/strings/str_cat.h"
#include "clients/present/approval_text.h"
#include "clients/tui/transcript.h"

namespace raw::tui {
namespace {

ToolStatus FromResult(v1::ToolResultStatus status) {
  switch (status) {
    case v1::TOOL_RESULT_STATUS_OK: return ToolStatus::kDone;
    case v1::TOOL_RESULT_STATUS_CANCELLED: return ToolStatus::kCancelled;
    case v1::TOOL_RESULT_STATUS_DENIED: return ToolStatus::kDenied;
    case v1::TOOL_RESULT_STATUS_SKIPPED: return ToolStatus::kSkipped;
    default: return ToolStatus::kError;
  }
}

}  // namespace

Cell* Transcript::CardFor(const std::string& call_id) {
  for (auto it = cells_.rbegin(); it != cells_.rend(); ++it) {
    if (it->kind == CellKind::kTool && it->call.call_id == call_id) return &*it;
  }
  return nullptr;
}

void Transcript::ApplyToolResult(const v1::Event& event) {
  const v1::ToolResult& result = event.tool_result();
  Cell* cell = CardFor(result.call_id());
  if (cell == nullptr) {
    cell = &Push(CellKind::kTool, event);
    cell->call.call_id = result.call_id();
    cell->call.name = result.name();
    cell->call.tool = result.tool();
  }
  cell->call.status = FromResult(result.status());
  cell->call.duration_ms = result.duration_ms();
  cell->call.content = result.content();
  cell->call.display = result.display();
  cell->Touch();
}

void Transcript::ApplyToolProgress(const v1::ToolProgress& progress) {
  Cell* cell = CardFor(progress.call_id());
  if (cell == nullptr || cell->call.status != ToolStatus::kRunning) return;
  // Numbers as the tool gave them: 3 rather than 3.000000, 0.5 as 0.5.
  std::string text = absl::StrCat(progress.progress());
  if (progress.has_total()) absl::StrAppend(&text, "/", progress.total());
  if (!progress.message().empty()) absl::StrAppend(&text, " ", progress.message());
  cell->call.progress = std::move(text);
  cell->Touch();
}

void Transcript::ApplyApprovalRequested(const v1::ApprovalRequested& request) {
  bool any_pending = false;
  for (const v1::ApprovalCall& call : request.calls()) {
    Cell* cell = CardFor(call.call_id());
    if (cell == nullptr) continue;
    if (call.state() == v1::APPROVAL_STATE_PENDING) {
      any_pending = true;
      cell->call.status = ToolStatus::kWaitingApproval;
    } else if (call.state() == v1::APPROVAL_STATE_DENIED) {
      cell->call.approval_note =
          call.reason().empty() ? "denied" : absl::StrCat("denied: ", call.reason());
    }
    cell->Touch();
  }
  if (any_pending) pending_ = request;
}

void Transcript::ApplyApprovalResolved(const v1::ApprovalResolved& resolved) {
  if (pending_ && pending_->request_id() == resolved.request_id()) pending_.reset();
  for (const v1::ApprovalAnswer& answer : resolved.answers()) {
    Cell* cell = CardFor(answer.call_id());
    if (cell == nullptr) continue;
    cell->call.approval_note = present::DecisionNote(answer, resolved.resolution());
    if (cell->call.status == ToolStatus::kWaitingApproval) cell->call.status = ToolStatus::kPending;
    cell->Touch();
  }
}

bool Transcript::HasRunningTools() const {
  for (auto it = cells_.rbegin(); it != cells_.rend(); ++it) {
    if (it->kind == CellKind::kTool && it->call.status == ToolStatus::kRunning) return true;
  }
  return false;
}

}  // namespace raw::tui
