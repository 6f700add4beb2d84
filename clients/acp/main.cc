// raw-acp: the ACP agent bridge. Serves Raw sessions to an ACP client over
// stdio (one JSON-RPC message per line; nothing else on stdout, logs on
// stderr). Exits 0 when the client closes its end, once the turns this
// bridge started are interrupted and its leases released.
//
// With --listen 127.0.0.1:PORT it serves ACP over a local WebSocket
// instead (clients/acp/ws_listener.h) and prints the URL with its token on
// stderr; it runs until SIGINT or SIGTERM.
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "clients/acp/ws_listener.h"

#include "clients/acp/acp_args.h"
#include "clients/acp/acp_server.h"
#include "clients/acp/event_loop.h"
#include "clients/acp/stdio_transport.h"
#include "common/mutex_mode.h"
#include "common/version.h"

namespace {

using namespace raw::acp;

// --listen HOST:PORT: serves until SIGINT or SIGTERM.
int Listen(const AcpArgs& args, const AgentOptions& options, EventLoop& loop) {
  AcpListenOptions listen;
  size_t colon = args.listen.rfind(':');
  uint32_t port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(args.listen.substr(colon + 1), &port) ||
      port > 65535) {
    std::cerr << "raw-acp: --listen wants HOST:PORT (127.0.0.1 or [::1]), not '" << args.listen
              << "'\n";
    return 2;
  }
  listen.address = args.listen.substr(0, colon);
  if (listen.address.size() > 2 && listen.address.front() == '[' && listen.address.back() == ']') {
    listen.address = listen.address.substr(1, listen.address.size() - 2);
  }
  listen.port = static_cast<uint16_t>(port);
  if (args.max_message_bytes > 0) listen.max_message_bytes = args.max_message_bytes;
  // The signals are taken by a thread of their own (blocked everywhere else).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  AcpServer server(loop, options, [] {});
  auto listener = ServeAcpWebSocket(listen, server.factory());
  if (!listener.ok()) {
    std::cerr << "raw-acp: " << listener.status().message() << "\n";
    return 1;
  }
  std::cerr << "raw-acp: listening on " << (*listener)->url() << "?token=" << (*listener)->token()
            << std::endl;
  std::thread waiter([&loop, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    loop.Quit();
  });
  loop.Run();
  waiter.join();
  (*listener)->Stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  raw::ConfigureMutexDeadlockDetection();
  // A client that went away is seen as a failed write, not a signal.
  signal(SIGPIPE, SIG_IGN);
  absl::StatusOr<AcpArgs> args = ParseAcpArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (!args.ok()) {
    std::cerr << "raw-acp: " << args.status().message() << "\nRun 'raw-acp --help' for usage.\n";
    return 2;
  }
  if (args->help) {
    std::cout << kAcpUsage;
    return 0;
  }
  if (args->version) {
    std::cout << "raw-acp " << raw::kVersion << "\n";
    return 0;
  }
  AgentOptions options;
  options.agent = args->agent;
  options.connect.socket_path = args->socket;

  EventLoop loop;
  if (!args->listen.empty()) return Listen(*args, options, loop);
  AcpServer server(loop, options, [&loop] { loop.Quit(); });
  auto transport = std::make_shared<StdioTransport>(
      STDIN_FILENO, STDOUT_FILENO,
      args->max_message_bytes > 0 ? args->max_message_bytes : kDefaultMaxMessageBytes);
  transport->Start(server.factory()(transport));
  loop.Run();
  transport->Close();
  transport->Join();
  return 0;
}
