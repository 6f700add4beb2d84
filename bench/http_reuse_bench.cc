// Sequential requests through CurlHttpClient to a local server that keeps
// connections open (the client reuses one) or closes each after its answer
// (every request opens a new one): what a kept connection saves per
// request on loopback, where a connection costs no network round trip.
// Figures and the command line are recorded in docs/performance.md.
#include <benchmark/benchmark.h>

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

}  // namespace

BENCHMARK_MAIN();
