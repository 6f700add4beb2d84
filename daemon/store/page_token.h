// Opaque paging tokens of the session store: history cursors and session
// list page tokens.
//
// A token is URL-safe base64 of a small versioned text ("h1:..." or
// "s1:..."), so clients treat it as an opaque string and a future format can
// be told apart. A history cursor names a position in one session's display
// history (a seq) and carries a checksum of the session id, so a cursor used
// on another session is refused. Tokens hold positions, not row offsets, so
// they stay valid while rows are appended. Decoding anything else is
// kInvalidArgument.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace raw::store {

std::string EncodeHistoryCursor(const std::string& session_id, uint64_t seq);
absl::StatusOr<uint64_t> DecodeHistoryCursor(const std::string& session_id,
                                             const std::string& cursor);

// A position in the list of sessions ordered by (last activity, id), both
// descending: the next page starts after this entry.
struct SessionListPosition {
  int64_t last_activity_unix_ms = 0;
  std::string id;
};
std::string EncodeSessionPageToken(const SessionListPosition& position);
absl::StatusOr<SessionListPosition> DecodeSessionPageToken(const std::string& token);

}  // namespace raw::store
