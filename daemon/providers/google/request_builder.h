// RequestBuilder: the body of a streamGenerateContent request, built from
// the neutral ModelRequest and the model's settings.
//
// The bytes are deterministic: the same input gives the same body, and every
// history item maps to the same JSON in every request, so a request whose
// history grew by appended items starts with the previous request's bytes up
// to the end of its last content. To keep that visible, "contents" is the
// last key of the body; the system instruction, tool declarations and
// generation settings come first and do not depend on the history.
//
// Mapping:
// - the system prompt -> "systemInstruction" (left out when empty);
// - tools -> one {"functionDeclarations":[...]} entry, each schema converted
//   by ToGeminiParameters (schema_converter.h);
// - "generationConfig": "maxOutputTokens" when the model sets one, and
//   "thinkingConfig":{"includeThoughts":true} so thought summaries stream
//   (both only with thought summaries included: models without thinking
//   refuse a thinkingConfig). A summary request (ModelRequest::summary)
//   asks for no thought summaries, which the summarizer ignores, and bounds
//   the thinking that counts against its cap instead:
//   "thinkingConfig":{"thinkingBudget":kSummaryThinkingBudget};
// - user text -> a "user" content;
// - an assistant turn -> one "model" content: a thought part when a
//   signature came on one (with the turn's reasoning text), the answer text,
//   then one functionCall part per call with args parsed from the stored
//   arguments ({} when they are empty or not a JSON object). Thought
//   signatures (thought_signature.h) go back on the part they came on; a
//   text signature without answer text becomes a trailing {"text":""} part.
//   Only blobs with provider "google" and kind "thought_signature" are sent,
//   and only to the model that made them (opaque_state.h).
// - consecutive tool outcomes -> ONE "user" content of functionResponse
//   parts, ordered as the calls of the preceding assistant turn, each
//   {"name", "response":{"output":...}} or {"response":{"error":...}} for a
//   failed call (Gemini has no error flag). A call id is sent (in
//   functionCall.id and functionResponse.id) only when the provider chose it;
//   synthetic ids (call_id.h) are Raw's own.
// No cache fields are sent: Gemini's implicit cache matches on the stable
// prefix by itself.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider.h"

namespace raw::providers::google {

// The thinking budget of a summary request: the smallest that every Gemini
// 2.5 thinking model accepts (Pro takes 128 and up, Flash-Lite 512 and up
// while thinking); later models take a budget for compatibility.
inline constexpr int64_t kSummaryThinkingBudget = 512;

// The JSON body, its history shared with request.history
// (providers/serialized_history.h), and the same body as one string.
http::PiecedBody BuildRequest(const ModelRequest& request, const config::ModelConfig& model);
std::string BuildRequestBody(const ModelRequest& request, const config::ModelConfig& model);

// The "contents" array for a history, in a request to `model_id`. Exposed
// for prefix-stability tests.
OrderedJson HistoryToContents(const std::vector<events::ContextItem>& messages,
                              std::string_view model_id = {});

// One function declaration. Exposed for tests.
OrderedJson ToolToDeclaration(const ToolDefinition& tool);

}  // namespace raw::providers::google
