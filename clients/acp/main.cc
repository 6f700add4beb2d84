// raw-acp: the ACP agent bridge. Serves Raw sessions to an ACP client over
// stdio (one JSON-RPC message per line; nothing else on stdout, logs on
// stderr). Exits 0 when the client closes its end, once the turns this
// bridge started are interrupted and its leases released.
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "clients/acp/acp_args.h"
#include "clients/acp/acp_server.h"
#include "clients/acp/event_loop.h"
#include "clients/acp/stdio_transport.h"
#include "common/version.h"

int main(int argc, char** argv) {
  using namespace raw::acp;
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
  if (!args->listen.empty()) {
    std::cerr << "raw-acp: --listen is not available in this build\n";
    return 2;
  }

  AgentOptions options;
  options.agent = args->agent;
  options.connect.socket_path = args->socket;

  EventLoop loop;
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
