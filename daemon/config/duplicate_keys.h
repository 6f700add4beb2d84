// DuplicateKeys: finds keys written twice in one JSON object. A JSON parser
// keeps only one of the values, so without this check a second "models"
// block would silently replace the first. Pure; thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "daemon/config/config_loader.h"

namespace raw::config {

// One problem per repeated key, at the key's path (keys longer than 64
// bytes shortened), in document order; past 20 of them one more problem
// counts the rest.
// `text` is JSON with optional comments; syntax errors are left to the
// parser (this returns what it found up to them).
std::vector<ConfigProblem> FindDuplicateKeys(std::string_view text);

}  // namespace raw::config
