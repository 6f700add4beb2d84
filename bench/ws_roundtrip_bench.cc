// Round trip of one small ACP message over `raw-acp --listen`'s WebSocket:
// Beast's client sends a text frame to ServeAcpWebSocket on 127.0.0.1, an
// echo peer sends it back. Reports the median (p50_us) besides the mean.
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "clients/acp/ws_listener.h"
#include "tests/clients/web/support/ws_test_client.h"

namespace {

class EchoPeer : public raw::acp::Peer {
 public:
  explicit EchoPeer(std::shared_ptr<raw::acp::Transport> transport) : transport_(std::move(transport)) {}
  void OnMessage(std::string message) override { transport_->Send(std::move(message)); }
  void OnClosed() override {}

 private:
  std::shared_ptr<raw::acp::Transport> transport_;
};

void BM_AcpWebSocketRoundTrip(benchmark::State& state) {
  auto listener = raw::acp::ServeAcpWebSocket({}, [](std::shared_ptr<raw::acp::Transport> transport) {
    return std::make_unique<EchoPeer>(std::move(transport));
  });
  if (!listener.ok()) {
    state.SkipWithError(std::string(listener.status().message()).c_str());
    return;
  }
  raw::web::testing::WsConnectOptions options;
  options.port = (*listener)->port();
  options.headers = {{"Authorization", "Bearer " + (*listener)->token()}};
  auto client = raw::web::testing::WsTestClient::Connect(options);
  if (!client.ok()) {
    state.SkipWithError(std::string(client.status().message()).c_str());
    return;
  }
  const std::string message = R"({"jsonrpc":"2.0","id":1,"method":"session/cancel"})";
  std::vector<double> micros;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    if (!(*client)->SendText(message).ok() || !(*client)->Read().ok()) {
      state.SkipWithError("the connection failed");
      break;
    }
    micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  if (!micros.empty()) {
    std::nth_element(micros.begin(), micros.begin() + static_cast<long>(micros.size() / 2), micros.end());
    state.counters["p50_us"] = micros[micros.size() / 2];
  }
  (void)(*client)->Close();
}
BENCHMARK(BM_AcpWebSocketRoundTrip)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
