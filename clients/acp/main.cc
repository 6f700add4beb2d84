// raw-acp: the ACP agent bridge. Serves Raw sessions to an ACP client over
// stdio (one JSON-RPC message per line; nothing else on stdout, logs on
// stderr). Exits 0 when the client closes its end, once the turns this
// bridge started are interrupted and its leases released.
//
// With --listen 127.0.0.1:PORT it serves ACP over a local WebSocket
// instead (clients/acp/ws_listener.h) and prints the URL with its token on
// stderr; it runs until SIGINT, SIGTERM or SIGHUP.
//
// In both modes SIGINT, SIGTERM and SIGHUP end the bridge as its clients
// going away would: the turns it started are interrupted (their prompts
// answer `cancelled`) and its leases released before it exits 0. A second
// signal exits at once, and so does any signal once only the last output
// is left to write. That output gets kStdoutDrainWait: a client that no
// longer reads stdout does not keep raw-acp alive.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/time/time.h"
#include "clients/acp/acp_args.h"
#include "clients/acp/acp_server.h"
#include "clients/acp/event_loop.h"
#include "clients/acp/signal_waiter.h"
#include "clients/acp/stdio_transport.h"
#include "clients/acp/ws_listener.h"
#include "clients/lib/call_worker.h"
#include "clients/lib/poll_engine.h"
#include "common/mutex_mode.h"
#include "common/version.h"

namespace {

using namespace raw::acp;

// How long the last output may take to be written once the bridge has let
// go of everything (as long as detached calls to rawd get, below).
constexpr absl::Duration kStdoutDrainWait = absl::Seconds(2);

// The signal handler's side of the end: once the event loop has returned,
// a signal (a second one, or one after the end of stdin) exits at once.
void ExitAtOnce(int code) {
  std::cerr << "raw-acp: exiting at once (stop signal)" << std::endl;
  _exit(code);
}

// What a stop signal does: the first shuts the server down (every
// connection let go as if its client had left) and then quits the loop;
// another one quits at once.
void OnStopSignal(int count, EventLoop& loop, AcpServer& server) {
  if (count > 1) {
    loop.Quit();
    return;
  }
  loop.Post([&loop, &server] { server.Shutdown([&loop] { loop.Quit(); }); });
}

// --listen HOST:PORT: serves until a stop signal.
int Listen(const AcpArgs& args, const AgentOptions& options, EventLoop& loop, sigset_t signals) {
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
  AcpServer server(loop, options, [] {});
  auto listener = ServeAcpWebSocket(listen, server.factory());
  if (!listener.ok()) {
    std::cerr << "raw-acp: " << listener.status().message() << "\n";
    return 1;
  }
  if (!(*listener)->notice().empty()) {
    std::cerr << "raw-acp: " << (*listener)->notice() << "; connect to the address below\n";
  }
  std::cerr << "raw-acp: listening on " << (*listener)->url() << "?token=" << (*listener)->token()
            << std::endl;
  std::atomic<bool> ended{false};
  SignalWaiter waiter(signals, [&loop, &server, &ended](int count) {
    if (ended.load()) ExitAtOnce(0);
    OnStopSignal(count, loop, server);
  });
  loop.Run();
  ended.store(true);
  (*listener)->Stop();
  return 0;
}

// stdio: serves until the client closes stdin or a stop signal.
int ServeStdio(const AcpArgs& args, const AgentOptions& options, EventLoop& loop,
               sigset_t signals) {
  AcpServer server(loop, options, [&loop] { loop.Quit(); });
  auto transport = std::make_shared<StdioTransport>(
      STDIN_FILENO, STDOUT_FILENO,
      args.max_message_bytes > 0 ? args.max_message_bytes : kDefaultMaxMessageBytes);
  transport->Start(server.factory()(transport));
  // Kept until the end: the signals stay blocked in every thread, so once
  // the waiter is gone nothing would take them.
  std::atomic<bool> ended{false};
  SignalWaiter waiter(signals, [&loop, &server, &ended](int count) {
    if (ended.load()) ExitAtOnce(0);
    OnStopSignal(count, loop, server);
  });
  loop.Run();
  ended.store(true);
  if (transport->overflowed()) {
    // The client stopped reading (the transport said so on stderr); the
    // connection has let go of its turns and leases. The writer thread may
    // be blocked for good in a write nobody reads: not joined.
    std::cerr << "raw-acp: exiting: the client stopped reading its output\n";
    std::cerr.flush();
    _exit(1);
  }
  transport->Close();
  if (!transport->JoinWithin(kStdoutDrainWait)) {
    // The client does not read what is left (its turns and leases are let
    // go already): the writer may be blocked for good; not joined.
    std::cerr << "raw-acp: exiting: the client did not read the rest of its output within "
              << absl::FormatDuration(kStdoutDrainWait) << "; dropped" << std::endl;
    _exit(0);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  raw::client::UsePollEngine();
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
  options.connect.lease_connection = true;  // see poll_engine.h

  // Before any thread starts, so that only the waiter takes them.
  const sigset_t signals = BlockStopSignals();
  int code = 0;
  {
    EventLoop loop;
    code = args->listen.empty() ? ServeStdio(*args, options, loop, signals)
                                : Listen(*args, options, loop, signals);
  }
  // A call to rawd that was in flight when its session or connection went
  // away was cancelled; its worker thread ends on its own. One stuck
  // elsewhere (connecting to a daemon that does not answer) is not waited
  // for beyond this: exiting must not depend on rawd.
  if (!raw::client::CallWorker::WaitForDetached(absl::Seconds(2))) {
    std::cerr.flush();
    _exit(code);
  }
  return code;
}
