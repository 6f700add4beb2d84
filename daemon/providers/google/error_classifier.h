// Error classification for the Gemini API: turns an HTTP error response, or
// an error object that arrived inside a stream, into the neutral ErrorEvent
// with its kind and retryable bit decided here, once.
//
// Gemini errors are google.rpc.Status objects, {"error":{"code","message",
// "status","details":[...]}}, sometimes wrapped in a one-element array. The
// kind follows the HTTP status (for a stream error, error.code, else the
// canonical code of error.status): 400 is InvalidRequest except an invalid
// API key (ErrorInfo reason API_KEY_INVALID -> Auth), an input over the
// model's limit (-> ContextOverflow) and a FAILED_PRECONDITION about billing
// (-> Billing); 429 is a retryable RateLimited unless a QuotaFailure names a
// per-day quota; 503 and UNAVAILABLE are Overloaded; 5xx Server; 504
// Timeout. provider_code is the status name ("UNAVAILABLE"), provider_type
// the ErrorInfo reason when one is given. The retry hint comes from
// "retry-after-ms"/"retry-after" headers, else RetryInfo.retryDelay ("34.4s").
// "x-should-retry" overrides the retryable bit. Bodies of any other shape
// (proxy HTML, plain text, empty, OpenAI-style JSON) are classified as the
// openai-chat-completions classifier does. Messages are the provider's own,
// prefixed with the HTTP status: "HTTP 429: You exceeded your current quota".
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/time/time.h"
#include "common/json.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider_event.h"

namespace raw::providers::google {

// A response with a status outside 2xx. `now` turns a "retry-after" HTTP
// date into a delay. after_output is false.
ErrorEvent ClassifyHttpError(int status, const http::Headers& headers, std::string_view body,
                             absl::Time now);

// The value of a stream chunk's "error" key (or a whole chunk holding one).
// http_status is 0; an error without a recognisable code is a retryable
// Server error (the request had been accepted).
ErrorEvent ClassifyStreamError(const Json& error);

// A protobuf Duration in its JSON form ("34.4s", "2s", "0.5s") in ms;
// nullopt when malformed or negative.
std::optional<int64_t> ParseDurationMs(std::string_view duration);

}  // namespace raw::providers::google
