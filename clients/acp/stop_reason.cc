#include "clients/acp/stop_reason.h"

#include "absl/strings/match.h"
#include "clients/present/turn_end.h"

namespace raw::acp {
namespace {

// The daemon's notices for a completed turn whose answer did not end
// normally (daemon/loop/turn.cc); the e2e tests pin them.
constexpr char kCutOffNotice[] = "cut off at the model's output limit";
constexpr char kContentFilterNotice[] = "content filter stopped the answer";

}  // namespace

absl::StatusOr<std::string> StopReason(const v1::TurnEnded& ended,
                                       const std::vector<v1::Notice>& turn_notices,
                                       bool cancel_requested) {
  switch (ended.reason()) {
    case v1::TURN_END_REASON_COMPLETED:
      for (auto it = turn_notices.rbegin(); it != turn_notices.rend(); ++it) {
        if (it->level() != v1::NOTICE_LEVEL_WARNING) continue;
        if (absl::StrContains(it->text(), kCutOffNotice)) return std::string("max_tokens");
        if (absl::StrContains(it->text(), kContentFilterNotice)) return std::string("refusal");
      }
      return std::string("end_turn");
    case v1::TURN_END_REASON_MAX_STEPS:
      return std::string("max_turn_requests");
    case v1::TURN_END_REASON_CANCELLED:
      return std::string("cancelled");
    default:
      if (cancel_requested) return std::string("cancelled");
      return absl::InternalError(present::TurnEndText(ended));
  }
}

}  // namespace raw::acp
