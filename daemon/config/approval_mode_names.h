// The names of the approval modes, as the config (agents.<name>.approval_mode)
// and the API (ConfigureSession, ListAgents) spell them: "default",
// "ask_all", "allow_all", "deny_all" (config_keys.h's kApprovalModes).
//
// Pure functions; thread-safe.
#pragma once

#include <optional>

#include "absl/strings/string_view.h"
#include "daemon/config/config.h"

namespace raw::config {

absl::string_view ApprovalModeName(ApprovalMode mode);
// nullopt for a name that is not a mode.
std::optional<ApprovalMode> ApprovalModeNamed(absl::string_view name);

}  // namespace raw::config
