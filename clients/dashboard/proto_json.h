// The protobuf JSON mapping, as the dashboard speaks it: lowerCamelCase
// field names, enums by name, 64-bit integers as strings, and fields at
// their default value printed too (so a page always finds every field).
// The gateway converts whole messages this way and holds no per-field
// logic of its own.
#pragma once

#include <google/protobuf/message.h>

#include <string>

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
// The same as a parsed JSON value, to embed in a larger object.
Json ToJsonValue(const google::protobuf::Message& message);

// Fills `message` from JSON text; unknown fields and wrong types are
// INVALID_ARGUMENT naming the problem.
absl::Status FromJsonText(const std::string& text, google::protobuf::Message* message);

}  // namespace raw::dashboard
