// LocalServer: a small HTTP/1.1 + WebSocket server for one user's machine
// (`raw-acp --listen`, the dashboard gateway). Hardened against the other
// programs and web pages on the same machine:
//
// - It binds 127.0.0.1 or ::1 only; any other address is an error. It
//   listens on the other of the two as well, on the same port, so that no
//   other user can serve `localhost:PORT`; where another program holds
//   that address already, only the address bound counts as the server's
//   own (loopback_listeners.h, notice()).
// - It serves only its own user: a connection whose far end is a socket of
//   another user (peer_owner.h) is reset at once, before it takes a slot or
//   reads a byte. When the kernel cannot say who owns the peer (it has
//   gone already), the connection is refused too: the check fails closed.
//   Start fails when the lookup does not work at all here (it is tried on
//   the listening socket), rather than serve without it.
// - Every request carries the access token (access_token.h), fresh per
//   process unless the caller gives one: `Authorization: Bearer TOKEN` or,
//   unless the options turn it off, the query parameter `token=TOKEN`; or,
//   when the server has a session cookie, that cookie with its session
//   secret (a separate value, never the token: a browser sends the cookie
//   to every port of the host).
//   Routes marked `public_route` skip this check (a static page, a token
//   exchange).
// - Host and Origin are checked (admission.h) before the token, and all
//   checks pass before a handler runs or a WebSocket opens.
// - Limits: header bytes (431), body bytes (413), requests per connection
//   per window (429), connections (extra ones are closed at once), WebSocket
//   message bytes (closed with 1009), optionally WebSocket output waiting
//   to be written (the socket is dropped); a request must arrive within
//   `request_timeout` (slow or idle clients are dropped), and a WebSocket
//   peer must be heard within `websocket_idle_timeout` (its pongs count
//   while a handler runs), or, while held back behind a slow handler, is
//   let go within `handler_timeout`: no socket is ever without a bound
//   (local_server.cc, WebSocketSession). A connection that
//   has not yet sent a request with a valid token or session cookie (on any
//   route, public ones included) is "unadmitted": it must send its next
//   request header within `unadmitted_request_timeout`, and at most
//   `max_unadmitted_connections` (always fewer than `max_connections`) are
//   kept. A new connection closes the oldest unadmitted one when either
//   limit is reached, and is refused only when every slot holds an admitted
//   connection, so sockets that never authenticate cannot take the slots
//   of a client that does.
// - Every response carries Content-Security-Policy, X-Content-Type-Options:
//   nosniff, Referrer-Policy: no-referrer, X-Frame-Options: DENY and, unless
//   the handler says otherwise, Cache-Control: no-store. No CORS fields are
//   ever sent. A rejected request's connection is closed after the answer.
//
// Threads: one I/O thread runs every socket; handlers run on a pool of
// their own (common/worker_pool.h), so a slow handler never stalls another
// connection. The header has no Boost types: Beast lives in
// local_server.cc only.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "clients/web/http_message.h"

namespace raw::web {

struct LocalServerOptions {
  std::string address = "127.0.0.1";  // "127.0.0.1" or "::1"
  uint16_t port = 0;                  // 0: a free port, see LocalServer::port()
  std::string token;                  // empty: a new random one
  // Whether `?token=TOKEN` admits as well as `Authorization: Bearer`. On by
  // default (raw-acp's WebSocket clients may not set headers); a server
  // whose clients can send the header (the dashboard) turns it off, since
  // an address with the token ends up in history and logs.
  bool query_token = true;
  // The session cookie's name prefix ("raw_dashboard": the cookie is
  // raw_dashboard_PORT, SessionCookieName) and its value, a secret of its
  // own (ValidateAccessToken; it must differ from the token). An empty
  // prefix: no cookie admits.
  std::string session_cookie;
  std::string session_secret;
  std::vector<std::string> allowed_origins;
  std::string content_security_policy = "default-src 'none'";
  // The whole request header, Cookie fields included. A browser sends this
  // server every cookie of its host, those other local servers set too
  // (cookies ignore ports), so the limit leaves room for what browsers send
  // (many servers allow 8-16 KiB; a few busy local dev servers pass 8 KiB).
  // Over it: 431, whose body tells the user to clear the host's cookies.
  size_t max_header_bytes = 32 * 1024;
  size_t max_body_bytes = 1024 * 1024;
  size_t max_websocket_message_bytes = 4 * 1024 * 1024;
  // Output a WebSocket may have waiting to be written; more (the peer stopped
  // reading) drops the socket, ending its session. 0: no limit.
  size_t max_websocket_queued_bytes = 0;
  size_t max_connections = 64;  // at least 2
  // Lowered to max_connections - 1 when larger, so that one slot at least
  // is left for a connection with the token.
  size_t max_unadmitted_connections = 16;
  std::chrono::milliseconds unadmitted_request_timeout{2000};
  // At most this many requests per connection in each window, then 429.
  size_t max_requests_per_window = 100;
  std::chrono::milliseconds rate_window{1000};
  // A whole request (header and body), and the wait for the next request
  // on a kept-alive connection, must fit in this time.
  std::chrono::milliseconds request_timeout{10000};
  // A handler that has not responded by then gets the client a 504. On a
  // WebSocket, the longest the server holds back a peer that begins a
  // frame while another, read ahead, still waits for the handler (the
  // peer cannot be heard meanwhile): past it the socket is dropped.
  std::chrono::milliseconds handler_timeout{120000};
  // A WebSocket peer silent for this long is pinged (at half of it), then
  // dropped. Its pongs count however long the handler takes, while a frame
  // read ahead waits too: only a peer held back (handler_timeout above) is
  // not timed by this.
  std::chrono::milliseconds websocket_idle_timeout{60000};
  // The user whose connections are served; unset: the owner of the
  // listening socket, this process's user. (Tests name another user to see
  // their own connections refused.)
  std::optional<uint32_t> peer_uid;
  // Tests only: runs with the port just before the other loopback address
  // is bound (BindLoopbackListeners).
  std::function<void(uint16_t)> before_other_bind;
};

// Completes one request; call it exactly once, from any thread.
using Respond = std::function<void(Response)>;
// Runs on the handler pool, never on the I/O thread.
using HttpHandler = std::function<void(const Request&, Respond)>;

struct HttpRoute {
  std::string method;  // exact, e.g. "GET"
  std::string path;    // exact, or a prefix when `prefix`
  bool prefix = false;
  bool public_route = false;  // no token needed
  HttpHandler handler;
};

// A text frame made of a piece of a longer text (a streamed answer's
// delta), which the next frames of the same `kind` may extend while it
// waits to be written: frames a busy I/O thread or a slow reader would
// otherwise queue by the hundred leave as one, render(the pieces joined),
// rendered with the last one's `render`. Rendered on the I/O thread.
struct ExtendableFrame {
  std::string kind;  // only frames of the same kind extend each other
  std::string piece;
  std::function<std::string(std::string_view pieces)> render;
};

// One open WebSocket, as its handler sees it. Thread-safe.
class WebSocketConnection {
 public:
  virtual ~WebSocketConnection() = default;
  // Queues one text frame; frames go out in order, one write at a time.
  // False (the text is dropped) once the socket is closing or closed.
  virtual bool Send(std::string text) = 0;
  // Queues an extendable frame, in order with Send's frames: it extends
  // the last queued frame when that one is of the same kind and not yet
  // being written. This default sends every frame on its own.
  virtual bool SendExtendable(ExtendableFrame frame) { return Send(frame.render(frame.piece)); }
  // Sends the queued frames, then a close frame with `code` and `reason`.
  virtual void Close(uint16_t code, std::string reason) = 0;
};

// The per-connection logic of a WebSocket route. Its calls run on the
// handler pool, one at a time, in order: OnOpen, OnText for each text frame,
// OnClose once when the socket is gone. While OnText runs the server reads
// ahead by at most one frame, which it hands over once OnText returns, and
// keeps listening for the peer's pongs (so a peer that answers pings keeps
// its socket however long OnText takes; local_server.cc). A peer that
// begins yet another frame meanwhile is read no further until then, for at
// most handler_timeout. Binary frames are ignored (the ACP WebSocket
// transport says so); pings are answered by the server.
class WebSocketHandler {
 public:
  virtual ~WebSocketHandler() = default;
  virtual void OnOpen(std::shared_ptr<WebSocketConnection> connection) = 0;
  virtual void OnText(std::string text) = 0;
  virtual void OnClose() = 0;
};

// Makes the handler of a new connection (on the handler pool). nullptr:
// the socket is closed with 1011.
using WebSocketFactory = std::function<std::unique_ptr<WebSocketHandler>(const Request& upgrade)>;

struct WebSocketRoute {
  std::string path;  // exact, or a prefix when `prefix` (the factory reads the rest)
  bool prefix = false;
  bool public_route = false;
  WebSocketFactory factory;
};

struct Routes {
  std::vector<HttpRoute> http;
  std::vector<WebSocketRoute> websocket;
};

class LocalServer {
 public:
  // Validates the options, binds and starts serving. Errors: a non-loopback
  // address, a bad token, a port in use, no way to tell who owns a
  // connection's peer.
  static absl::StatusOr<std::unique_ptr<LocalServer>> Start(LocalServerOptions options,
                                                            Routes routes);
  ~LocalServer();  // Stop()
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;

  uint16_t port() const;
  const std::string& token() const;
  // The session cookie's full name, "" without one.
  const std::string& session_cookie() const;
  // "http://127.0.0.1:PORT" (or "http://[::1]:PORT").
  std::string origin() const;
  // Empty, or one line for the user: why `localhost:PORT` is not accepted
  // (another program holds the other loopback address at this port).
  const std::string& notice() const;

  // Closes the listener and every connection, waits for running handlers and
  // for every WebSocket handler's OnClose, and joins the threads. Idempotent;
  // must not be called from a handler.
  void Stop();

 private:
  struct Impl;
  explicit LocalServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace raw::web
