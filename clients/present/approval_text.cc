#include "clients/present/approval_text.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "clients/present/terminal_text.h"
#include "clients/present/tool_text.h"

namespace raw::present {
namespace {

const char* StateLabel(v1::ApprovalState state) {
  switch (state) {
    case v1::APPROVAL_STATE_PENDING: return "needs approval";
    case v1::APPROVAL_STATE_ALLOWED: return "allowed";
    case v1::APPROVAL_STATE_DENIED: return "denied";
    case v1::APPROVAL_STATE_NOT_APPLICABLE: return "invalid";
    default: return "unknown";
  }
}

}  // namespace

std::string SessionOptionKey(int index) {
  return index == 0 ? "a" : index == 1 ? "p" : "";
}

int SessionOptionCount(const v1::ApprovalRequested& request) {
  int most = 0;
  for (const v1::ApprovalCall& call : request.calls()) {
    if (call.state() == v1::APPROVAL_STATE_PENDING) most = std::max(most, call.session_rules_size());
  }
  return std::min(most, 2);
}

std::string DescribeApprovalRequest(const v1::ApprovalRequested& request) {
  std::string text = absl::StrCat("The agent wants to run ", request.calls_size(),
                                  request.calls_size() == 1 ? " tool call:\n" : " tool calls:\n");
  for (const v1::ApprovalCall& call : request.calls()) {
    // The name is the model's choice when the tool is unknown: one line.
    absl::StrAppend(&text, "  - ", ShowLineBreaks(call.tool().empty() ? call.name() : call.tool()),
                    "\n");
    // Long runs of blanks shown: the terminal wraps a long line, and a run
    // padded to its edge would start the rest on a row of its own.
    for (const std::string& argument : ArgumentLines(call.arguments())) {
      absl::StrAppend(&text, "      ",
                      absl::StrReplaceAll(ShowBlankRuns(argument), {{"\n", "\n        "}}), "\n");
    }
    absl::StrAppend(&text, "    ", StateLabel(call.state()),
                    call.reason().empty()
                        ? ""
                        : absl::StrCat(": ", ShowBlankRuns(ShowLineBreaks(call.reason()))),
                    "\n");
    if (call.state() != v1::APPROVAL_STATE_PENDING) continue;
    for (int i = 0; i < call.session_rules_size() && i < 2; ++i) {
      absl::StrAppend(&text, "    [", SessionOptionKey(i), "] allow for this session adds:\n");
      for (const std::string& rule : call.session_rules(i).rules()) {
        absl::StrAppend(&text, "        ", ShowBlankRuns(ShowLineBreaks(rule)), "\n");
      }
    }
  }
  return text;
}

std::string ApprovalRecap(const v1::ApprovalRequested& request) {
  int pending = 0;
  std::string tools;
  for (const v1::ApprovalCall& call : request.calls()) {
    if (call.state() != v1::APPROVAL_STATE_PENDING) continue;
    absl::StrAppend(&tools, pending++ == 0 ? "" : ", ",
                    ShowLineBreaks(call.tool().empty() ? call.name() : call.tool()));
  }
  return absl::StrCat("Waiting for your answer: ", pending, pending == 1 ? " call" : " calls",
                      " of ", request.calls_size(), " (", tools, ")");
}

std::string DescribeApprovalResolved(const v1::ApprovalResolved& resolved) {
  std::string text;
  switch (resolved.resolution()) {
    case v1::APPROVAL_RESOLUTION_TIMED_OUT: text = "timed out"; break;
    case v1::APPROVAL_RESOLUTION_CANCELLED: text = "cancelled"; break;
    default: text = "answered"; break;
  }
  for (const v1::ApprovalAnswer& a : resolved.answers()) {
    const char* decision = a.decision() == v1::APPROVAL_DECISION_ALLOW_ONCE ? "allowed once"
                           : a.decision() == v1::APPROVAL_DECISION_ALLOW_SESSION
                               ? "allowed for the session"
                           : a.unattended() ? "denied, no one to ask"
                                            : "denied";
    absl::StrAppend(
        &text, "; ", ShowLineBreaks(a.call_id()), ": ", decision,
        a.message().empty() ? "" : absl::StrCat(" (", ShowLineBreaks(a.message()), ")"));
  }
  return text;
}

std::string DecisionNote(const v1::ApprovalAnswer& answer, v1::ApprovalResolution resolution) {
  if (resolution == v1::APPROVAL_RESOLUTION_CANCELLED) return "cancelled";
  std::string note;
  switch (answer.decision()) {
    case v1::APPROVAL_DECISION_ALLOW_ONCE: note = "allowed once"; break;
    case v1::APPROVAL_DECISION_ALLOW_SESSION: note = "allowed for this session"; break;
    default:
      note = answer.unattended() ? "denied, no one to ask" : "denied";
      if (!answer.message().empty()) absl::StrAppend(&note, ": ", answer.message());
      break;
  }
  if (resolution == v1::APPROVAL_RESOLUTION_TIMED_OUT) note = "timed out: " + note;
  return note;
}

}  // namespace raw::present
