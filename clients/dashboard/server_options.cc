#include "clients/dashboard/server_options.h"

#include "clients/dashboard/gateway.h"

namespace raw::dashboard {

web::LocalServerOptions DashboardServerOptions(uint16_t port, const std::string& token,
                                               const std::string& session_secret) {
  web::LocalServerOptions options;
  options.port = port;
  options.token = token;
  // The page sends the token as a header (once, to log in) and then its
  // cookie; a token in a query string would land in history and logs.
  options.query_token = false;
  options.session_cookie = kSessionCookie;
  options.session_secret = session_secret;
  options.content_security_policy = kContentSecurityPolicy;
  options.max_websocket_message_bytes = kMaxWebSocketMessageBytes;
  options.max_websocket_queued_bytes = kMaxWebSocketQueuedBytes;
  return options;
}

}  // namespace raw::dashboard
