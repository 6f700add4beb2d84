// Which model an assistant item's opaque state (events::OpaqueBlob:
// thinking and thought signatures, encrypted reasoning) goes back to.
//
// A provider checks the state its model made; after the session switches to
// another model the old state can fail validation and refuse the whole
// request (Gemini: "Invalid/Corrupted thought signature"), so the request
// builders send it only to the model that made it and leave it out for
// any other, with the reasoning it carries. Items stored before Raw
// recorded the model send it as before.
//
// Pure function; thread-safe.
#pragma once

#include <string_view>

#include "daemon/events/conversation.h"

namespace raw::providers {

// Whether a request to the model `model_id` carries `turn`'s opaque state.
inline bool ReplaysOpaqueState(const events::AssistantTurn& turn, std::string_view model_id) {
  return turn.model.empty() || turn.model == model_id;
}

}  // namespace raw::providers
