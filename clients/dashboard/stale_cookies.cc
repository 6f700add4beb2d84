#include "clients/dashboard/stale_cookies.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "clients/web/access_token.h"
#include "clients/web/peer_owner.h"

namespace raw::dashboard {
namespace {

// PORT of `prefix`_PORT, written as SessionCookieName writes it (no sign,
// no leading zero, 1-65535); nullopt for any other name.
std::optional<uint16_t> PortOfCookie(const std::string& name, const std::string& prefix) {
  const std::string head = absl::StrCat(prefix, "_");
  if (!absl::StartsWith(name, head)) return std::nullopt;
  const std::string digits = name.substr(head.size());
  uint32_t port = 0;
  if (digits.empty() || digits.size() > 5 || digits[0] == '0' ||
      digits.find_first_not_of("0123456789") != std::string::npos ||
      !absl::SimpleAtoi(digits, &port) || port > 65535) {
    return std::nullopt;
  }
  return static_cast<uint16_t>(port);
}

}  // namespace

bool GatewayMayRunOn(uint16_t port) {
  web::TcpSocketId listener;
  listener.local.family = AF_INET;
  const uint32_t loopback = htonl(INADDR_LOOPBACK);
  std::memcpy(listener.local.address.data(), &loopback, 4);
  listener.local.port = port;
  listener.remote.family = AF_INET;
  absl::StatusOr<uint32_t> owner = web::TcpSocketOwner(listener);
  if (owner.ok()) return *owner == geteuid();
  return !absl::IsNotFound(owner.status());
}

std::vector<std::string> StaleSessionCookieDeletions(const web::Request& request,
                                                     const std::string& prefix, uint16_t own_port,
                                                     const std::function<bool(uint16_t)>& may_run) {
  std::vector<std::string> deletions;
  for (const std::string& name : request.CookieNames()) {
    std::optional<uint16_t> port = PortOfCookie(name, prefix);
    if (!port || *port == own_port || may_run(*port)) continue;
    deletions.push_back(web::ExpiredSessionCookie(name));
  }
  return deletions;
}

}  // namespace raw::dashboard
