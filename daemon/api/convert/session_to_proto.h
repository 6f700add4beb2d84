// Conversions of session records (loop::SessionInfo, events::Usage) to
// their raw.v1 wire form. Pure functions; thread-safe.
#pragma once

#include "daemon/events/usage.h"
#include "daemon/loop/session_manager.h"
#include "raw/v1/raw_service.pb.h"
#include "raw/v1/session.pb.h"

namespace raw::api::convert {

// Known counts are set; unknown ones stay absent (proto3 `optional`), so a
// client can tell "not reported" from zero.
raw::v1::Usage ToProto(const events::Usage& usage);
// The percentage is set only when the window is known (and positive).
raw::v1::ContextEstimate ToProto(const events::ContextEstimate& estimate);

// Every text is valid UTF-8 on the wire: ill-formed bytes in a session's
// stored text (a damaged row) become U+FFFD, so one such row never fails a
// listing of other sessions.
raw::v1::Session ToProto(const loop::SessionInfo& info);

// Totals per usage field with how many requests reported each (a field no
// request reported has no total), and the cache-read ratio over only the
// requests that reported both input and cache reads.
raw::v1::GetStatsResponse ToStatsProto(const loop::SessionInfo& info);

}  // namespace raw::api::convert
