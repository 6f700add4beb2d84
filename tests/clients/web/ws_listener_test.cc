// ServeAcpWebSocket: a real listener on 127.0.0.1 and Beast's client.
#include "clients/acp/ws_listener.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "tests/clients/web/support/ws_test_client.h"

namespace raw::acp {
namespace {

using web::testing::WsConnectOptions;
using web::testing::WsTestClient;

// What the peers of one listener saw.
struct PeerLog {
  std::atomic<int> opened{0};
  std::atomic<int> closed{0};
  absl::Notification first_closed;
  absl::Mutex mu;
  std::vector<std::string> received ABSL_GUARDED_BY(mu);
  std::shared_ptr<Transport> last_transport ABSL_GUARDED_BY(mu);
};

// Echoes every message; "bye" makes it close the transport.
class EchoPeer : public Peer {
 public:
  EchoPeer(std::shared_ptr<Transport> transport, PeerLog* log) : transport_(std::move(transport)), log_(log) {}
  void OnMessage(std::string message) override {
    {
      absl::MutexLock lock(&log_->mu);
      log_->received.push_back(message);
    }
    if (message == "bye") {
      transport_->Close();
      return;
    }
    transport_->Send(std::move(message));
  }
  void OnClosed() override {
    if (++log_->closed == 1) log_->first_closed.Notify();
  }

 private:
  std::shared_ptr<Transport> transport_;
  PeerLog* log_;
};

PeerFactory EchoFactory(PeerLog* log) {
  return [log](std::shared_ptr<Transport> transport) -> std::unique_ptr<Peer> {
    ++log->opened;
    {
      absl::MutexLock lock(&log->mu);
      log->last_transport = transport;
    }
    return std::make_unique<EchoPeer>(std::move(transport), log);
  };
}

std::unique_ptr<AcpWebSocketListener> Listen(PeerLog* log, AcpListenOptions options = {}) {
  auto listener = ServeAcpWebSocket(options, EchoFactory(log));
  EXPECT_TRUE(listener.ok()) << listener.status();
  return listener.ok() ? *std::move(listener) : nullptr;
}

WsConnectOptions WithBearer(const AcpWebSocketListener& listener) {
  WsConnectOptions options;
  options.port = listener.port();
  options.headers = {{"Authorization", "Bearer " + listener.token()}};
  return options;
}

TEST(AcpWebSocketListener, EchoesHundredMessagesInOrder) {
  PeerLog log;
  auto listener = Listen(&log);
  ASSERT_TRUE(listener);
  EXPECT_EQ(listener->url(), absl::StrCat("ws://127.0.0.1:", listener->port(), "/acp"));
  auto client = WsTestClient::Connect(WithBearer(*listener));
  ASSERT_TRUE(client.ok()) << client.status();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE((*client)->SendText(absl::StrCat(R"({"jsonrpc":"2.0","id":)", i, "}")).ok());
  }
  for (int i = 0; i < 100; ++i) {
    auto echoed = (*client)->Read();
    ASSERT_TRUE(echoed.ok()) << echoed.status();
    EXPECT_EQ(*echoed, absl::StrCat(R"({"jsonrpc":"2.0","id":)", i, "}"));
  }
  ASSERT_TRUE((*client)->Close().ok());
  log.first_closed.WaitForNotification();
  EXPECT_EQ(log.opened.load(), 1);
  EXPECT_EQ(log.closed.load(), 1);
}

TEST(AcpWebSocketListener, TokenInQueryIsAccepted) {
  PeerLog log;
  auto listener = Listen(&log);
  ASSERT_TRUE(listener);
  WsConnectOptions options;
  options.port = listener->port();
  options.target = "/acp?token=" + listener->token();
  auto client = WsTestClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->SendText("hello").ok());
  EXPECT_EQ((*client)->Read().value_or(""), "hello");
}

TEST(AcpWebSocketListener, RefusesMissingOrWrongToken) {
  PeerLog log;
  auto listener = Listen(&log);
  ASSERT_TRUE(listener);
  std::string wrong_same_length(listener->token().size(), 'a');
  for (const std::string& header : {std::string(), "Bearer " + wrong_same_length, std::string("Bearer short")}) {
    WsConnectOptions options;
    options.port = listener->port();
    if (!header.empty()) options.headers = {{"Authorization", header}};
    WsTestClient::Refused refused;
    auto client = WsTestClient::Connect(options, &refused);
    EXPECT_FALSE(client.ok()) << header;
    EXPECT_EQ(refused.status, 401) << header;
  }
  EXPECT_EQ(log.opened.load(), 0);
}

TEST(AcpWebSocketListener, RefusesCrossSiteOriginAndForeignHost) {
  PeerLog log;
  AcpListenOptions listen;
  listen.allowed_origins = {"https://client.example"};
  auto listener = Listen(&log, listen);
  ASSERT_TRUE(listener);

  WsConnectOptions evil = WithBearer(*listener);
  evil.headers.emplace_back("Origin", "https://evil.example");
  WsTestClient::Refused refused;
  EXPECT_FALSE(WsTestClient::Connect(evil, &refused).ok());
  EXPECT_EQ(refused.status, 403);

  WsConnectOptions rebinding = WithBearer(*listener);
  rebinding.host = absl::StrCat("attacker.example:", listener->port());
  refused = {};
  EXPECT_FALSE(WsTestClient::Connect(rebinding, &refused).ok());
  EXPECT_EQ(refused.status, 421);
  EXPECT_EQ(log.opened.load(), 0);

  WsConnectOptions own = WithBearer(*listener);
  own.headers.emplace_back("Origin", absl::StrCat("http://localhost:", listener->port()));
  own.host = absl::StrCat("localhost:", listener->port());
  EXPECT_TRUE(WsTestClient::Connect(own).ok());
  WsConnectOptions allowed = WithBearer(*listener);
  allowed.headers.emplace_back("Origin", "https://client.example");
  EXPECT_TRUE(WsTestClient::Connect(allowed).ok());
}

TEST(AcpWebSocketListener, MessageOverTheLimitClosesWith1009) {
  PeerLog log;
  AcpListenOptions listen;
  listen.max_message_bytes = 1024;
  auto listener = Listen(&log, listen);
  ASSERT_TRUE(listener);
  auto client = WsTestClient::Connect(WithBearer(*listener));
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->SendText(std::string(1024, 'x')).ok());
  EXPECT_EQ((*client)->Read().value_or(""), std::string(1024, 'x'));
  ASSERT_TRUE((*client)->SendText(std::string(1025, 'y')).ok());
  EXPECT_FALSE((*client)->Read().ok());
  EXPECT_EQ((*client)->close_code(), 1009);
  log.first_closed.WaitForNotification();
  absl::MutexLock lock(&log.mu);
  EXPECT_EQ(log.received.size(), 1u);  // the oversized message never reached the peer
}

TEST(AcpWebSocketListener, BinaryFramesAreIgnored) {
  PeerLog log;
  auto listener = Listen(&log);
  ASSERT_TRUE(listener);
  auto client = WsTestClient::Connect(WithBearer(*listener));
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->SendBinary("binary").ok());
  ASSERT_TRUE((*client)->SendText("text").ok());
  EXPECT_EQ((*client)->Read().value_or(""), "text");
  absl::MutexLock lock(&log.mu);
  EXPECT_EQ(log.received, std::vector<std::string>{"text"});
}

TEST(AcpWebSocketListener, ConnectionsAreIsolated) {
  PeerLog log;
  auto listener = Listen(&log);
  ASSERT_TRUE(listener);
  auto a = WsTestClient::Connect(WithBearer(*listener));
  auto b = WsTestClient::Connect(WithBearer(*listener));
  ASSERT_TRUE(a.ok() && b.ok());
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE((*a)->SendText(absl::StrCat("a", i)).ok());
    ASSERT_TRUE((*b)->SendText(absl::StrCat("b", i)).ok());
  }
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ((*a)->Read().value_or(""), absl::StrCat("a", i));
    EXPECT_EQ((*b)->Read().value_or(""), absl::StrCat("b", i));
  }
  // One going away leaves the other working.
  ASSERT_TRUE((*a)->Close().ok());
  log.first_closed.WaitForNotification();
  ASSERT_TRUE((*b)->SendText("still here").ok());
  EXPECT_EQ((*b)->Read().value_or(""), "still here");
  EXPECT_EQ(log.opened.load(), 2);
  EXPECT_EQ(log.closed.load(), 1);
}

TEST(AcpWebSocketListener, TransportCloseEndsTheConnection) {
  PeerLog log;
  auto listener = Listen(&log);
  ASSERT_TRUE(listener);
  auto client = WsTestClient::Connect(WithBearer(*listener));
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->SendText("bye").ok());
  EXPECT_FALSE((*client)->Read().ok());
  EXPECT_EQ((*client)->close_code(), 1000);
  log.first_closed.WaitForNotification();
  EXPECT_EQ(log.closed.load(), 1);
  absl::MutexLock lock(&log.mu);
  EXPECT_FALSE(log.last_transport->Send("late"));
}

TEST(AcpWebSocketListener, StopClosesOpenConnections) {
  PeerLog log;
  auto listener = Listen(&log);
  ASSERT_TRUE(listener);
  auto a = WsTestClient::Connect(WithBearer(*listener));
  auto b = WsTestClient::Connect(WithBearer(*listener));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->SendText("one").ok());
  EXPECT_EQ((*a)->Read().value_or(""), "one");
  listener->Stop();
  // Stop returns after every peer was told.
  EXPECT_EQ(log.closed.load(), 2);
  EXPECT_FALSE((*a)->Read().ok());
  EXPECT_FALSE((*b)->Read().ok());
  absl::MutexLock lock(&log.mu);
  EXPECT_FALSE(log.last_transport->Send("after stop"));
}

TEST(AcpWebSocketListener, RefusesANonLoopbackAddress) {
  PeerLog log;
  AcpListenOptions options;
  options.address = "0.0.0.0";
  auto listener = ServeAcpWebSocket(options, EchoFactory(&log));
  ASSERT_FALSE(listener.ok());
  EXPECT_EQ(listener.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(listener.status().message().find("not loopback"), std::string::npos);
}

}  // namespace
}  // namespace raw::acp
