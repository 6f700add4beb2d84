// How approval requests and their answers read on every surface.
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "raw/v1/event.pb.h"

namespace raw::present {

// The text shown for one request: a line per call with its tool,
// arguments, state and why it asks.
std::string DescribeApprovalRequest(const v1::ApprovalRequested& request);

// One line for a resolution: "answered; c1: allowed once", "timed out; ...".
std::string DescribeApprovalResolved(const v1::ApprovalResolved& resolved);

// The note a call's card carries once answered: "allowed once", "allowed for
// this session", "denied", "denied: <message>"; "timed out: ..." and
// "cancelled" by the resolution.
std::string DecisionNote(const v1::ApprovalAnswer& answer, v1::ApprovalResolution resolution);

}  // namespace raw::present
