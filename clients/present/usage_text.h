// How token counts, context estimates and session ids read on every
// surface. A count that no provider reported is "unknown", never 0.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "raw/v1/raw_service.pb.h"
#include "raw/v1/session.pb.h"

namespace raw::present {

// An estimate: "~850", "~12.3k", "~240k", "~1.25M".
std::string FormatTokens(int64_t tokens);

// A context estimate: "~12.3k", or "~12.3k (9.6%)" when it carries a window.
std::string FormatContext(const v1::ContextEstimate& estimate);

// A reported count: "850", "48.2k", "1.25M"; "unknown" when unreported.
std::string FormatCount(const std::optional<int64_t>& count);

// "1,234,567".
std::string GroupDigits(int64_t value);

// Raw's own overhead per step (GetStats' overhead): "p50 0.42 ms, p99
// 2.50 ms over 7 steps"; "" until a step was timed.
std::string FormatOverhead(const v1::GetStatsResponse& stats);

// "01hx3k7q": the first 8 characters of a session id (after a "sess_"
// prefix, if any).
std::string ShortSessionId(const std::string& id);

}  // namespace raw::present
