#include "clients/cli/event_printer.h"

#include "absl/strings/str_cat.h"
#include "clients/cli/json_line.h"
#include "clients/present/approval_text.h"
#include "clients/present/compaction_text.h"
#include "clients/present/terminal_text.h"
#include "clients/present/text.h"
#include "clients/present/tool_text.h"
#include "clients/present/turn_end.h"

namespace raw::cli {
namespace {

constexpr size_t kMaxErrorLineChars = 160;

}  // namespace

EventPrinter::EventPrinter(OutputFormat format, std::ostream& out, std::ostream& err,
                           bool stream_text)
    : format_(format), stream_text_(stream_text), out_(out), err_(err) {}

void EventPrinter::Print(const v1::Event& event) {
  if (format_ == OutputFormat::kJson) {
    PrintJson(event);
    return;
  }
  switch (event.payload_case()) {
    case v1::Event::kTextDelta:
      if (stream_text_ && !event.text_delta().text().empty()) {
        WriteText(event.text_delta().text());
        step_streamed_ = true;
      }
      break;
    case v1::Event::kAssistantMessage: {
      const std::string& text = event.assistant_message().text();
      if ((!step_streamed_ || missed_deltas_) && !text.empty()) {
        EndText();
        WriteText(text);
      }
      EndText();
      if (event.assistant_message().interrupted()) {
        err_ << "[" << present::kInterruptedNote << "]\n";
        err_.flush();
      }
      step_streamed_ = false;
      missed_deltas_ = false;
      break;
    }
    case v1::Event::kStreamReset:
      EndText();
      err_ << "[the response restarted";
      if (!event.stream_reset().reason().empty()) {
        err_ << " (" << present::SanitizeForStream(event.stream_reset().reason()) << ")";
      }
      err_ << (step_streamed_ ? "; the partial text above is discarded]\n" : "]\n");
      err_.flush();
      step_streamed_ = false;
      break;
    case v1::Event::kToolCallBatch:
      for (const auto& call : event.tool_call_batch().calls()) {
        call_arguments_[call.call_id()] = call.arguments();
      }
      break;
    case v1::Event::kToolStarted:
      PrintToolStarted(event.tool_started());
      break;
    case v1::Event::kToolResult:
      PrintToolResult(event.tool_result());
      break;
    case v1::Event::kNotice:
      EndText();
      err_ << "[" << present::NoticeLevelName(event.notice().level()) << "] "
           << present::SanitizeForStream(event.notice().text()) << "\n";
      err_.flush();
      break;
    case v1::Event::kApprovalRequested:
      EndText();
      err_ << present::SanitizeForStream(
          present::DescribeApprovalRequest(event.approval_requested()));
      err_.flush();
      break;
    case v1::Event::kApprovalResolved:
      err_ << "[approval] "
           << present::SanitizeForStream(
                  present::DescribeApprovalResolved(event.approval_resolved()))
           << "\n";
      err_.flush();
      break;
    case v1::Event::kResync:
      EndText();
      err_ << "[the output fell behind; some streamed text was skipped]\n";
      err_.flush();
      missed_deltas_ = true;
      break;
    case v1::Event::kCompactionStarted:
      PrintStatus(present::CompactionStartedText(event.compaction_started()));
      break;
    case v1::Event::kCompactionProgress:
      PrintStatus(present::CompactionProgressText(event.compaction_progress()));
      break;
    case v1::Event::kCompactionEnded:
      PrintStatus(present::CompactionEndedText(event.compaction_ended()));
      break;
    case v1::Event::kTurnEnded:
      EndText();
      break;
    default:
      // Turn start, the user's own message, reasoning and usage are not
      // part of the text output.
      break;
  }
}

void EventPrinter::PrintStatus(const std::string& text) {
  EndText();
  err_ << "[" << present::SanitizeForStream(text) << "]\n";
  err_.flush();
}

void EventPrinter::EndText() {
  if (format_ == OutputFormat::kText && !held_utf8_.empty()) {
    std::string held = std::move(held_utf8_);
    held_utf8_.clear();
    out_ << present::SanitizeForStream(held);  // a character that never completed
    line_open_ = true;
  }
  if (format_ == OutputFormat::kText && line_open_) {
    out_ << "\n";
    out_.flush();
    line_open_ = false;
  }
}

void EventPrinter::PrintJson(const v1::Event& event) {
  auto line = ToJsonLine(event);
  if (!line.ok()) {
    err_ << "raw: " << line.status().message() << "\n";
    return;
  }
  out_ << *line << "\n";
  out_.flush();
}

void EventPrinter::WriteText(const std::string& text) {
  if (text.empty()) return;
  std::string whole = held_utf8_ + text;
  size_t tail = present::IncompleteUtf8Tail(whole);
  held_utf8_ = whole.substr(whole.size() - tail);
  whole.resize(whole.size() - tail);
  if (whole.empty()) return;
  out_ << present::SanitizeForStream(whole);
  out_.flush();
  line_open_ = whole.back() != '\n';
}

void EventPrinter::PrintToolStarted(const v1::ToolStarted& started) {
  EndText();
  err_ << "-> " << present::SanitizeForStream(present::ShowLineBreaks(started.name()));
  auto it = call_arguments_.find(started.call_id());
  if (it != call_arguments_.end()) {
    std::string key = present::KeyArgument(it->second);
    if (!key.empty()) err_ << " " << present::SanitizeForStream(key);
  }
  err_ << "\n";
  err_.flush();
}

void EventPrinter::PrintToolResult(const v1::ToolResult& result) {
  EndText();
  err_ << "<- " << present::SanitizeForStream(present::ShowLineBreaks(result.name())) << " "
       << present::ToolStatusName(result.status()) << " ("
       << present::FormatDurationMs(result.duration_ms()) << ")";
  if (result.status() != v1::TOOL_RESULT_STATUS_OK) {
    std::string first = present::Truncate(present::FirstLine(result.content()), kMaxErrorLineChars);
    if (!first.empty()) err_ << ": " << present::SanitizeForStream(first);
  }
  if (!result.display().empty()) {
    EndText();
    err_ << "\n" << present::SanitizeForStream(result.display());
    if (result.display().back() != '\n') err_ << "\n";
  }
  err_ << "\n";
  err_.flush();
  call_arguments_.erase(result.call_id());
}

}  // namespace raw::cli
