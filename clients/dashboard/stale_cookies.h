// The session cookies of gateways that have gone. Each run of the gateway
// has a port of its own and so a cookie of its own, raw_dashboard_PORT, on
// 127.0.0.1 (cookies ignore ports); left alone, one more would pile up with
// every run, travel with every request to every server on the host, and at
// the browser's per-host limit push out other local servers' cookies. So
// POST /api/login drops those of gateways no longer running.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clients/web/http_message.h"

namespace raw::dashboard {

// True when a gateway may be running on `port`: a socket of this user
// listens on 127.0.0.1:PORT, or the kernel cannot say (its tabs are never
// signed out on a guess).
bool GatewayMayRunOn(uint16_t port);

// The Set-Cookie values that delete every session cookie `request` carries
// (`prefix`_PORT, PORT written as a gateway writes it) but `own_port`'s,
// whose gateway is gone (`may_run(PORT)` false); each name once.
std::vector<std::string> StaleSessionCookieDeletions(
    const web::Request& request, const std::string& prefix, uint16_t own_port,
    const std::function<bool(uint16_t)>& may_run = GatewayMayRunOn);

}  // namespace raw::dashboard
