// The request headers OpenAI's two APIs share (Chat Completions and
// Responses). They live beside the adapters, not in one of their folders,
// because adapter folders never include each other.
//
// Pure function; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "daemon/http/http_client.h"

namespace raw::providers {

// The headers of a streaming request to OpenAI's APIs: "Authorization:
// Bearer <key>" when `api_key` is set and not empty, JSON in, an event
// stream out.
http::Headers OpenAiRequestHeaders(const std::optional<std::string>& api_key);

}  // namespace raw::providers
