// RequestBuilder: the body of a streaming Chat Completions request, built
// from the neutral ModelRequest and the model's settings.
//
// The bytes are deterministic: the same input gives the same body, and a
// history item is serialized the same way in every request, so that a
// request whose history grew by appended items starts with the previous
// request's messages byte for byte (provider prompt caches match on that
// prefix). To keep that property visible in the bytes, "messages" is the
// last key of the body.
//
// Mapping: the system prompt is the first message (role from
// ModelConfig::system_role; left out when empty); user text -> "user";
// an assistant turn -> "assistant" with "content" (null when it only calls
// tools) and "tool_calls" carrying the model's exact arguments strings;
// each tool outcome -> "tool" with its tool_call_id, failures marked in the
// content (the API has no error flag). Opaque provider state is not sent
// back. Reasoning is sent back only when ModelConfig::send_reasoning_content
// is set (DeepSeek thinking mode): then every assistant message that made
// tool calls carries "reasoning_content" with that turn's reasoning text,
// "" when it had none (those models reject a tool-calling message without
// the field). Assistant messages without tool calls never carry it: the
// server ignores reasoning from earlier answers, and leaving it out keeps
// the history the same whatever the setting was when it was recorded.
//
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/events/conversation.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider.h"

namespace raw::providers::openai_chat {

// The JSON body. `prompt_cache_key` is sent as "prompt_cache_key" when set;
// whether a service gets one is the caller's decision. Its history is
// shared with request.history (providers/serialized_history.h);
// BuildRequestBody gives the same body as one string.
http::PiecedBody BuildRequest(const ModelRequest& request, const config::ModelConfig& model,
                              const std::optional<std::string>& prompt_cache_key);
std::string BuildRequestBody(const ModelRequest& request, const config::ModelConfig& model,
                             const std::optional<std::string>& prompt_cache_key);

// Appends one history item as its Chat Completions message (every item
// maps to exactly one), written directly rather than built as a document.
// `send_reasoning_content` is the model's setting of that name. Exposed for
// prefix-stability tests.
void AppendMessage(const events::ContextItem& item, bool send_reasoning_content,
                   std::string* out);

}  // namespace raw::providers::openai_chat
