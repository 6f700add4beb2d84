// The stored form of a model-context item: a compact binary record, so that
// loading a session's whole model context is a matter of copying bytes rather
// than parsing JSON (a context of 100,000 items loads in tens of
// milliseconds).
//
// Record format 1, all lengths and counts unsigned LEB128 varints:
//   0x01                      format
//   kind                      1 user_text, 2 assistant_turn, 3 tool_outcome
//   user_text:       role (0 prompt, 1 summary), text, turn_id
//   assistant_turn:  text, reasoning,
//                    count, then call_id, name, arguments for each tool call,
//                    count, then provider, kind, id, data for each opaque blob
//   tool_outcome:    is_error (0 or 1), call_id, name, content
// where every string is its byte length followed by its bytes (valid UTF-8).
// A record ends exactly where its last field does.
//
// Rows written before this format hold the item's JSON (event_codec.h); they
// start with `{` and still decode, so a row repaired by hand may be written
// as JSON too. Decoding damaged or hostile bytes is an error naming what is
// wrong, never a crash, and never allocates more than the record's size.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "daemon/events/conversation.h"

namespace raw::events {

std::string EncodeContextRecord(const ContextItem& item);

// A record of format 1, or an item's JSON.
absl::StatusOr<ContextItem> DecodeContextRecord(std::string_view bytes);
// The same into `out`, which holds an unspecified item after an error.
absl::Status DecodeContextRecord(std::string_view bytes, ContextItem& out);

}  // namespace raw::events
