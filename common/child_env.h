// ChildEnvironment: the environment a child process of Raw starts with.
//
// It is the daemon's own environment minus the `withheld` names (secret
// values such as API keys, which commands run for a model must not see),
// with `overrides` added or replacing entries. An override is never
// withheld: the caller set it on purpose.
//
// Stateless; thread-safe (reads `environ`, which Raw never changes after
// start-up).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace raw {

// "NAME=value" entries. InvalidArgument for an override whose name is empty
// or holds '=' or NUL, or whose value holds NUL.
absl::StatusOr<std::vector<std::string>> ChildEnvironment(
    const std::set<std::string>& withheld, const std::map<std::string, std::string>& overrides);

}  // namespace raw
