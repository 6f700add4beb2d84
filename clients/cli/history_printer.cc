#include "clients/cli/history_printer.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "clients/cli/approval_prompter.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "clients/cli/event_printer.h"
#include "clients/cli/text_util.h"

namespace raw::cli {
namespace {

constexpr size_t kMaxArgumentChars = 300;
constexpr int kResultLines = 4;
constexpr size_t kResultLineChars = 160;

std::string TurnEndText(const v1::TurnEnded& ended) {
  std::string reason;
  switch (ended.reason()) {
    case v1::TURN_END_REASON_COMPLETED:
      reason = "completed";
      break;
    case v1::TURN_END_REASON_MAX_STEPS:
      reason = "stopped at max_steps";
      break;
    case v1::TURN_END_REASON_CANCELLED:
      reason = "cancelled";
      break;
    case v1::TURN_END_REASON_ERROR:
      reason = "failed";
      break;
    default:
      reason = "ended";
      break;
  }
  std::string text = absl::StrCat("-- turn ", reason);
  if (ended.steps() > 0) {
    absl::StrAppend(&text, " (", ended.steps(), ended.steps() == 1 ? " step)" : " steps)");
  }
  if (!ended.message().empty()) absl::StrAppend(&text, ": ", OneLine(ended.message()));
  return text;
}

}  // namespace

std::string Excerpt(const std::string& text, int max_lines, size_t max_line_chars) {
  std::vector<std::string> lines;
  std::vector<absl::string_view> all =
      absl::StrSplit(absl::StripTrailingAsciiWhitespace(text), '\n');
  for (absl::string_view line : all) {
    if (static_cast<int>(lines.size()) == max_lines) {
      lines.push_back("...");
      break;
    }
    lines.push_back(Truncate(std::string(absl::StripTrailingAsciiWhitespace(line)), max_line_chars));
  }
  return absl::StrJoin(lines, "\n");
}

HistoryPrinter::HistoryPrinter(std::ostream& out) : out_(out) {}

void HistoryPrinter::PrintUser(const v1::Event& event, const std::string& text) {
  if (!first_turn_) out_ << "\n";
  first_turn_ = false;
  out_ << "[" << FormatLocalTime(event.time_unix_ms()) << "] you: " << text << "\n";
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
      break;
    }
    case v1::Event::kToolCallBatch:
      for (const auto& call : event.tool_call_batch().calls()) {
        out_ << "  -> " << call.name() << " " << Truncate(OneLine(call.arguments()), kMaxArgumentChars)
             << "\n";
      }
      break;
    case v1::Event::kToolResult: {
      const auto& result = event.tool_result();
      out_ << "  <- " << result.name() << " " << ToolStatusName(result.status()) << " ("
           << FormatDurationMs(result.duration_ms()) << ")\n";
      std::string excerpt = Excerpt(result.content(), kResultLines, kResultLineChars);
      if (!excerpt.empty()) {
        for (absl::string_view line : absl::StrSplit(excerpt, '\n')) {
          out_ << "     " << line << "\n";
        }
      }
      break;
    }
    case v1::Event::kApprovalRequested:
      for (absl::string_view line :
           absl::StrSplit(DescribeApprovalRequest(event.approval_requested()), '\n', absl::SkipEmpty())) {
        out_ << "  [approval] " << line << "\n";
      }
      break;
    case v1::Event::kApprovalResolved:
      out_ << "  [approval] " << DescribeApprovalResolved(event.approval_resolved()) << "\n";
      break;
    case v1::Event::kNotice:
      out_ << "  [" << NoticeLevelName(event.notice().level()) << "] " << event.notice().text()
           << "\n";
      break;
    case v1::Event::kTurnEnded:
      out_ << TurnEndText(event.turn_ended()) << "\n";
      break;
    default:
      // Deltas are never stored; tool starts, usage and resets add nothing
      // to a transcript.
      break;
  }
}

}  // namespace raw::cli
