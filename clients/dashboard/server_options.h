// The LocalServer settings of raw-dashboard (main.cc): the page's security
// policy, the session cookie and the limits of a tab's WebSocket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "clients/web/local_server.h"

namespace raw::dashboard {

inline constexpr char kContentSecurityPolicy[] =
    "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'";

// The largest message a tab may send on its WebSocket: a prompt with 10 MiB
// of images (rawd's limit), which base64 makes 13.4 MiB, and its text. Only
// a socket that showed the token or the session cookie gets that far (the
// live route is not public); HTTP bodies keep LocalServer's 1 MiB.
inline constexpr size_t kMaxWebSocketMessageBytes = 16 * 1024 * 1024;

// The most output a tab's WebSocket keeps waiting for the tab to read:
// four times the largest message, so the largest frames (a prompt's
// images come back in its event) fit with room to spare. A tab that stops
// reading would otherwise make the gateway keep every frame of its session
// in memory; past this its socket is dropped, which ends its lease as a
// closed tab does, and the page says the live connection closed (a reload
// opens the conversation again from its history).
inline constexpr size_t kMaxWebSocketQueuedBytes = 4 * kMaxWebSocketMessageBytes;

// The options raw-dashboard starts its server with: `port` (0: a free one),
// `token`, and `session_secret` for the session cookie (gateway.h).
web::LocalServerOptions DashboardServerOptions(uint16_t port, const std::string& token,
                                               const std::string& session_secret);

}  // namespace raw::dashboard
