// The dashboard's routes (docs/dashboard.md): the public static files and
// POST /api/login, the JSON API (each route one daemon call, its request
// and response in the protobuf JSON mapping) and the per-tab WebSocket
// (live_session.h). Every handler runs on LocalServer's handler pool; the
// daemon calls block only that pool thread.
#pragma once

#include <memory>

#include "clients/dashboard/gateway.h"
#include "clients/web/local_server.h"

namespace raw::dashboard {

web::Routes DashboardRoutes(std::shared_ptr<const Gateway> gateway);

}  // namespace raw::dashboard
