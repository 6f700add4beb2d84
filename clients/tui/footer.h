// The footer bar and the /stats report: pure formatting of the session's
// record, its context estimate and usage.
//
// Footer: agent, model, short session id, turn state, the context estimate
// ("~12.3k", with a percentage only when the estimate carries a window),
// this session's usage (a field no request reported is "unknown", never 0)
// and the cache-read ratio when known. When the bar is narrow, the least
// important parts go first.
//
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "clients/tui/styled_line.h"
#include "raw/v1/raw_service.pb.h"

namespace raw::tui {

struct FooterState {
  std::string agent;
  std::string model;
  std::string session_id;
  std::string turn_state;  // "idle", "working", "compacting", "read-only", ...
  std::optional<v1::ContextEstimate> context;
  v1::Usage usage;
  int64_t requests = 0;
  std::optional<double> cache_read_ratio;
  bool read_only = false;
  bool connected = true;
};

StyledLine RenderFooter(const FooterState& state, int width, const Glyphs& glyphs);

// The /stats report.
Lines RenderStats(const v1::GetStatsResponse& stats);

}  // namespace raw::tui
