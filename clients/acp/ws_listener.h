// `raw-acp --listen`: ACP over a local WebSocket (the draft WebSocket
// transport: GET /acp with Upgrade, one JSON-RPC message per text frame,
// binary frames ignored). Each accepted socket is one ACP connection: one
// Transport handed to the PeerFactory. The socket is served by
// web::LocalServer, so it binds loopback only and checks Host, Origin and
// the access token (`Authorization: Bearer TOKEN` or `?token=TOKEN`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "clients/acp/transport.h"

namespace raw::web {
class LocalServer;
}

namespace raw::acp {

struct AcpListenOptions {
  std::string address = "127.0.0.1";  // or "::1"; nothing else
  uint16_t port = 0;                  // 0: a free port
  std::string token;                  // empty: a fresh random one
  // Origins allowed besides the server's own, e.g. a client's web page.
  std::vector<std::string> allowed_origins;
  // A longer message closes its socket with 1009 (its turns are
  // interrupted, as when the client goes away). More than
  // OutputQueueLimit(max_message_bytes) of output left unread drops the
  // socket, with the same effect.
  size_t max_message_bytes = kDefaultMaxMessageBytes;
  // At least 2. At most max_connections - 1 of them may be sockets that
  // have not shown the token; a new one closes the oldest of those
  // (web::LocalServer), so they cannot keep out a client with it.
  size_t max_connections = 16;
};

// The path clients connect to.
inline constexpr char kAcpPath[] = "/acp";

class AcpWebSocketListener {
 public:
  explicit AcpWebSocketListener(std::unique_ptr<web::LocalServer> server);
  ~AcpWebSocketListener();  // Stop()

  uint16_t port() const;
  const std::string& token() const;
  // ws://127.0.0.1:PORT/acp (the token is not in it).
  std::string url() const;
  // Empty, or why `localhost:PORT` is not accepted (web::LocalServer::notice).
  const std::string& notice() const;
  // Closes every connection (each peer gets OnClosed) and the listener.
  void Stop();

 private:
  std::unique_ptr<web::LocalServer> server_;
};

// Starts serving; the listener runs until Stop() or its destruction.
absl::StatusOr<std::unique_ptr<AcpWebSocketListener>> ServeAcpWebSocket(const AcpListenOptions& options,
                                                                        PeerFactory factory);

}  // namespace raw::acp
