// The protobuf JSON mapping, as the dashboard speaks it: lowerCamelCase
// field names, enums by name, 64-bit integers as strings, and fields at
// their default value printed too (so a page always finds every field).
// The gateway converts whole messages this way and holds no per-field
// logic of its own.
#pragma once

#include <google/protobuf/message.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/json.h"
#include "raw/v1/event.pb.h"

namespace raw::dashboard {

std::string ToJsonText(const google::protobuf::Message& message);
// ToJsonText of a session event. Streamed text and reasoning deltas, by far
// the most frequent events, are printed directly (the same JSON, a
// hundred times cheaper than protobuf's reflective printer); every other
// event goes through ToJsonText.
std::string EventJsonText(const raw::v1::Event& event);
// A text or reasoning delta (REQUIRES: one of them) printed with `text` in
// place of its own: the event as it would be had its delta carried `text`.
// The gateway sends the deltas that queue up behind a busy socket as one
// such event, with the last one's seq (session_feed.h).
std::string DeltaJsonText(const raw::v1::Event& event, std::string_view text);
// The same as a parsed JSON value, to embed in a larger object.
Json ToJsonValue(const google::protobuf::Message& message);

// Fills `message` from JSON text; unknown fields and wrong types are
// INVALID_ARGUMENT naming the problem.
absl::Status FromJsonText(const std::string& text, google::protobuf::Message* message);

}  // namespace raw::dashboard
