// ConfigPath: how a path written in config.json becomes absolute (see
// ParseContext): "~/" (or "~" alone) is the home directory, another relative
// path is relative to the config file's directory, and the result is
// normalized lexically. Pure; thread-safe.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "daemon/config/config_loader.h"

namespace raw::config {

// kInvalidArgument, with a message ready for "<path>: <message>", for an
// empty path, "~user/..." (only "~/" is expanded) and "~/" without a home
// directory.
absl::StatusOr<std::string> ResolveConfigPath(const std::string& path, const ParseContext& context);

}  // namespace raw::config
