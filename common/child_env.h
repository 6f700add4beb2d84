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
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace raw {

// "NAME=value" entries. InvalidArgument for an override whose name is empty
// or holds '=' or NUL, or whose value holds NUL.
absl::StatusOr<std::vector<std::string>> ChildEnvironment(
    const std::set<std::string>& withheld, const std::map<std::string, std::string>& overrides);

// `path` (a PATH value) with its empty and relative entries left out: they
// name folders under wherever the child runs, often a project a cloned
// repository fills, which would put its own `jq` in front of the system's
// for every program the child runs in turn. "/bin:/usr/bin" when no entry
// is left.
std::string AbsolutePathEntries(std::string_view path);

}  // namespace raw
