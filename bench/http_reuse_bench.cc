// Sequential requests through CurlHttpClient to a local server that keeps
// connections open (the client reuses one) or closes each after its answer
// (every request opens a new one): what a kept connection saves per
// request on loopback, where a connection costs no network round trip.
// Figures and the command line are recorded in docs/performance.md.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "common/cancel_token.h"
#include "daemon/http/curl_http_client.h"
#include "tests/fakes/keep_alive_server.h"

namespace {

void BM_SequentialPosts(benchmark::State& state) {
  const bool server_closes = state.range(0) != 0;
  raw::testing::KeepAliveServer server(server_closes);
  raw::http::CurlHttpClient client;
  raw::CancelToken cancel;
  raw::http::HttpRequest request;
  request.url = server.url();
  request.headers = {{"Content-Type", "application/json"}};
  request.body = R"({"stream":true})";
  for (auto _ : state) {
    raw::http::HttpResponse response;
    if (!raw::http::SendAndCollect(client, request, cancel, &response).ok()) {
      state.SkipWithError("request failed");
      break;
    }
  }
  state.counters["connections"] = server.connections();
  state.SetLabel(server_closes ? "server closes each connection" : "connection kept");
}
BENCHMARK(BM_SequentialPosts)->Arg(0)->Arg(1)->UseRealTime();

// A request whose body is a long history sent as the provider adapters send
// it (a head, the kept history shared, the closing bytes), on a kept
// connection: what sending the body alone costs the sending thread (the CPU
// column: libcurl copying the pieces into its upload buffer, the kernel
// copying them into the socket and, on loopback, processing them for the
// receiver), to set beside rawd's CPU per request at that history length.
void BM_LargeBody(benchmark::State& state) {
  raw::testing::KeepAliveServer server;
  raw::http::CurlHttpClient client;
  raw::CancelToken cancel;
  raw::http::HttpRequest request;
  request.url = server.url();
  request.headers = {{"Content-Type", "application/json"}};
  std::string history(static_cast<size_t>(state.range(0)), 'x');
  request.SetBody(
      raw::http::PiecedBody{R"({"model":"m","messages":[")",
                            {std::make_shared<const std::string>(std::move(history)),
                             std::make_shared<const std::string>(R"("],"stream":true})")}});
  for (auto _ : state) {
    raw::http::HttpResponse response;
    if (!raw::http::SendAndCollect(client, request, cancel, &response).ok()) {
      state.SkipWithError("request failed");
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_LargeBody)->Arg(3 << 10)->Arg(300 << 10)->Arg(3 << 20)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
