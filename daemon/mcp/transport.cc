#include "daemon/mcp/transport.h"

#include <utility>

#include "absl/strings/cord.h"

namespace raw::mcp {
namespace {

constexpr char kSessionExpiredPayload[] = "raw.mcp/session-expired";

}  // namespace

absl::Status SessionExpiredError(std::string message) {
  absl::Status status = absl::UnavailableError(std::move(message));
  status.SetPayload(kSessionExpiredPayload, absl::Cord("1"));
  return status;
}

bool IsSessionExpired(const absl::Status& status) {
  return status.GetPayload(kSessionExpiredPayload).has_value();
}

}  // namespace raw::mcp
