#include "daemon/config/approval_mode_names.h"

#include "daemon/config/config_keys.h"

namespace raw::config {

// kApprovalModes lists the names in the enum's order.
absl::string_view ApprovalModeName(ApprovalMode mode) {
  return kApprovalModes[static_cast<size_t>(mode)];
}

std::optional<ApprovalMode> ApprovalModeNamed(absl::string_view name) {
  for (size_t i = 0; i < kApprovalModes.size(); ++i) {
    if (kApprovalModes[i] == name) return static_cast<ApprovalMode>(i);
  }
  return std::nullopt;
}

}  // namespace raw::config
