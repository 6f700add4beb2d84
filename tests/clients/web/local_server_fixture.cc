#include "tests/clients/web/local_server_fixture.h"

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"

namespace raw::web::testing {
namespace {

// /burst: sends kBurstFrames numbered frames from a thread of its own as
// fast as it can, then closes with 4000 (a streamed answer's burst).
class BurstHandler : public WebSocketHandler {
 public:
  ~BurstHandler() override { OnClose(); }
  void OnOpen(std::shared_ptr<WebSocketConnection> connection) override {
    sender_ = std::thread([connection] {
      for (int i = 0; i < kBurstFrames; ++i) connection->Send(absl::StrCat(i));
      connection->Close(4000, "done");
    });
  }
  void OnText(std::string) override {}
  void OnClose() override {
    if (sender_.joinable()) sender_.join();
  }

 private:
  std::thread sender_;
};

// /hand-over: hands its connection to the test, which sends on it from its
// own thread.
class HandOverHandler : public WebSocketHandler {
 public:
  explicit HandOverHandler(std::function<void(std::shared_ptr<WebSocketConnection>)> take)
      : take_(std::move(take)) {}
  void OnOpen(std::shared_ptr<WebSocketConnection> connection) override {
    take_(std::move(connection));
  }
  void OnText(std::string) override {}
  void OnClose() override {}

 private:
  std::function<void(std::shared_ptr<WebSocketConnection>)> take_;
};

// /held: answers each text frame; "hold" waits for the test first.
class HeldHandler : public WebSocketHandler {
 public:
  HeldHandler(absl::Notification* holding, absl::Notification* release)
      : holding_(holding), release_(release) {}
  void OnOpen(std::shared_ptr<WebSocketConnection> connection) override {
    connection_ = std::move(connection);
  }
  void OnText(std::string text) override {
    if (text == "hold") {
      holding_->Notify();
      release_->WaitForNotification();
    }
    connection_->Send("done:" + text);
  }
  void OnClose() override {}

 private:
  absl::Notification* holding_;
  absl::Notification* release_;
  std::shared_ptr<WebSocketConnection> connection_;
};

}  // namespace

void LocalServerTest::StartServer(LocalServerOptions options) {
  options.session_cookie = "raw_token";
  options.session_secret = kSessionSecret;
  Routes routes;
  routes.http.push_back(
      {.method = "GET", .path = "/api/echo", .handler = [](const Request& r, Respond respond) {
         Response res;
         res.body = absl::StrCat("{\"path\":\"", r.path, "\"}");
         respond(res);
       }});
  routes.http.push_back({.method = "POST",
                         .path = "/api/state",
                         .handler = [this](const Request& r, Respond respond) {
                           ++state_calls_;
                           Response res;
                           res.body = r.body;
                           res.headers.emplace_back("Set-Cookie", SessionCookie("raw_token", "x"));
                           respond(res);
                         }});
  routes.http.push_back({.method = "GET",
                         .path = "/index.html",
                         .public_route = true,
                         .handler = [](const Request&, Respond respond) {
                           Response res;
                           res.content_type = "text/html";
                           res.body = "<p>hi</p>";
                           res.no_store = false;
                           respond(res);
                         }});
  routes.http.push_back({.method = "GET",
                         .path = "/files/",
                         .prefix = true,
                         .handler = [](const Request& r, Respond respond) {
                           Response res;
                           res.body = r.path;
                           respond(res);
                         }});
  routes.http.push_back(
      {.method = "GET", .path = "/slow", .handler = [this](const Request&, Respond respond) {
         release_slow_.WaitForNotification();
         respond(Response{});
       }});
  routes.http.push_back(
      {.method = "GET", .path = "/never", .handler = [this](const Request&, Respond respond) {
         kept_respond_ = std::move(respond);  // answered after the timeout
         never_called_.Notify();
       }});
  routes.websocket.push_back({.path = "/ws", .factory = [](const Request&) { return nullptr; }});
  routes.websocket.push_back({.path = "/burst", .factory = [](const Request&) {
                                return std::make_unique<BurstHandler>();
                              }});
  routes.websocket.push_back({.path = "/hand-over", .factory = [this](const Request&) {
                                return std::make_unique<HandOverHandler>(
                                    [this](std::shared_ptr<WebSocketConnection> c) {
                                      handed_over_ = std::move(c);
                                      opened_.Notify();
                                    });
                              }});
  routes.websocket.push_back({.path = "/held", .factory = [this](const Request&) {
                                return std::make_unique<HeldHandler>(&holding_, &release_held_);
                              }});
  auto server = LocalServer::Start(options, std::move(routes));
  ASSERT_TRUE(server.ok()) << server.status();
  server_ = *std::move(server);
  port_ = server_->port();
}

}  // namespace raw::web::testing
