// Which route of a LocalServer serves a request: the route whose exact path
// is the request's, else the one with the longest prefix of it (and, for
// HTTP, the request's method). Pure; thread-safe.
#pragma once

#include "clients/web/http_message.h"
#include "clients/web/local_server.h"

namespace raw::web {

// nullptr when no route serves the request.
const HttpRoute* FindHttpRoute(const Routes& routes, const Request& request);
const WebSocketRoute* FindWebSocketRoute(const Routes& routes, const Request& request);

}  // namespace raw::web
