// UsePollEngine: has gRPC wait for each call's messages on the thread that
// reads them, for a client that reads a session's events and holds its
// write lease at once (raw-acp, raw-dashboard).
//
// Such a client has two threads blocked in gRPC reads: the event stream's
// and the lease stream's. gRPC's default engine on Linux (epoll1) lets one
// thread at a time wait on all of the process's connections, whichever
// call it reads, and hands the role on each time that thread returns: a
// streamed event then often wakes the lease thread first, which reads it
// off the connection and wakes the event stream's thread in turn (two
// wake-ups, and the lease thread's CPU, for every delta). The `poll`
// engine has each thread wait on its own call's connections; with the
// lease on a connection of its own (ConnectOptions::lease_connection), an
// event wakes only the thread that reads it. docs/performance.md ("ACP
// bridge") has the figures.
//
// Call first thing in main, before anything of gRPC exists: the engine is
// chosen once, when gRPC starts. A GRPC_POLL_STRATEGY already set in the
// environment is kept.
#pragma once

namespace raw::client {

void UsePollEngine();

}  // namespace raw::client
