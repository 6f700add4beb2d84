// How approval requests and their answers read on every surface.
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "raw/v1/event.pb.h"

namespace raw::present {

// Names, call ids and messages, which a model or another client chose, are
// shown on one line (ShowLineBreaks) on every surface, so that none can
// start a line that reads as the approval's own.
//
// The text shown for one request: each call with its tool, every argument
// in full (one "name: value" line each, every line of a multi-line value
// indented under it; nothing is cut), its state and why it asks, and for a
// pending call the rules each "allow for this session" choice adds
// (SessionOptionKey names the keys). Long runs of blanks in the arguments,
// the reason and the rules are shown as markers (ShowBlankRuns).
std::string DescribeApprovalRequest(const v1::ApprovalRequested& request);

// The key that picks a call's "allow for this session" option `index` on
// every surface: "a" for the exact rules (0), "p" for the program patterns
// (1); "" for others.
std::string SessionOptionKey(int index);

// The most "allow for this session" options any pending call of `request`
// offers (0 to 2).
int SessionOptionCount(const v1::ApprovalRequested& request);

// One line naming the pending calls' tools, "Waiting for your answer: 1
// call of 2 (builtin/bash)": printed last before a question, after all the
// text a model chose, so that what is asked about is never off screen.
std::string ApprovalRecap(const v1::ApprovalRequested& request);

// One line for a resolution: "answered; c1: allowed once", "timed out; ...".
std::string DescribeApprovalResolved(const v1::ApprovalResolved& resolved);

// The note a call's card carries once answered: "allowed once", "allowed for
// this session", "denied", "denied: <message>"; "timed out: ..." and
// "cancelled" by the resolution.
std::string DecisionNote(const v1::ApprovalAnswer& answer, v1::ApprovalResolution resolution);

}  // namespace raw::present
