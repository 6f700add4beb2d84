// Provider: one model API behind the neutral event stream.
//
// Contract: Stream() blocks until the response ends, delivering events to
// `sink` on the calling thread in stream order, ending with exactly one
// FinishEvent or ErrorEvent (see provider_event.h). It returns OK after a
// FinishEvent and a non-OK status (matching the ErrorEvent) otherwise.
// Cancelling `cancel` aborts the transfer at once and ends the stream with an
// ErrorEvent of kind kCancelled (status kCancelled). Implementations are
// thread-compatible: one Stream() at a time per instance; the loop creates
// one provider per turn.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/cancel_token.h"
#include "common/json.h"
#include "daemon/events/conversation.h"
#include "daemon/providers/provider_event.h"
#include "daemon/providers/serialized_history.h"

namespace raw::providers {

// A tool as the model sees it.
struct ToolDefinition {
  std::string name;  // model-facing name, ^[a-zA-Z0-9_-]{1,64}$
  std::string description;
  OrderedJson parameters;  // JSON Schema of the arguments
};

// Everything the model receives: nothing else goes into a request body
// except the model settings below.
// How a request went out, as its provider saw it, for the step timeline
// (daemon/loop/step_timeline.h). Steady-clock nanoseconds; 0 = not reached.
// Only the first attempt of a retried request is recorded.
struct RequestTimes {
  int64_t body_built_ns = 0;
  int64_t first_byte_sent_ns = 0;
  // Of the time between the two: name resolution, TCP connect and TLS
  // handshake of a new connection (0 on a reused one).
  int64_t network_setup_ns = 0;
};

struct ModelRequest {
  std::string system_prompt;
  std::vector<ToolDefinition> tools;
  std::vector<events::ContextItem> messages;
  // Filled by the provider when set and not yet filled.
  RequestTimes* times = nullptr;
  // The session's serialized history and the generation of `messages`
  // (serialized_history.h): an adapter that can reuse it serializes only
  // the items appended since its last request. Null/0: serialize all.
  SerializedHistory* history = nullptr;
  uint64_t history_generation = 0;
  // A compaction summary request (context/summary.h): its prefix is never
  // sent again, so Anthropic Messages adds no cache_control (a cache write
  // no later request reads); Google Generate Content bounds the model's
  // thinking (google/request_builder.h).
  bool summary = false;
};

class ProviderEventSink {
 public:
  virtual ~ProviderEventSink() = default;
  virtual void OnEvent(const ProviderEvent& event) = 0;
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual absl::Status Stream(const ModelRequest& request, ProviderEventSink& sink,
                              const CancelToken& cancel) = 0;
  // Serializes request.messages into request.history as Stream() would for
  // `request`, ahead of it, so that a later Stream() of the same history
  // generation serializes only what was appended since
  // (serialized_history.h). Sends nothing, needs no key; does nothing
  // without a history or for an adapter that keeps none. Same threading
  // rule as Stream().
  virtual void Prepare(const ModelRequest& /*request*/) {}
};

}  // namespace raw::providers
