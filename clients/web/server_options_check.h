// CheckServerOptions: LocalServer::Start's check of its options and routes
// before it binds anything. Pure apart from drawing a fresh token.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "clients/web/local_server.h"

namespace raw::web {

// Refuses a non-loopback address, fewer than two connections, limits and
// timeouts that are not positive, routes without a path starting with '/'
// (or a method) and a handler or factory, an invalid token or session
// secret, and a session secret equal to the token; caps
// max_unadmitted_connections below max_connections. Returns the access
// token: `options.token`, or a fresh one when it is empty.
absl::StatusOr<std::string> CheckServerOptions(LocalServerOptions& options, const Routes& routes);

}  // namespace raw::web
