#include "clients/cli/history_printer.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "clients/present/approval_text.h"
#include "clients/present/diff_text.h"
#include "clients/present/terminal_text.h"
#include "clients/present/text.h"
#include "clients/present/tool_text.h"
#include "clients/present/turn_end.h"

namespace raw::cli {
namespace {

constexpr size_t kMaxArgumentChars = 300;
constexpr int kResultLines = 4;
constexpr size_t kResultLineChars = 160;

}  // namespace

HistoryPrinter::HistoryPrinter(std::ostream& out, bool full_results)
    : out_(out), full_results_(full_results) {}

void HistoryPrinter::PrintIndented(const std::string& text, const char* indent) {
  std::string clean = present::SanitizeForStream(absl::StripTrailingAsciiWhitespace(text));
  for (absl::string_view line : absl::StrSplit(clean, '\n')) out_ << indent << line << "\n";
}

void HistoryPrinter::PrintToolResult(const v1::ToolResult& result) {
  out_ << "  <- " << present::SanitizeForStream(present::ShowLineBreaks(result.name())) << " "
       << present::ToolStatusName(result.status()) << " ("
       << present::FormatDurationMs(result.duration_ms()) << ")\n";
  const std::string& display = result.display();
  if (full_results_) {
    if (!display.empty()) PrintIndented(display, "     ");
    if (!result.content().empty()) {
      if (!display.empty()) out_ << "     --\n";
      PrintIndented(result.content(), "     ");
    }
    return;
  }
  if (!display.empty() && !present::LooksLikeDiff(display)) {
    PrintIndented(display, "     ");  // a card: compact by contract
    return;
  }
  std::string excerpt = present::Excerpt(result.content(), kResultLines, kResultLineChars);
  if (!excerpt.empty()) PrintIndented(excerpt, "     ");
}

void HistoryPrinter::PrintUser(const v1::Event& event, const std::string& text) {
  if (!first_turn_) out_ << "\n";
  first_turn_ = false;
  out_ << "[" << present::FormatLocalTime(event.time_unix_ms())
       << "] you: " << present::SanitizeForStream(text) << "\n";
}

void HistoryPrinter::Print(const v1::Event& event) {
  switch (event.payload_case()) {
    case v1::Event::kTurnStarted:
      user_turn_id_ = event.turn_id();
      user_text_ = event.turn_started().user_text();
      PrintUser(event, user_text_);
      break;
    case v1::Event::kUserMessage: {
      const std::string images = present::ImageLines(event.user_message());
      if (event.turn_id() == user_turn_id_ && event.user_message().text() == user_text_) {
        if (!images.empty()) out_ << images << "\n";
        break;
      }
      PrintUser(event, event.user_message().text());
      if (!images.empty()) out_ << images << "\n";
      break;
    }
    case v1::Event::kAssistantMessage: {
      std::string text(absl::StripTrailingAsciiWhitespace(event.assistant_message().text()));
      if (!text.empty()) out_ << present::SanitizeForStream(text) << "\n";
      if (event.assistant_message().interrupted()) out_ << "[" << present::kInterruptedNote << "]\n";
      break;
    }
    case v1::Event::kToolCallBatch:
      for (const auto& call : event.tool_call_batch().calls()) {
        out_ << "  -> " << present::SanitizeForStream(present::ShowLineBreaks(call.name())) << " "
             << present::SanitizeForStream(
                    present::Truncate(present::OneLine(call.arguments()), kMaxArgumentChars))
             << "\n";
      }
      break;
    case v1::Event::kToolResult:
      PrintToolResult(event.tool_result());
      break;
    case v1::Event::kApprovalRequested:
      for (absl::string_view line :
           absl::StrSplit(present::DescribeApprovalRequest(event.approval_requested()), '\n', absl::SkipEmpty())) {
        out_ << "  [approval] " << present::SanitizeForStream(line) << "\n";
      }
      break;
    case v1::Event::kApprovalResolved:
      out_ << "  [approval] "
           << present::SanitizeForStream(present::DescribeApprovalResolved(event.approval_resolved()))
           << "\n";
      break;
    case v1::Event::kNotice:
      out_ << "  [" << present::NoticeLevelName(event.notice().level()) << "] "
           << present::SanitizeForStream(event.notice().text()) << "\n";
      break;
    case v1::Event::kTurnEnded:
      out_ << "-- " << present::SanitizeForStream(present::TurnEndText(event.turn_ended())) << "\n";
      break;
    default:
      // Deltas are never stored; tool starts, usage and resets add nothing
      // to a transcript.
      break;
  }
}

}  // namespace raw::cli
