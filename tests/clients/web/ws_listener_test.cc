// ServeAcpWebSocket: a real listener on 127.0.0.1 and Beast's client.
#include "clients/acp/ws_listener.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
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
  EchoPeer(std::shared_ptr<Transport> transport, PeerLog* log)
      : transport_(std::move(transport)), log_(log) {}
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

// The transports' clock, moved by the test.
class TestClock {
 public:
  absl::Time Now() {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
  }
  std::function<absl::Time()> Fn() {
    return [this] { return Now(); };
  }

 private:
  absl::Mutex mu_;
  absl::Time now_ = absl::FromUnixSeconds(1000000);
};

// A replay burst into a client that reads slowly but steadily (1 s of the
// transport's clock per 1 MiB message, 24 s in all, against a 10 s stall
// window): the queue stays far past the soft limit, yet the writer keeps
// making progress, so the connection stays and every message arrives.
TEST(AcpWebSocketListener, ASlowButSteadyReaderGetsEverythingPastTheSoftLimit) {
  PeerLog log;
  TestClock clock;
  AcpListenOptions listen;
  listen.output_limits = {
      .soft_bytes = 2u << 20, .stall_window = absl::Seconds(10), .clock = clock.Fn()};
  auto listener = Listen(&log, listen);
  ASSERT_TRUE(listener);
  auto client = WsTestClient::Connect(WithBearer(*listener));
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->SendText("hello").ok());  // the peer is open once it is echoed
  ASSERT_EQ((*client)->Read().value_or(""), "hello");
  std::shared_ptr<Transport> transport;
  {
    absl::MutexLock lock(&log.mu);
    transport = log.last_transport;
  }
  constexpr int kMessages = 24;
  constexpr int kAhead = 8;  // messages sent ahead of the reader: 8 MiB queued
  absl::Mutex mu;
  int read = 0;
  std::thread sender([&] {
    for (int i = 0; i < kMessages; ++i) {
      {
        absl::MutexLock lock(&mu);
        auto room = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return read >= i - kAhead; };
        mu.Await(absl::Condition(&room));
      }
      if (!transport->Send(absl::StrCat(i, ":", std::string(1u << 20, 'a' + i % 26)))) {
        ADD_FAILURE() << "the connection closed at message " << i;
        return;
      }
    }
  });
  for (int i = 0; i < kMessages; ++i) {
    clock.Advance(absl::Seconds(1));
    auto message = (*client)->Read();
    if (!message.ok()) {
      ADD_FAILURE() << "message " << i << ": " << message.status();
      break;
    }
    EXPECT_EQ(message->substr(0, message->find(':')), absl::StrCat(i));
    EXPECT_EQ(message->size(), absl::StrCat(i).size() + 1 + (1u << 20));
    absl::MutexLock lock(&mu);
    ++read;
  }
  {
    absl::MutexLock lock(&mu);
    read = kMessages;  // frees a sender stopped early
  }
  sender.join();
  EXPECT_EQ(log.closed.load(), 0);
}

// A client that stops reading: past the soft limit, once nothing was
// written for the stall window, the next message ends its connection (the
// peer's OnClosed), as if it had gone away.
TEST(AcpWebSocketListener, AClientThatStopsReadingLosesItsConnection) {
  PeerLog log;
  TestClock clock;
  AcpListenOptions listen;
  listen.output_limits = {
      .soft_bytes = 2u << 20, .stall_window = absl::Seconds(10), .clock = clock.Fn()};
  auto listener = Listen(&log, listen);
  ASSERT_TRUE(listener);
  auto client = WsTestClient::Connect(WithBearer(*listener));
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->SendText("hello").ok());
  ASSERT_EQ((*client)->Read().value_or(""), "hello");
  std::shared_ptr<Transport> transport;
  {
    absl::MutexLock lock(&log.mu);
    transport = log.last_transport;
  }
  // Past the soft limit at once: kept while the window runs.
  const std::string message(1u << 20, 'x');
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(transport->Send(message)) << i;
  EXPECT_EQ(log.closed.load(), 0);
  // Each message now comes 11 s after the one before: once the kernel's
  // buffers are full, the next one finds the writer stuck for longer than
  // the window.
  int sent = 0;
  do {
    clock.Advance(absl::Seconds(11));
  } while (++sent < 200 && transport->Send(message));
  EXPECT_LT(sent, 200) << "never closed";
  log.first_closed.WaitForNotification();
  EXPECT_EQ(log.closed.load(), 1);
  EXPECT_FALSE(transport->Send("{}"));
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
  for (const std::string& header :
       {std::string(), "Bearer " + wrong_same_length, std::string("Bearer short")}) {
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
