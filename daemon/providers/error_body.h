// The shared error-body classifier: turns an HTTP error response, or an
// error object that arrived inside a stream, into the neutral ErrorEvent with
// its kind and retryable bit decided here, once. OpenAI Chat Completions and
// the compatible servers (DeepSeek, Ollama, llama-server, gateways in front of
// them) use it as it is; the other adapters call it for what their own
// classifiers do not special-case. It lives beside the adapters, not in one of
// their folders, because adapter folders never include each other.
//
// Accepted body shapes: {"error":{"message","type","code",...}} (OpenAI and
// the compatible servers), {"type":"error","error":{...},"request_id"}
// (Anthropic-style gateways), the same wrapped in a one-element array, a bare
// {"error":"text"} or {"message":"text"}, HTML pages from proxies, plain text
// and empty bodies. Messages are the provider's own, prefixed with the HTTP
// status: "HTTP 401: Incorrect API key provided".
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider_event.h"

namespace raw::providers::error_body {

// An HTTP response with status >= 400 (or any non-2xx status). `now` is used
// only to turn a "retry-after" HTTP date into a delay. after_output is false.
ErrorEvent ClassifyHttpError(int status, const http::Headers& headers, std::string_view body,
                             absl::Time now);

// An error delivered inside a 200 stream: the value of a chunk's top-level
// "error" key, or the payload of an SSE "error" event (either the error
// object itself or a document holding it under "error"). http_status is 0.
// Errors of unrecognised type count as retryable server errors: the request
// had been accepted, so the failure is the server's.
ErrorEvent ClassifyStreamError(const Json& error);

// Retry hint from "retry-after-ms" (milliseconds, may be fractional), else
// "retry-after" (seconds or an HTTP date). Negative or unparsable hints are
// ignored; long ones are kept (the retry policy decides what to do).
std::optional<int64_t> RetryAfterMs(const http::Headers& headers, absl::Time now);

// A provider's delay in milliseconds (finite, not negative) as an integer,
// held at 10^15 ms (about 31,700 years): a larger value does not fit in
// int64_t once rounded, and llround's answer for it is unspecified (the
// most negative number on x86-64, which would read as no delay at all).
int64_t DelayMs(double ms);

}  // namespace raw::providers::error_body
