// Whether a request body the daemon sent is one the provider would accept, as
// far as a crash could break it: every tool call the model made is answered
// exactly once, in the place the API requires, and no result answers a call
// that is not there. Checked for each of the four APIs on the body as sent.
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "common/json.h"
#include "tests/crash/crash_model.h"

namespace raw::crash {

// "" when valid; otherwise what is wrong, naming the message or item.
std::string CheckRequestBody(Api api, const Json& body);

}  // namespace raw::crash
