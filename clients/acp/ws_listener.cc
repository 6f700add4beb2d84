#include "clients/acp/ws_listener.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "clients/web/local_server.h"

namespace raw::acp {
namespace {

constexpr uint16_t kNormalClosure = 1000;
constexpr uint16_t kInternalError = 1011;

class WebSocketTransport final : public Transport {
 public:
  explicit WebSocketTransport(std::shared_ptr<web::WebSocketConnection> connection)
      : connection_(std::move(connection)) {}
  bool Send(std::string message) override { return connection_->Send(std::move(message)); }
  void Close() override { connection_->Close(kNormalClosure, ""); }

 private:
  const std::shared_ptr<web::WebSocketConnection> connection_;
};

// One socket's ACP connection: the server calls these one at a time.
class PeerConnection final : public web::WebSocketHandler {
 public:
  explicit PeerConnection(PeerFactory factory) : factory_(std::move(factory)) {}

  void OnOpen(std::shared_ptr<web::WebSocketConnection> connection) override {
    transport_ = std::make_shared<WebSocketTransport>(connection);
    peer_ = factory_(transport_);
    if (peer_ == nullptr) connection->Close(kInternalError, "no ACP connection");
  }
  void OnText(std::string text) override {
    if (peer_) peer_->OnMessage(std::move(text));
  }
  void OnClose() override {
    if (peer_) peer_->OnClosed();
    peer_.reset();
    transport_.reset();
  }

 private:
  const PeerFactory factory_;
  std::shared_ptr<Transport> transport_;
  std::unique_ptr<Peer> peer_;
};

}  // namespace

AcpWebSocketListener::AcpWebSocketListener(std::unique_ptr<web::LocalServer> server) : server_(std::move(server)) {}
AcpWebSocketListener::~AcpWebSocketListener() { Stop(); }

uint16_t AcpWebSocketListener::port() const { return server_->port(); }
const std::string& AcpWebSocketListener::token() const { return server_->token(); }
const std::string& AcpWebSocketListener::notice() const { return server_->notice(); }
std::string AcpWebSocketListener::url() const {
  std::string origin = server_->origin();  // http://host:port
  return absl::StrCat("ws", origin.substr(4), kAcpPath);
}
void AcpWebSocketListener::Stop() { server_->Stop(); }

absl::StatusOr<std::unique_ptr<AcpWebSocketListener>> ServeAcpWebSocket(const AcpListenOptions& options,
                                                                        PeerFactory factory) {
  web::LocalServerOptions server_options;
  server_options.address = options.address;
  server_options.port = options.port;
  server_options.token = options.token;
  server_options.allowed_origins = options.allowed_origins;
  server_options.max_websocket_message_bytes = options.max_message_bytes;
  server_options.max_websocket_queued_bytes = OutputQueueLimit(options.max_message_bytes);
  server_options.max_connections = options.max_connections;
  web::Routes routes;
  routes.websocket.push_back(web::WebSocketRoute{
      .path = kAcpPath,
      .public_route = false,
      .factory = [factory = std::move(factory)](const web::Request&) -> std::unique_ptr<web::WebSocketHandler> {
        return std::make_unique<PeerConnection>(factory);
      }});
  absl::StatusOr<std::unique_ptr<web::LocalServer>> server =
      web::LocalServer::Start(std::move(server_options), std::move(routes));
  if (!server.ok()) return server.status();
  return std::make_unique<AcpWebSocketListener>(*std::move(server));
}

}  // namespace raw::acp
