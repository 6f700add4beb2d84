// ProviderEvent: the provider-neutral stream every adapter produces.
//
// Designed from the four APIs together (not shaped after one). Invariants
// every adapter guarantees, and its tests check:
// 1. The stream opens with Start, or with Error if it failed before a body.
// 2. It ends with exactly one terminal event: Finish or Error. Usage, when
//    known, comes just before it.
// 3. Per call_index: one ToolCallStart, any number of ToolCallDelta, then
//    exactly one ToolCallEnd (none if the stream ends in Error). A call with
//    complete == false is never executed.
// 4. Concatenated ToolCallDelta fragments equal ToolCallEnd::arguments.
// 5. Finish is kToolCalls whenever at least one call completed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "daemon/events/conversation.h"
#include "daemon/events/usage.h"

namespace raw::providers {

enum class FinishReason {
  kStop,
  kToolCalls,
  kLength,
  kContextWindow,
  kContentFilter,
  kPauseTurn,
  kMalformedToolCall,
  kUnknown,
};

enum class ErrorKind {
  kRateLimited,
  kOverloaded,
  kServer,
  kTimeout,
  kNetwork,
  kPrematureEof,
  kAuth,
  kPermission,
  kNotFound,
  kInvalidRequest,
  kContextOverflow,
  kBilling,
  kContentPolicy,
  kCancelled,
  kUnknown,
};

struct StartEvent {
  std::string response_id;
  std::string model;
};
struct TextDeltaEvent {
  int part_index = 0;
  std::string text;
};
struct ReasoningDeltaEvent {
  int part_index = 0;
  std::string text;
};
// End of a reasoning part; carries provider state to replay verbatim.
struct ReasoningEndEvent {
  int part_index = 0;
  std::optional<events::OpaqueBlob> opaque;
};
struct ToolCallStartEvent {
  int call_index = 0;
  std::string call_id;
  std::string name;
};
struct ToolCallDeltaEvent {
  int call_index = 0;
  std::string fragment;
};
struct ToolCallEndEvent {
  int call_index = 0;
  std::string call_id;
  std::string name;
  std::string arguments;  // the complete JSON text ("{}" when empty)
  bool complete = false;  // parsed as a JSON object and properly closed
};
struct UsageEvent {
  events::Usage usage;
};
struct FinishEvent {
  FinishReason reason = FinishReason::kUnknown;
  std::string raw_reason;
};
struct ErrorEvent {
  ErrorKind kind = ErrorKind::kUnknown;
  bool retryable = false;
  bool after_output = false;  // some delta had already been emitted
  int http_status = 0;        // 0 = not an HTTP status error (mid-stream, network)
  std::optional<int64_t> retry_after_ms;
  std::string provider_type;
  std::string provider_code;
  std::string message;  // the provider's own message when it sent one
  std::string request_id;
};

// Emitted by RetryingProvider between attempts: the attempt that just failed
// ended with `error` (never delivered as an ErrorEvent), and a new request
// follows after `delay_ms`. Everything streamed since the attempt's Start is
// void: consumers discard it (nothing of it may have been committed).
struct RetryEvent {
  int attempt = 0;       // the attempt that failed, from 1
  int max_attempts = 0;  // retries + 1
  int64_t delay_ms = 0;
  ErrorEvent error;
};

using ProviderEvent =
    std::variant<StartEvent, TextDeltaEvent, ReasoningDeltaEvent, ReasoningEndEvent,
                 ToolCallStartEvent, ToolCallDeltaEvent, ToolCallEndEvent, UsageEvent,
                 FinishEvent, ErrorEvent, RetryEvent>;

const char* ErrorKindName(ErrorKind kind);
const char* FinishReasonName(FinishReason reason);

// The absl::Status a Provider returns together with `error`: the code
// follows the kind (kAuth -> kUnauthenticated, kRateLimited ->
// kResourceExhausted, ...), the message is the error's.
absl::Status ErrorEventToStatus(const ErrorEvent& error);

}  // namespace raw::providers
