// Test support for sessions with a damaged stored row: raw SQL access to a
// session database (reading every row, replacing one payload the way a
// damaged disk or a foreign tool would), and a helper that pulls a
// Subscription until turns end.
//
// The functions open their own connection for each call, next to the
// store's; not thread-safe with respect to each other.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/events/session_event.h"
#include "daemon/loop/subscription.h"

namespace raw::loop::testing {

// Every row of the events and context_items tables of the database at
// `path`, keyed "event <session> <seq>" / "context <session> <position>",
// with all of the row's columns as the value.
absl::StatusOr<std::map<std::string, std::string>> AllStoredRows(const std::string& path);

// Replaces the payload of one event / context item row with `payload`
// bytes as they are; returns the payload it had.
absl::StatusOr<std::string> ReplaceEventPayload(const std::string& path,
                                                const std::string& session_id, uint64_t seq,
                                                const std::string& payload);
absl::StatusOr<std::string> ReplaceContextPayload(const std::string& path,
                                                  const std::string& session_id, int64_t position,
                                                  const std::string& payload);

// Runs `sql` on the database at `path` (for example a trigger that makes
// some commits fail, as a full disk would).
absl::Status ExecSql(const std::string& path, const std::string& sql);

// Pulls `sub` until it has delivered the TurnEnded of `turn_id`; returns
// every event delivered. The subscription's error ends it early with that
// error; kDeadlineExceeded after 20 s without it (a failing test).
absl::StatusOr<std::vector<events::SessionEvent>> ReadUntilTurnEnds(Subscription& sub,
                                                                    const std::string& turn_id);

// Pulls `sub` until it has delivered an event for which `last` is true;
// returns every event delivered, or kDeadlineExceeded with
// `timeout_message` after 20 s without one.
absl::StatusOr<std::vector<events::SessionEvent>> ReadUntil(
    Subscription& sub, const std::function<bool(const events::SessionEvent&)>& last,
    const std::string& timeout_message);

// Pulls `sub` until no event is ready; returns them, or the subscription's
// error.
absl::StatusOr<std::vector<events::SessionEvent>> ReadReady(Subscription& sub);

}  // namespace raw::loop::testing
