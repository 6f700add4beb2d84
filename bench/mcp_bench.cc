// MCP client costs against the official reference server
// @modelcontextprotocol/server-everything over stdio (installed by
// `npm ci` in tests/mcp-servers):
//   BM_StdioEchoRoundTrip  one tools/call of `echo` on a warm connection;
//   BM_StdioColdStart      spawn, initialize and the first tools/list, then
//                          close (the polite shutdown is outside the timing).
//
// The server is found relative to this source file (or RAW_SOURCE_DIR);
// `node` on PATH.
#include <cstdlib>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "common/paths.h"
#include "daemon/mcp/mcp_client.h"
#include "daemon/mcp/stdio_transport.h"

namespace raw::mcp {
namespace {

std::string SourceDir() {
  if (const char* dir = std::getenv("RAW_SOURCE_DIR"); dir != nullptr && *dir != '\0') return dir;
  std::string file = __FILE__;
  return file.substr(0, file.rfind("/bench/"));
}

std::unique_ptr<McpClient> NewEverythingClient() {
  StdioTransportOptions options;
  options.server_name = "everything";
  options.process.argv = {
      "node",
      SourceDir() +
          "/tests/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
      "stdio"};
  EnvLookup env = ProcessEnv();
  for (const char* name : {"PATH", "HOME"}) {
    if (std::optional<std::string> value = env(name)) options.process.env[name] = *value;
  }
  McpClientOptions client_options;
  client_options.server_name = "everything";
  return std::make_unique<McpClient>(std::make_unique<StdioTransport>(std::move(options)),
                                     client_options);
}

void BM_StdioEchoRoundTrip(benchmark::State& state) {
  std::unique_ptr<McpClient> client = NewEverythingClient();
  if (absl::Status connected = client->Connect(); !connected.ok()) {
    state.SkipWithError(std::string(connected.message()).c_str());
    return;
  }
  const Json arguments = {{"message", "ping from the benchmark"}};
  CallOptions options;
  for (auto _ : state) {
    absl::StatusOr<CallToolResult> result = client->CallTool("echo", arguments, options);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(result->content);
  }
}
BENCHMARK(BM_StdioEchoRoundTrip)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_StdioColdStart(benchmark::State& state) {
  for (auto _ : state) {
    std::unique_ptr<McpClient> client = NewEverythingClient();
    absl::Status connected = client->Connect();
    if (!connected.ok()) {
      state.SkipWithError(std::string(connected.message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(client->tools().size());
    state.PauseTiming();
    client.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_StdioColdStart)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);

}  // namespace
}  // namespace raw::mcp

BENCHMARK_MAIN();
