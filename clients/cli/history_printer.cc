#include "clients/cli/history_printer.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "clients/present/approval_text.h"
#include "clients/present/text.h"
#include "clients/present/tool_text.h"
#include "clients/present/turn_end.h"

namespace raw::cli {
namespace {

constexpr size_t kMaxArgumentChars = 300;
constexpr int kResultLines = 4;
constexpr size_t kResultLineChars = 160;

}  // namespace

HistoryPrinter::HistoryPrinter(std::ostream& out) : out_(out) {}

void HistoryPrinter::PrintUser(const v1::Event& event, const std::string& text) {
  if (!first_turn_) out_ << "\n";
  first_turn_ = false;
  out_ << "[" << present::FormatLocalTime(event.time_unix_ms()) << "] you: " << text << "\n";
}

void HistoryPrinter::Print(const v1::Event& event) {
  switch (event.payload_case()) {
    case v1::Event::kTurnStarted:
      user_turn_id_ = event.turn_id();
      user_text_ = event.turn_started().user_text();
      PrintUser(event, user_text_);
      break;
    case v1::Event::kUserMessage:
      if (event.turn_id() == user_turn_id_ && event.user_message().text() == user_text_) break;
      PrintUser(event, event.user_message().text());
      break;
    case v1::Event::kAssistantMessage: {
      std::string text(absl::StripTrailingAsciiWhitespace(event.assistant_message().text()));
      if (!text.empty()) out_ << text << "\n";
      if (event.assistant_message().interrupted()) out_ << "[" << present::kInterruptedNote << "]\n";
      break;
    }
    case v1::Event::kToolCallBatch:
      for (const auto& call : event.tool_call_batch().calls()) {
        out_ << "  -> " << call.name() << " " << present::Truncate(present::OneLine(call.arguments()), kMaxArgumentChars)
             << "\n";
      }
      break;
    case v1::Event::kToolResult: {
      const auto& result = event.tool_result();
      out_ << "  <- " << result.name() << " " << present::ToolStatusName(result.status()) << " ("
           << present::FormatDurationMs(result.duration_ms()) << ")\n";
      std::string excerpt = present::Excerpt(result.content(), kResultLines, kResultLineChars);
      if (!excerpt.empty()) {
        for (absl::string_view line : absl::StrSplit(excerpt, '\n')) {
          out_ << "     " << line << "\n";
        }
      }
      break;
    }
    case v1::Event::kApprovalRequested:
      for (absl::string_view line :
           absl::StrSplit(present::DescribeApprovalRequest(event.approval_requested()), '\n', absl::SkipEmpty())) {
        out_ << "  [approval] " << line << "\n";
      }
      break;
    case v1::Event::kApprovalResolved:
      out_ << "  [approval] " << present::DescribeApprovalResolved(event.approval_resolved()) << "\n";
      break;
    case v1::Event::kNotice:
      out_ << "  [" << present::NoticeLevelName(event.notice().level()) << "] " << event.notice().text()
           << "\n";
      break;
    case v1::Event::kTurnEnded:
      out_ << "-- " << present::TurnEndText(event.turn_ended()) << "\n";
      break;
    default:
      // Deltas are never stored; tool starts, usage and resets add nothing
      // to a transcript.
      break;
  }
}

}  // namespace raw::cli
