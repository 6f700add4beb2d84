// Usage normalisation for the OpenAI Responses API: the "usage" object of a
// terminal response (response.completed / incomplete / failed) as the
// neutral events::Usage.
//
// input_tokens -> input (cached included); input_tokens_details.cached_tokens
// -> cache read; input_tokens_details.cache_write_tokens -> cache write;
// output_tokens -> output (reasoning included);
// output_tokens_details.reasoning_tokens -> reasoning. A field the server
// did not send stays unknown (never 0).
//
// Pure function; thread-safe.
#pragma once

#include "common/json.h"
#include "daemon/events/usage.h"

namespace raw::providers::openai_responses {

events::Usage NormalizeResponsesUsage(const Json& usage);

}  // namespace raw::providers::openai_responses
