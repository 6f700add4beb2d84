// The one place where absl::Status becomes grpc::Status.
//
// Codes map one to one (both follow google.rpc.Code); the message is passed
// through unchanged and nothing else is attached, so no internal detail
// (payloads, source locations) leaves the daemon. Pure functions;
// thread-safe.
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace raw::api::convert {

grpc::StatusCode ToGrpcCode(absl::StatusCode code);

grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace raw::api::convert
