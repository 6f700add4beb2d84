// How a failed daemon call (an absl::Status carrying the gRPC code) becomes
// an HTTP answer or a WebSocket reply: the status from HttpStatusFor and the
// body {"error":{"code":"NOT_FOUND","message":"..."}}. Pure functions.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "clients/web/http_message.h"
#include "common/json.h"

namespace raw::dashboard {

// INVALID_ARGUMENT 400, NOT_FOUND 404, FAILED_PRECONDITION and
// ALREADY_EXISTS 409, PERMISSION_DENIED 403, UNAVAILABLE 503,
// DEADLINE_EXCEEDED 504, any other 500.
int HttpStatusFor(absl::StatusCode code);

// {"code":"NOT_FOUND","message":"..."} (`status` must not be OK).
Json ErrorObject(const absl::Status& status);

// The whole answer to an HTTP request that failed.
web::Response ErrorResponse(const absl::Status& status);

}  // namespace raw::dashboard
