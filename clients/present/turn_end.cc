#include "clients/present/turn_end.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "clients/present/text.h"

namespace raw::present {

std::string TurnEndText(const v1::TurnEnded& ended) {
  const char* reason;
  switch (ended.reason()) {
    case v1::TURN_END_REASON_COMPLETED:
      reason = "completed";
      break;
    case v1::TURN_END_REASON_MAX_STEPS:
      reason = "stopped at the agent's max_steps";
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
  std::string text = absl::StrCat("turn ", reason);
  if (ended.steps() > 0) {
    absl::StrAppend(&text, " (", ended.steps(), ended.steps() == 1 ? " step)" : " steps)");
  }
  if (!ended.message().empty()) absl::StrAppend(&text, ": ", OneLine(ended.message()));
  return text;
}

Severity TurnEndSeverity(const v1::TurnEnded& ended) {
  switch (ended.reason()) {
    case v1::TURN_END_REASON_COMPLETED:
      return Severity::kInfo;
    case v1::TURN_END_REASON_MAX_STEPS:
    case v1::TURN_END_REASON_CANCELLED:
      return Severity::kWarning;
    default:
      return Severity::kError;
  }
}

std::string Capitalized(std::string text) {
  if (!text.empty()) text[0] = absl::ascii_toupper(static_cast<unsigned char>(text[0]));
  return text;
}

}  // namespace raw::present
