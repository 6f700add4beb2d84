// Conversions of session records (loop::SessionInfo, events::Usage) to
// their raw.v1 wire form. Pure functions; thread-safe.
#pragma once

#include "daemon/events/usage.h"
#include "daemon/loop/session_manager.h"
#include "raw/v1/session.pb.h"

namespace raw::api::convert {

// Known counts are set; unknown ones stay absent (proto3 `optional`), so a
// client can tell "not reported" from zero.
raw::v1::Usage ToProto(const events::Usage& usage);

raw::v1::Session ToProto(const loop::SessionInfo& info);

}  // namespace raw::api::convert
