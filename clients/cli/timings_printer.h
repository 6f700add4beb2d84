// `raw run --timings`: after the turn, Raw's own time per step as rawd
// measured it (GetStats' overhead: docs/performance.md, "Raw's own overhead
// per step"), written to standard error so that the answer on standard
// output stays clean.
#pragma once

#include <ostream>
#include <string>

#include "clients/lib/raw_client.h"

namespace raw::cli {

// Prints the phases of the last turn's steps and the session's p50/p99.
// A failed GetStats is reported on `err` in one line.
void PrintTimings(client::RawClient& client, const std::string& session_id, std::ostream& err);

// The text PrintTimings writes for `stats` (pure, for tests).
std::string TimingsText(const v1::GetStatsResponse& stats);

}  // namespace raw::cli
