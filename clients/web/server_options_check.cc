#include "clients/web/server_options_check.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "clients/web/access_token.h"

namespace raw::web {

absl::StatusOr<std::string> CheckServerOptions(LocalServerOptions& options, const Routes& routes) {
  if (options.address != "127.0.0.1" && options.address != "::1") {
    return absl::InvalidArgumentError(
        absl::StrCat("local server: address \"", options.address,
                     "\" is not loopback; only 127.0.0.1 and ::1 are allowed"));
  }
  if (options.max_connections < 2) {
    return absl::InvalidArgumentError(
        "local server: max_connections must be at least 2 (one slot is kept for a connection "
        "with the token)");
  }
  options.max_unadmitted_connections =
      std::min(options.max_unadmitted_connections, options.max_connections - 1);
  if (options.max_unadmitted_connections == 0 || options.unadmitted_request_timeout.count() <= 0 ||
      options.max_requests_per_window == 0 || options.max_header_bytes == 0 ||
      options.max_websocket_message_bytes == 0 || options.rate_window.count() <= 0 ||
      options.request_timeout.count() <= 0 || options.handler_timeout.count() <= 0 ||
      options.websocket_idle_timeout.count() <= 0) {
    return absl::InvalidArgumentError("local server: limits and timeouts must be positive");
  }
  for (const HttpRoute& r : routes.http) {
    if (r.path.empty() || r.path[0] != '/' || r.method.empty() || !r.handler) {
      return absl::InvalidArgumentError(
          absl::StrCat("local server: HTTP route \"", r.method, " ", r.path,
                       "\" needs a method, a path starting with '/' and a handler"));
    }
  }
  for (const WebSocketRoute& r : routes.websocket) {
    if (r.path.empty() || r.path[0] != '/' || !r.factory) {
      return absl::InvalidArgumentError(
          absl::StrCat("local server: WebSocket route \"", r.path,
                       "\" needs a path starting with '/' and a factory"));
    }
  }
  std::string token = options.token;
  if (token.empty()) {
    absl::StatusOr<std::string> fresh = NewAccessToken();
    if (!fresh.ok()) return fresh.status();
    token = *std::move(fresh);
  } else if (absl::Status s = ValidateAccessToken(token); !s.ok()) {
    return s;
  }
  if (!options.session_cookie.empty()) {
    if (absl::Status s = ValidateAccessToken(options.session_secret); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("session secret: ", s.message()));
    }
    if (TokenEquals(options.session_secret, token)) {
      return absl::InvalidArgumentError("the session secret must differ from the access token");
    }
  }
  return token;
}

}  // namespace raw::web
