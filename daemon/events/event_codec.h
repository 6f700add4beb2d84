// JSON encoding of SessionEvent payloads and ContextItems, for storage.
// Pure functions. The encoding is stable: stored rows written by one version
// decode in later ones (new fields are optional with defaults). Decoding a
// malformed or unknown payload is an error, never a crash.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "daemon/events/conversation.h"
#include "daemon/events/session_event.h"

namespace raw::events {

// Encodes the payload only (kind + fields); session id, seq, turn id and time
// are stored in their own columns.
std::string EncodePayload(const EventPayload& payload);
absl::StatusOr<EventPayload> DecodePayload(const std::string& kind, const std::string& json);

std::string EncodeContextItem(const ContextItem& item);
absl::StatusOr<ContextItem> DecodeContextItem(const std::string& json);

}  // namespace raw::events
