#include "daemon/providers/provider_event.h"

namespace raw::providers {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kRateLimited:
      return "rate_limited";
    case ErrorKind::kOverloaded:
      return "overloaded";
    case ErrorKind::kServer:
      return "server";
    case ErrorKind::kTimeout:
      return "timeout";
    case ErrorKind::kNetwork:
      return "network";
    case ErrorKind::kPrematureEof:
      return "premature_eof";
    case ErrorKind::kAuth:
      return "auth";
    case ErrorKind::kPermission:
      return "permission";
    case ErrorKind::kNotFound:
      return "not_found";
    case ErrorKind::kInvalidRequest:
      return "invalid_request";
    case ErrorKind::kContextOverflow:
      return "context_overflow";
    case ErrorKind::kBilling:
      return "billing";
    case ErrorKind::kContentPolicy:
      return "content_policy";
    case ErrorKind::kCancelled:
      return "cancelled";
    case ErrorKind::kUnknown:
      return "unknown";
  }
  return "unknown";
}

const char* FinishReasonName(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop:
      return "stop";
    case FinishReason::kToolCalls:
      return "tool_calls";
    case FinishReason::kLength:
      return "length";
    case FinishReason::kContextWindow:
      return "context_window";
    case FinishReason::kContentFilter:
      return "content_filter";
    case FinishReason::kPauseTurn:
      return "pause_turn";
    case FinishReason::kMalformedToolCall:
      return "malformed_tool_call";
    case FinishReason::kUnknown:
      return "unknown";
  }
  return "unknown";
}

absl::Status ErrorEventToStatus(const ErrorEvent& error) {
  const std::string& m = error.message;
  switch (error.kind) {
    case ErrorKind::kCancelled:
      return absl::CancelledError(m);
    case ErrorKind::kTimeout:
      return absl::DeadlineExceededError(m);
    case ErrorKind::kRateLimited:
    case ErrorKind::kBilling:
      return absl::ResourceExhaustedError(m);
    case ErrorKind::kAuth:
      return absl::UnauthenticatedError(m);
    case ErrorKind::kPermission:
      return absl::PermissionDeniedError(m);
    case ErrorKind::kNotFound:
      return absl::NotFoundError(m);
    case ErrorKind::kInvalidRequest:
      return absl::InvalidArgumentError(m);
    case ErrorKind::kContextOverflow:
      return absl::OutOfRangeError(m);
    case ErrorKind::kContentPolicy:
      return absl::FailedPreconditionError(m);
    case ErrorKind::kOverloaded:
    case ErrorKind::kServer:
    case ErrorKind::kNetwork:
    case ErrorKind::kPrematureEof:
      return absl::UnavailableError(m);
    case ErrorKind::kUnknown:
      break;
  }
  return absl::UnknownError(m);
}

}  // namespace raw::providers
