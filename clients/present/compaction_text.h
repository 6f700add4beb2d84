// How a compaction reads on every surface:
//   "compacting the context (~48.2k tokens, 2 summaries)"
//   "compacting: summary 1 of 2"
//   "context compacted: ~48.2k → ~6.1k tokens"
//   "compaction failed; context unchanged (The summary request failed: ...)"
// Surfaces add their own frame and capitalization.
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "raw/v1/event.pb.h"

namespace raw::present {

std::string CompactionStartedText(const v1::CompactionStarted& started);
std::string CompactionProgressText(const v1::CompactionProgress& progress);

// What happened to the context, without the token figures:
// "compacted", "summary rejected; context unchanged", ..., followed by the
// daemon's message in parentheses when there is one.
std::string CompactionOutcomeText(const v1::CompactionEnded& ended);

// The whole ending: "context compacted: ~48.2k → ~6.1k tokens" when
// accepted, "compaction <outcome>" otherwise.
std::string CompactionEndedText(const v1::CompactionEnded& ended);

}  // namespace raw::present
