// Shared fixture of the LocalServer tests (local_server_*_test.cc): a
// server on 127.0.0.1 with a fixed set of routes, and requests written byte
// for byte against it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "clients/web/local_server.h"
#include "gtest/gtest.h"
#include "tests/clients/web/support/raw_http_client.h"
#include "tests/clients/web/support/ws_test_client.h"

namespace raw::web::testing {

// The frames /burst sends before it closes with 4000.
inline constexpr int kBurstFrames = 3000;
// The session secret StartServer gives the server; the cookie
// raw_token_<port> carries it.
inline constexpr char kSessionSecret[] = "fedcba9876543210fedcba9876543210";

class LocalServerTest : public ::testing::Test {
 protected:
  // Routes:
  //   GET /api/echo      answers {"path":"<path>"};
  //   POST /api/state    answers the body and a Set-Cookie, and counts its
  //                      calls in state_calls_ (the side effect a rejected
  //                      request must not have);
  //   GET /index.html    public: needs no token;
  //   GET /files/...     a prefix route, answers the path;
  //   GET /slow          answers once release_slow_ is notified;
  //   GET /never         keeps its Respond in kept_respond_, unanswered,
  //                      and notifies never_called_;
  //   WebSocket /ws      its factory returns null;
  //   WebSocket /burst   sends kBurstFrames numbered frames from a thread of
  //                      its own as fast as it can, then closes with 4000;
  //   WebSocket /hand-over  hands its connection to handed_over_, then
  //                      notifies opened_.
  //   WebSocket /held    answers each text frame T with "done:T"; for
  //                      "hold" it first notifies holding_ and waits for
  //                      release_held_ (a command waiting on rawd).
  // `options` gets the session cookie "raw_token" and kSessionSecret.
  void StartServer(LocalServerOptions options = {});

  std::string Host() const { return absl::StrCat("127.0.0.1:", port_); }
  std::string Get(const std::string& target, const std::string& extra = "") const {
    return absl::StrCat("GET ", target, " HTTP/1.1\r\nHost: ", Host(), "\r\n", extra, "\r\n");
  }
  std::string Bearer() const {
    return absl::StrCat("Authorization: Bearer ", server_->token(), "\r\n");
  }
  // A POST to /api/state with the token.
  std::string Post(const std::string& extra, const std::string& body) const {
    return absl::StrCat("POST /api/state HTTP/1.1\r\nHost: ", Host(), "\r\n", Bearer(), extra,
                        "Content-Length: ", body.size(), "\r\n\r\n", body);
  }
  // A WebSocket client connected to `target` with the token.
  absl::StatusOr<std::unique_ptr<WsTestClient>> ConnectWithToken(const std::string& target) const {
    WsConnectOptions options;
    options.port = port_;
    options.target = target;
    options.headers = {{"Authorization", "Bearer " + server_->token()}};
    return WsTestClient::Connect(options);
  }
  // The status of the answer to `request` on a fresh connection; -1 when
  // none came.
  int StatusOf(const std::string& request) const {
    std::optional<RawResponse> r = Exchange(port_, request);
    return r ? r->status : -1;
  }

  std::shared_ptr<WebSocketConnection> handed_over_;  // set before opened_
  absl::Notification opened_;
  std::atomic<int> state_calls_{0};
  absl::Notification release_slow_;
  absl::Notification holding_;
  absl::Notification release_held_;
  absl::Notification never_called_;
  Respond kept_respond_;
  std::unique_ptr<LocalServer> server_;
  uint16_t port_ = 0;
};

}  // namespace raw::web::testing
