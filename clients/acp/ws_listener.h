// `raw-acp --listen`: ACP over a local WebSocket (the draft WebSocket
// transport: GET /acp with Upgrade, one JSON-RPC message per text frame,
// binary frames ignored). Each accepted socket is one ACP connection: one
// Transport handed to the PeerFactory. The socket is served by
// web::LocalServer, so it binds loopback only and checks Host, Origin and
// the access token (`Authorization: Bearer TOKEN` or `?token=TOKEN`).
//
// Output: each connection keeps its own queue and hands the server a frame
// at a time (up to a small window), as extendable frames whose render is
// called when their write begins: so it knows the writer's progress and
// applies OutputStallRule, as StdioTransport does. A stalled client's
// queue is dropped and its peer gets OnClosed at once (its turns are
// interrupted, its leases released); the socket itself goes when the
// client does or its idle timeout drops it, holding at most the window.
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
  // interrupted, as when the client goes away). Output the client leaves
  // unread by OutputStallRule (output_stall.h) ends the connection with
  // the same effect; zero limits take the defaults for max_message_bytes.
  // Each connection's input read but not yet handled is held to
  // InputBudgetLimit(max_message_bytes): past it, the next frame is read
  // only once the peer has handled enough.
  size_t max_message_bytes = kDefaultMaxMessageBytes;
  OutputLimits output_limits;
  // At least 2. At most max_connections - 1 of them may be sockets that
  // have not shown the token; a new one closes the oldest of those
  // (web::LocalServer), so they cannot keep out a client with it.
  size_t max_connections = 16;
};

// The path clients connect to.
inline constexpr char kAcpPath[] = "/acp";

class AcpWebSocketListener {
 public:
  ~AcpWebSocketListener();  // Stop()

  uint16_t port() const;
  const std::string& token() const;
  // ws://127.0.0.1:PORT/acp (the token is not in it).
  std::string url() const;
  // Empty, or why `localhost:PORT` is not accepted (web::LocalServer::notice).
  const std::string& notice() const;
  // Closes every connection (each peer gets OnClosed) and the listener.
  void Stop();

  // The input budgets of the connections (opaque outside ws_listener.cc).
  struct Budgets;

 private:
  AcpWebSocketListener(std::unique_ptr<web::LocalServer> server, std::shared_ptr<Budgets> budgets);
  friend absl::StatusOr<std::unique_ptr<AcpWebSocketListener>> ServeAcpWebSocket(
      const AcpListenOptions& options, PeerFactory factory);

  std::unique_ptr<web::LocalServer> server_;
  // Closed by Stop() first: a connection's reader may wait for the event
  // loop to handle its input, and the loop may have stopped.
  std::shared_ptr<Budgets> budgets_;
};

// Starts serving; the listener runs until Stop() or its destruction.
absl::StatusOr<std::unique_ptr<AcpWebSocketListener>> ServeAcpWebSocket(
    const AcpListenOptions& options, PeerFactory factory);

}  // namespace raw::acp
