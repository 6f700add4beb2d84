#include "clients/tui/tool_card_renderer.h"

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "clients/present/diff_text.h"
#include "clients/present/terminal_text.h"
#include "clients/present/text.h"
#include "clients/present/tool_text.h"
#include "clients/tui/diff_renderer.h"
#include "clients/tui/text_width.h"

namespace raw::tui {
namespace {

struct Look {
  const std::string* glyph;
  Role role;
};

Look LookOf(ToolStatus status, const Glyphs& g) {
  switch (status) {
    case ToolStatus::kPending: return {&g.tool_running, Role::kDim};
    case ToolStatus::kWaitingApproval: return {&g.tool_waiting, Role::kWaiting};
    case ToolStatus::kRunning: return {&g.tool_running, Role::kRunning};
    case ToolStatus::kDone: return {&g.tool_ok, Role::kOk};
    case ToolStatus::kError: return {&g.tool_error, Role::kError};
    case ToolStatus::kDenied: return {&g.tool_denied, Role::kError};
    case ToolStatus::kCancelled: return {&g.tool_denied, Role::kWarning};
    case ToolStatus::kSkipped: return {&g.tool_denied, Role::kDim};
  }
  return {&g.tool_running, Role::kDim};
}

}  // namespace

const char* ToolStatusWords(ToolStatus status) {
  switch (status) {
    case ToolStatus::kPending: return "queued";
    case ToolStatus::kWaitingApproval: return "waiting for approval";
    case ToolStatus::kRunning: return "running";
    case ToolStatus::kDone: return "done";
    case ToolStatus::kError: return "error";
    case ToolStatus::kDenied: return "denied";
    case ToolStatus::kCancelled: return "cancelled";
    case ToolStatus::kSkipped: return "skipped";
  }
  return "";
}

Lines RenderToolCard(const Cell& cell, const RenderContext& ctx) {
  const ToolCall& call = cell.call;
  const Glyphs& g = *ctx.glyphs;
  Look look = LookOf(call.status, g);

  std::string status = ToolStatusWords(call.status);
  if (call.status == ToolStatus::kRunning && call.started_unix_ms > 0 && ctx.now_unix_ms > 0) {
    int64_t elapsed = std::max<int64_t>(0, ctx.now_unix_ms - call.started_unix_ms);
    absl::StrAppend(&status, " ", present::FormatDurationMs(elapsed / 1000 * 1000));
  } else if (call.duration_ms >= 0) {
    absl::StrAppend(&status, " · ", present::FormatDurationMs(call.duration_ms));
  }
  if (g.rule == "-") status = absl::StrReplaceAll(status, {{"·", "-"}});

  StyledLine left;
  left.Add(*look.glyph + " ", Style{look.role, kAttrBold});
  // The name is the model's choice: one line, its line breaks shown.
  left.Add(SanitizeForTerminal(present::ShowLineBreaks(call.name.empty() ? call.tool : call.name)),
           Style{Role::kDefault, kAttrBold});
  std::string key = SanitizeForTerminal(present::KeyArgument(call.arguments));
  int room = ctx.width - left.Width() - DisplayWidth(status) - 4;
  if (!key.empty() && room > 4) {
    left.Add("  ");
    left.Add(TruncateToWidth(key, room, g.ellipsis), Style{Role::kDim});
  }
  StyledLine header = left;
  int gap = ctx.width - left.Width() - DisplayWidth(status);
  header.Add(std::string(static_cast<size_t>(std::max(2, gap)), ' '));
  header.Add(status, Style{look.role});

  Lines out;
  out.push_back(std::move(header));
  StyledLine branch("  " + g.branch + " ", Style{Role::kDim});
  StyledLine indent("    ");
  Style dim{Role::kDim};

  if (call.status == ToolStatus::kRunning && !call.progress.empty()) {
    for (auto& l : WrapSpans(StyledLine(SanitizeForTerminal(call.progress), dim), ctx.width,
                             branch, indent)) {
      out.push_back(std::move(l));
    }
  }
  if (!call.approval_note.empty()) {
    Role role = call.approval_note.rfind("allowed", 0) == 0 ? Role::kOk : Role::kWarning;
    for (auto& l : WrapSpans(StyledLine(SanitizeForTerminal(call.approval_note), Style{role}),
                             ctx.width, branch, indent)) {
      out.push_back(std::move(l));
    }
  }
  const std::string& result = call.display.empty() ? call.content : call.display;
  bool finished = call.duration_ms >= 0 || !result.empty();
  // A display that is not a diff is a card (raven_task): compact by
  // contract, so it is shown whole even collapsed; expanding adds the full
  // result the model received (the whole Artifact).
  bool card = !call.display.empty() && !present::LooksLikeDiff(call.display);
  StyledLine bar("  " + g.quote_bar + " ", Style{Role::kBorder});
  // Result text as lines: code-like text is broken hard, a card by words.
  auto add_text = [&](const std::string& raw, const StyledLine& first, const StyledLine& rest,
                      Style style, bool words) {
    std::string text = SanitizeForTerminal(raw);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (text.empty()) text = "(no output)";
    StyledLine styled(text, style);
    Lines lines = words ? WrapSpans(styled, ctx.width, first, rest)
                        : HardWrap(styled, ctx.width, first, rest);
    for (auto& l : lines) out.push_back(std::move(l));
  };
  if (card && finished && !cell.expanded) {
    add_text(call.display, branch, indent, dim, true);
    return out;
  }
  if (!cell.expanded) {
    if (!finished) return out;
    std::string summary = SanitizeForTerminal(
        present::ResultSummary(call.tool.empty() ? call.name : call.tool, result, g.ellipsis));
    StyledLine line = branch;
    line.Add(TruncateToWidth(summary, std::max(8, ctx.width - branch.Width()), g.ellipsis), dim);
    out.push_back(std::move(line));
    return out;
  }

  for (const std::string& arg : present::ArgumentLines(call.arguments)) {
    for (auto& l : HardWrap(StyledLine(SanitizeForTerminal(arg), dim), ctx.width, indent, indent)) {
      out.push_back(std::move(l));
    }
  }
  if (!finished) return out;
  if (card) {
    add_text(call.display, branch, indent, dim, true);
    add_text(call.content, bar, bar, Style{}, false);
    return out;
  }
  if (present::LooksLikeDiff(result)) {
    for (auto& l : RenderDiff(result, ctx.width, bar)) out.push_back(std::move(l));
    return out;
  }
  add_text(result, bar, bar, Style{}, false);
  return out;
}

}  // namespace raw::tui
