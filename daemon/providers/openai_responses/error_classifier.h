// Error classification for the OpenAI Responses API. HTTP error responses
// share Chat Completions' body shape and statuses, so they go through
// error_body::ClassifyHttpError; this file covers what is particular to
// Responses streams: the "error" event, whose payload is nested
// ({"type":"error","error":{type,code,message}}, as recorded from the API)
// or flat ({"type":"error","code","message"}, as the SDK types say), and the
// "response.failed" terminal event, whose response.error is {code, message}.
//
// Pure functions; thread-safe.
#pragma once

#include "common/json.h"
#include "daemon/providers/provider_event.h"

namespace raw::providers::openai_responses {

// The payload of an SSE "error" event, either shape. http_status is 0.
ErrorEvent ClassifyErrorEvent(const Json& event);

// The "response" object of a response.failed event (or of a non-streamed
// response whose status is "failed"). http_status is 0.
ErrorEvent ClassifyFailedResponse(const Json& response);

}  // namespace raw::providers::openai_responses
