#include "clients/web/route_match.h"

#include <vector>

namespace raw::web {
namespace {

template <typename Route, typename Serves>
const Route* FindRoute(const std::vector<Route>& routes, const std::string& path, Serves serves) {
  const Route* best = nullptr;
  for (const Route& route : routes) {
    if (!serves(route)) continue;
    if (!route.prefix && route.path == path) return &route;
    if (route.prefix && path.compare(0, route.path.size(), route.path) == 0 &&
        (best == nullptr || route.path.size() > best->path.size())) {
      best = &route;
    }
  }
  return best;
}

}  // namespace

const HttpRoute* FindHttpRoute(const Routes& routes, const Request& request) {
  return FindRoute(routes.http, request.path,
                   [&](const HttpRoute& route) { return route.method == request.method; });
}

const WebSocketRoute* FindWebSocketRoute(const Routes& routes, const Request& request) {
  return FindRoute(routes.websocket, request.path, [](const WebSocketRoute&) { return true; });
}

}  // namespace raw::web
