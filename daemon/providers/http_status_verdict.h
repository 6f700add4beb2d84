// What an HTTP error status says about a failed request by itself, before a
// vendor's classifier looks at the body, and the x-should-retry override
// that some APIs send. Each vendor's error_classifier decides its special
// cases (billing, context overflow, content policy, per-day quotas) first
// and falls back to VerdictForStatus.
//
// Pure functions; thread-safe.
#pragma once

#include "daemon/http/http_client.h"
#include "daemon/providers/provider_event.h"

namespace raw::providers {

struct Verdict {
  ErrorKind kind;
  bool retryable;
};

// 400, 413, 422: invalid request. 401: auth. 402: billing. 403: permission.
// 404: not found. 408, 504: timeout (retryable). 409: server (retryable, a
// conflict clears). 429: rate limited (retryable). 503, 529: overloaded
// (retryable). Any other 5xx: server (retryable). Any other 4xx: invalid
// request. Below 400: unknown, not retryable.
Verdict VerdictForStatus(int status);

// "x-should-retry: true|false" (case and spaces ignored) overrides the
// retryable bit of `event`; any other value leaves it.
void ApplyShouldRetry(const http::Headers& headers, ErrorEvent* event);

}  // namespace raw::providers
