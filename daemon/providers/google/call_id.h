// Call ids for Gemini function calls. The Gemini API usually sends no
// functionCall.id, so the decoder gives each call a synthetic id derived only
// from the response (its responseId and the call's position), which is the
// same every time the same stream is decoded. Synthetic ids stay inside Raw:
// the request builder sends an id back only when the provider chose it.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace raw::providers::google {

// "gemini-<response_id>-<position>", or "gemini-<position>" when the
// response carried no id.
std::string SyntheticCallId(std::string_view response_id, int position);

// True for ids made by SyntheticCallId.
bool IsSyntheticCallId(std::string_view call_id);

}  // namespace raw::providers::google
