// Test support: a blocking WebSocket client (Beast's, compiled in
// ws_test_client.cc only) for driving a LocalServer from the tests.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::web::testing {

struct WsConnectOptions {
  uint16_t port = 0;
  std::string target = "/acp";
  std::string host;  // empty: 127.0.0.1:PORT
  std::vector<std::pair<std::string, std::string>> headers;
  size_t max_message_bytes = 64 * 1024 * 1024;
};

class WsTestClient {
 public:
  // The HTTP status when the server refused the upgrade (0 when it
  // accepted, or the connection failed otherwise).
  struct Refused {
    int status = 0;
  };
  static absl::StatusOr<std::unique_ptr<WsTestClient>> Connect(const WsConnectOptions& options,
                                                               Refused* refused = nullptr);
  ~WsTestClient();

  absl::Status SendText(const std::string& text);
  absl::Status SendBinary(const std::string& bytes);
  // The next text message; an error once the connection closed (then
  // close_code() tells the server's close code, 0 for none).
  absl::StatusOr<std::string> Read();
  int close_code() const;
  // Runs `on_ping` (on the reading thread, inside Read) for each ping the
  // server sends, which Read answers with a pong.
  void OnPing(std::function<void()> on_ping);
  // A normal close handshake.
  absl::Status Close();
  // Reads the socket below the WebSocket layer, answering nothing (pings
  // included: a peer gone silent), until the server drops the connection
  // (true) or `limit` passes with it still open (false; a bound for a
  // failing test, never a wait for an event).
  bool WaitForDrop(std::chrono::milliseconds limit);

  struct State;

 private:
  explicit WsTestClient(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace raw::web::testing
