// Conversion of domain session events (events::SessionEvent) to raw.v1.Event.
//
// Every payload alternative maps to the oneof field of the same name; the
// domain enums map to the wire enums value for value (never to
// *_UNSPECIFIED). Pure functions; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "daemon/events/session_event.h"
#include "raw/v1/event.pb.h"

namespace raw::api::convert {

raw::v1::Event ToProto(const events::SessionEvent& event);

raw::v1::ToolResultStatus ToProto(events::ToolStatus status);
raw::v1::NoticeLevel ToProto(events::NoticeLevel level);
raw::v1::TurnEndReason ToProto(events::TurnEndReason reason);
raw::v1::ApprovalState ToProto(events::ApprovalState state);
raw::v1::ApprovalDecision ToProto(events::ApprovalDecision decision);
raw::v1::ApprovalResolution ToProto(events::ApprovalResolution resolution);
// InvalidArgument for APPROVAL_DECISION_UNSPECIFIED and unknown values.
absl::StatusOr<events::ApprovalDecision> FromProto(raw::v1::ApprovalDecision decision);

}  // namespace raw::api::convert
