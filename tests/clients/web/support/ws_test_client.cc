#include "tests/clients/web/support/ws_test_client.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace raw::web::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

struct WsTestClient::State {
  asio::io_context io;
  websocket::stream<tcp::socket> ws{io};
};

WsTestClient::WsTestClient(std::unique_ptr<State> state) : state_(std::move(state)) {}
WsTestClient::~WsTestClient() = default;

absl::StatusOr<std::unique_ptr<WsTestClient>> WsTestClient::Connect(const WsConnectOptions& options,
                                                                    Refused* refused) {
  auto state = std::make_unique<State>();
  beast::error_code ec;
  tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), options.port);
  state->ws.next_layer().connect(endpoint, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("connect: ", ec.message()));
  auto headers = options.headers;
  state->ws.set_option(websocket::stream_base::decorator([headers](websocket::request_type& req) {
    for (const auto& [name, value] : headers) req.set(name, value);
  }));
  state->ws.read_message_max(options.max_message_bytes);
  std::string host = options.host.empty() ? absl::StrCat("127.0.0.1:", options.port) : options.host;
  websocket::response_type response;
  // The asynchronous handshake, because Boost 1.74's synchronous one leaves
  // `response` empty when the server declines the upgrade.
  state->ws.async_handshake(response, host, options.target, [&ec](beast::error_code e) { ec = e; });
  state->io.run();
  state->io.restart();
  if (ec) {
    if (refused != nullptr) refused->status = static_cast<int>(response.result_int());
    return absl::PermissionDeniedError(
        absl::StrCat("handshake: ", ec.message(), " (HTTP ", response.result_int(), ")"));
  }
  return std::unique_ptr<WsTestClient>(new WsTestClient(std::move(state)));
}

absl::Status WsTestClient::SendText(const std::string& text) {
  beast::error_code ec;
  state_->ws.text(true);
  state_->ws.write(asio::buffer(text), ec);
  return ec ? absl::UnavailableError(ec.message()) : absl::OkStatus();
}

absl::Status WsTestClient::SendBinary(const std::string& bytes) {
  beast::error_code ec;
  state_->ws.binary(true);
  state_->ws.write(asio::buffer(bytes), ec);
  return ec ? absl::UnavailableError(ec.message()) : absl::OkStatus();
}

absl::StatusOr<std::string> WsTestClient::Read() {
  for (;;) {
    beast::flat_buffer buffer;
    beast::error_code ec;
    state_->ws.read(buffer, ec);
    if (ec) return absl::UnavailableError(ec.message());
    if (state_->ws.got_text()) return beast::buffers_to_string(buffer.data());
  }
}

void WsTestClient::OnPing(std::function<void()> on_ping) {
  state_->ws.control_callback(
      [on_ping = std::move(on_ping)](websocket::frame_type kind, beast::string_view) {
        if (kind == websocket::frame_type::ping) on_ping();
      });
}

int WsTestClient::close_code() const { return static_cast<int>(state_->ws.reason().code); }

absl::Status WsTestClient::Close() {
  beast::error_code ec;
  state_->ws.close(websocket::close_code::normal, ec);
  return ec ? absl::UnavailableError(ec.message()) : absl::OkStatus();
}

bool WsTestClient::WaitForDrop(std::chrono::milliseconds limit) {
  const int fd = state_->ws.next_layer().native_handle();
  const auto deadline = std::chrono::steady_clock::now() + limit;
  char sink[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) return false;
    if (ready <= 0) continue;
    ssize_t n = ::recv(fd, sink, sizeof sink, 0);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return true;
  }
}

}  // namespace raw::web::testing
