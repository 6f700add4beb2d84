// The checks a local server makes on every request before anything else
// happens (local_server.h): Host (DNS rebinding), Origin (cross-site
// requests from a browser) and the access token. Pure functions, so every
// rule is tested without a socket.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clients/web/http_message.h"

namespace raw::web {

struct AdmissionPolicy {
  uint16_t port = 0;
  // The hosts that, with `port`, name this server: "127.0.0.1" and "[::1]"
  // for the addresses it listens on, and "localhost" only when no one else
  // can listen on either (loopback_listeners.h).
  std::vector<std::string> own_hosts = {"127.0.0.1"};
  std::string token;
  // Whether the `token` query parameter admits too (a token in an address
  // lands in the browser's history and in logs; only a client that cannot
  // set a header needs it).
  bool query_token = true;
  // The session cookie's full name (SessionCookieName) and the secret it
  // must carry, which is never the token; an empty name: no cookie is read.
  std::string session_cookie;
  std::string session_secret;
  // Origins allowed besides the server's own (exact "scheme://host[:port]").
  std::vector<std::string> allowed_origins;
};

struct Rejection {
  int status = 403;
  std::string reason;  // the response body, one line
};

// Host must be exactly HOST:PORT for one of own_hosts (in any case), and
// sent once; otherwise 421 (a name that rebinds to loopback lands here).
std::optional<Rejection> CheckHost(const Request& request, const AdmissionPolicy& policy);

// Origin, when present on a WebSocket upgrade or a state-changing method
// (POST, PUT, PATCH, DELETE), must be this server's own origin
// (http://HOST:PORT for one of own_hosts) or in the allow-list; otherwise
// 403. Any other request may carry any Origin: a browser does not let a
// foreign page read the answer (no CORS fields).
std::optional<Rejection> CheckOrigin(const Request& request, const AdmissionPolicy& policy,
                                     bool websocket_upgrade);

// The token from `Authorization: Bearer` or (when policy.query_token) the
// `token` query parameter, or the session secret from the session cookie;
// any one that matches admits
// (each field, parameter and cookie of the name is compared, so a junk
// cookie of the same name sent first does not hide the real one). None: 401.
std::optional<Rejection> CheckToken(const Request& request, const AdmissionPolicy& policy);

// The hosts whose cookies a browser sends to a server at `address`, for a
// message to the user: the address itself and, when it is one of
// `own_hosts`, "localhost", which a user may have typed instead.
std::string CookieHosts(const std::string& address, const std::vector<std::string>& own_hosts);

}  // namespace raw::web
