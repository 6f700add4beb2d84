// RequestBuilder: the body of a streaming Anthropic Messages request, built
// from the neutral ModelRequest and the model's settings.
//
// The bytes are deterministic: the same input gives the same body, and every
// history item is serialized the same way in every request, so a request
// whose history grew by appended items repeats the previous request's
// messages byte for byte ("messages" is the last key of the body; only the
// closing brackets of the previous last message may move, when an appended
// item joins that same user message).
//
// Mapping:
// - "max_tokens" (required by the API) = ModelConfig::max_output_tokens,
//   else kDefaultMaxTokens. "system" is the system prompt as a string (left
//   out when empty). Tools are {name, description, input_schema}.
// - Prompt caching uses the API's automatic mode: one top-level
//   "cache_control" ({"type":"ephemeral"} for 5m, plus "ttl":"1h" for 1h).
//   The API then puts the breakpoint on the last cacheable block and moves
//   it forward as the conversation grows, using one of the four breakpoint
//   slots. A marker on the last block of the last message would do the same
//   but would move inside the history bytes on every request; the
//   top-level form keeps the history byte-stable. A summary request
//   (ModelRequest::summary) has no "cache_control": nothing sends its
//   prefix again, so a cache write would be paid for and never read.
// - An assistant turn becomes one "assistant" message: first its replayed
//   thinking blocks (OpaqueBlobs of provider "anthropic", in their stored
//   order, which is their position in the original answer: the API streams
//   thinking before text and tool_use), then its text, then one tool_use
//   per call with "input" parsed from the stored arguments ("{}" when empty
//   or not a JSON object). A "thinking_signature" blob becomes
//   {"type":"thinking","thinking":<text>,"signature":<data>}, its text cut
//   from the turn's reasoning by the byte length stored in the blob's id
//   (the rest of the reasoning when that length is missing); a
//   "redacted_thinking" blob becomes {"type":"redacted_thinking","data"}.
//   Blobs of other providers or kinds are not sent, nor thinking another
//   model signed (opaque_state.h).
// - Consecutive tool outcomes and user texts become one "user" message:
//   every tool_result first ({"tool_use_id","content","is_error":true for
//   failures}), then the text blocks, as the API requires.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "daemon/config/agent_entry.h"
#include "daemon/config/config.h"
#include "daemon/events/conversation.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider.h"

namespace raw::providers::anthropic {

// The output cap sent when the model config sets none.
inline constexpr int64_t kDefaultMaxTokens = config::kAnthropicDefaultMaxTokens;

// How long the provider keeps the prompt cache entry it writes.
enum class CacheRetention { k5m, k1h };

// "5m" or "1h"; anything else is an InvalidArgument error naming both.
absl::StatusOr<CacheRetention> ParseCacheRetention(std::string_view text);

// The JSON body, its history shared with request.history
// (providers/serialized_history.h), and the same body as one string.
http::PiecedBody BuildRequest(const ModelRequest& request, const config::ModelConfig& model,
                              CacheRetention cache_retention);
std::string BuildRequestBody(const ModelRequest& request, const config::ModelConfig& model,
                             CacheRetention cache_retention);

// The "messages" array for a history, in a request to `model_id`. Exposed
// for tests.
OrderedJson BuildMessages(const std::vector<events::ContextItem>& items,
                          std::string_view model_id = {});

}  // namespace raw::providers::anthropic
