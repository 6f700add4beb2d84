// RequestBuilder: the body of a streaming OpenAI Responses request in the
// stateless form (store:false, the whole history on every request,
// include:["reasoning.encrypted_content"]), built from the neutral
// ModelRequest and the model's settings.
//
// The bytes are deterministic: the same input gives the same body, and a
// history item is serialized the same way in every request, so that a
// request whose history grew by appended items starts with the previous
// request's input items byte for byte (provider prompt caches match on that
// prefix). To keep that property visible in the bytes, "input" is the last
// key of the body.
//
// Settings: model.reasoning_effort, when set, is sent as "reasoning":
// {"effort": <it>, "summary": "auto"} (reasoning models then stream
// summaries); unset sends no reasoning settings. max_output_tokens goes in
// "max_output_tokens".
//
// Mapping: the system prompt goes in "instructions" (left out when empty);
// tools are flat {"type":"function",name,description,parameters,strict:false}
// (Raw's schemas are not guaranteed to meet the strict subset); user text ->
// a "user" message of one input_text part; an assistant turn -> first its
// reasoning items (OpaqueBlobs of provider "openai-responses", kind
// "reasoning_item", replayed as {"type":"reasoning","summary":[],
// "encrypted_content"}: like every replayed item it carries no server item
// id, which a store:false request must not refer to), then its text as an
// "assistant" message of one
// output_text part, then one "function_call" item per call (call_id, never
// the item id, and the model's exact arguments string); each tool outcome ->
// "function_call_output" with the same call_id, failures marked in the text
// (the API has no error flag). Blobs of other providers are not sent, nor
// reasoning items of another model (opaque_state.h). A
// reasoning item is only valid with the item that followed it, so a turn
// with neither text nor calls sends nothing.
//
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/events/conversation.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider.h"

namespace raw::providers::openai_responses {

// OpaqueBlob labels of the provider state this adapter keeps and replays.
inline constexpr char kOpaqueProvider[] = "openai-responses";
inline constexpr char kReasoningItemKind[] = "reasoning_item";

// The JSON body. `prompt_cache_key` is sent as "prompt_cache_key" when set;
// whether a service gets one is the caller's decision. Its history is
// shared with request.history (providers/serialized_history.h);
// BuildRequestBody gives the same body as one string.
http::PiecedBody BuildRequest(const ModelRequest& request, const config::ModelConfig& model,
                              const std::optional<std::string>& prompt_cache_key);
std::string BuildRequestBody(const ModelRequest& request, const config::ModelConfig& model,
                             const std::optional<std::string>& prompt_cache_key);

// Appends one history item as its input items, joined by "," (an assistant
// turn may give several, or none), written directly rather than built as a
// document, for a request to `model_id` (opaque_state.h). Exposed for
// prefix-stability tests.
void AppendInputItems(const events::ContextItem& item, std::string* out,
                      std::string_view model_id = {});

}  // namespace raw::providers::openai_responses
