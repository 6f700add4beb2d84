// One browser tab's WebSocket on one session (GET /api/sessions/ID/live,
// docs/dashboard.md): the session's events (stored ones after `after_seq`,
// then live), the tab's write lease, and the tab's commands, each answered
// by one reply frame.
//
// The events come from the session's feed (session_feed.h), which the tabs
// on a session share; the lease and the commands are the tab's own.
//
// Threads: the feed's streams run on threads of their own, the lease stream
// on another (client::WriteLease); commands run on LocalServer's handler
// pool (one at a time per socket), where their daemon calls block only
// that thread. The lease ends when the socket closes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "clients/dashboard/gateway.h"
#include "clients/web/local_server.h"

namespace raw::dashboard {

std::unique_ptr<web::WebSocketHandler> MakeLiveSession(std::shared_ptr<const Gateway> gateway,
                                                       std::string session_id, uint64_t after_seq);

}  // namespace raw::dashboard
