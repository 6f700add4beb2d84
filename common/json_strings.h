// MapJsonStrings: rewrites every string of a JSON document, object keys
// included, at any depth; for scrubbing known secret values from a document
// before it leaves the daemon (the input of a hook).
//
// Pure; thread-safe. Recursion is bounded by ParseJson's depth limit for
// parsed input.
#pragma once

#include <functional>
#include <string>

#include "common/json.h"

namespace raw {

void MapJsonStrings(Json& value, const std::function<std::string(const std::string&)>& fn);

}  // namespace raw
