#include "daemon/mcp/transport.h"

#include <utility>

#include "absl/strings/cord.h"
#include "common/logging.h"

namespace raw::mcp {
namespace {

constexpr char kSessionExpiredPayload[] = "raw.mcp/session-expired";

}  // namespace

absl::Status SessionExpiredError(std::string message) {
  absl::Status status = absl::UnavailableError(std::move(message));
  status.SetPayload(kSessionExpiredPayload, absl::Cord("1"));
  return status;
}

void McpTransport::SendDetached(const Json& message) {
  if (absl::Status sent = Send(message); !sent.ok()) {
    RAW_LOG(Warning) << "mcp " << Describe() << ": could not send " << message.value("method", "")
                     << ": " << sent.message();
  }
}

bool IsSessionExpired(const absl::Status& status) {
  return status.GetPayload(kSessionExpiredPayload).has_value();
}

}  // namespace raw::mcp
