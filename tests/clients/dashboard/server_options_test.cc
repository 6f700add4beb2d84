// The dashboard's server settings, and what they do to a tab that stops
// reading its WebSocket.
#include "clients/dashboard/server_options.h"

#include <memory>
#include <string>

#include "absl/synchronization/notification.h"
#include "clients/dashboard/gateway.h"
#include "clients/web/access_token.h"
#include "gtest/gtest.h"
#include "tests/clients/web/support/ws_test_client.h"

namespace raw::dashboard {
namespace {

TEST(DashboardServerOptions, BoundWhatATabLeavesUnread) {
  web::LocalServerOptions options = DashboardServerOptions(0, "token", "secret");
  EXPECT_EQ(options.max_websocket_message_bytes, kMaxWebSocketMessageBytes);
  EXPECT_EQ(options.max_websocket_queued_bytes, 4 * kMaxWebSocketMessageBytes);
  EXPECT_EQ(options.session_cookie, kSessionCookie);
  EXPECT_EQ(options.content_security_policy, kContentSecurityPolicy);
  // The token only as a header: never in an address (history, logs).
  EXPECT_FALSE(options.query_token);
}

// Keeps its socket for the test, which sends on it from its own thread.
class KeptSocket : public web::WebSocketHandler {
 public:
  KeptSocket(std::shared_ptr<web::WebSocketConnection>* out, absl::Notification* opened)
      : out_(out), opened_(opened) {}
  void OnOpen(std::shared_ptr<web::WebSocketConnection> connection) override {
    *out_ = std::move(connection);
    opened_->Notify();
  }
  void OnText(std::string) override {}
  void OnClose() override {}

 private:
  std::shared_ptr<web::WebSocketConnection>* out_;
  absl::Notification* opened_;
};

// A tab that reads nothing while its session streams: once more than the
// limit waits, the gateway drops the socket instead of keeping the rest
// (the frames after that point and the close frame never arrive).
TEST(DashboardServerOptions, ATabThatStopsReadingLosesItsSocket) {
  absl::StatusOr<std::string> token = web::NewAccessToken();
  absl::StatusOr<std::string> secret = web::NewAccessToken();
  ASSERT_TRUE(token.ok() && secret.ok());
  std::shared_ptr<web::WebSocketConnection> socket;
  absl::Notification opened;
  web::Routes routes;
  routes.websocket.push_back({.path = "/live", .factory = [&](const web::Request&) {
                                return std::make_unique<KeptSocket>(&socket, &opened);
                              }});
  auto server =
      web::LocalServer::Start(DashboardServerOptions(0, *token, *secret), std::move(routes));
  ASSERT_TRUE(server.ok()) << server.status();
  web::testing::WsConnectOptions connect;
  connect.port = (*server)->port();
  connect.target = "/live";
  connect.headers = {{"Authorization", "Bearer " + *token}};
  auto tab = web::testing::WsTestClient::Connect(connect);
  ASSERT_TRUE(tab.ok()) << tab.status();
  opened.WaitForNotification();
  // The limit and more than the loopback socket's buffers besides.
  const std::string frame(1024 * 1024, 'x');
  const int frames = static_cast<int>(kMaxWebSocketQueuedBytes / frame.size()) + 32;
  for (int i = 0; i < frames; ++i) socket->Send(frame);
  socket->Close(4000, "done");
  int read = 0;
  while ((*tab)->Read().ok()) ++read;
  EXPECT_LT(read, frames);
  EXPECT_EQ((*tab)->close_code(), 0);
  (*server)->Stop();
}

}  // namespace
}  // namespace raw::dashboard
