// AcpServer: makes the ACP connection for each transport (raw-acp's stdio,
// or each accepted WebSocket) and keeps it until its client went away and
// it let go of its sessions. The transport's peer only forwards: each
// message and the end of the connection become tasks on the event loop,
// where the connection lives. A message's task keeps its input claim
// (input_budget.h) until it has run, so the transport's reader waits
// while too much input is still to be handled.
//
// Threading: factory() may be called from any thread; everything else
// runs on the loop's thread.
#pragma once

#include <functional>
#include <memory>
#include <set>

#include "clients/acp/agent_connection.h"
#include "clients/acp/event_loop.h"
#include "clients/acp/transport.h"

namespace raw::acp {

class AcpServer {
 public:
  // `on_closed` runs (on the loop) each time a connection has finished.
  AcpServer(EventLoop& loop, AgentOptions options, std::function<void()> on_closed);
  ~AcpServer();

  PeerFactory factory();

  // Ends every connection as if its client had gone away (the turns they
  // started interrupted, their prompts answered `cancelled`, the leases
  // released), then calls `done` once on the loop. Connections accepted
  // from now on are dropped. Runs on the loop's thread.
  void Shutdown(std::function<void()> done);

  // Shared with the peers (opaque outside acp_server.cc).
  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace raw::acp
