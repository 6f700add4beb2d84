#include "clients/dashboard/api_routes.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "clients/dashboard/api_paths.h"
#include "clients/dashboard/error_mapping.h"
#include "clients/dashboard/live_session.h"
#include "clients/dashboard/preferences_file.h"
#include "clients/dashboard/proto_json.h"
#include "clients/dashboard/stale_cookies.h"
#include "clients/dashboard/static_files.h"
#include "clients/lib/write_lease.h"
#include "clients/web/access_token.h"

namespace raw::dashboard {
namespace {

using GatewayPtr = std::shared_ptr<const Gateway>;

web::Response JsonResponse(std::string body, int status = 200) {
  web::Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

web::Response NoContent() {
  web::Response response;
  response.status = 204;
  response.content_type.clear();
  return response;
}

template <typename Message>
web::Response Answer(const absl::StatusOr<Message>& result) {
  if (!result.ok()) return ErrorResponse(result.status());
  return JsonResponse(ToJsonText(*result));
}

web::Response NotFound() { return ErrorResponse(absl::NotFoundError("no such API route")); }

// The Bearer token of POST /api/login (the scheme in any case), compared in
// constant time; answered with the session cookie of this gateway's port,
// and with the deletion of the cookies of gateways gone (stale_cookies.h).
// The --open page has served its purpose then, and is removed.
web::Response Login(const Gateway& gateway, const web::Request& request) {
  std::optional<std::string_view> auth = request.Header("authorization");
  constexpr size_t kBearer = 7;  // "Bearer "
  if (!auth || auth->size() <= kBearer ||
      !absl::EqualsIgnoreCase(absl::string_view(auth->data(), kBearer), "bearer ") ||
      !web::TokenEquals(auth->substr(kBearer), gateway.token)) {
    web::Response response = ErrorResponse(absl::UnauthenticatedError("wrong or missing token"));
    response.status = 401;
    return response;
  }
  if (gateway.open_page) gateway.open_page->Remove();
  web::Response response = NoContent();
  response.headers.emplace_back(
      "Set-Cookie", web::SessionCookie(web::SessionCookieName(kSessionCookie, request.local_port),
                                       gateway.session_secret));
  for (std::string& deletion :
       StaleSessionCookieDeletions(request, kSessionCookie, request.local_port)) {
    response.headers.emplace_back("Set-Cookie", std::move(deletion));
  }
  return response;
}

web::Response Info(const Gateway& gateway, const web::Request& request) {
  absl::StatusOr<v1::GetDaemonInfoResponse> info = gateway.client->GetDaemonInfo({});
  if (!info.ok()) return ErrorResponse(info.status());
  return JsonResponse(DumpJson(
      Json{{"daemon", ToJsonValue(*info)},
           {"session_cookie", web::SessionCookieName(kSessionCookie, request.local_port)}}));
}

web::Response ListSessions(const Gateway& gateway, const web::Request& request) {
  v1::ListSessionsRequest list;
  absl::StatusOr<int64_t> page_size = QueryInt(request.query, "page_size", 0);
  if (!page_size.ok()) return ErrorResponse(page_size.status());
  list.set_page_size(static_cast<int32_t>(std::min<int64_t>(*page_size, 1 << 20)));
  if (auto it = request.query.find("page_token"); it != request.query.end()) {
    list.set_page_token(it->second);
  }
  if (auto it = request.query.find("query"); it != request.query.end()) list.set_query(it->second);
  return Answer(gateway.client->ListSessions(list));
}

web::Response CreateSession(const Gateway& gateway, const web::Request& request) {
  // "directory" is accepted as the name of CreateSessionRequest.cwd.
  absl::StatusOr<Json> body = ParseJson(request.body.empty() ? "{}" : request.body);
  if (!body.ok() || !body->is_object()) {
    return ErrorResponse(absl::InvalidArgumentError("the request body must be a JSON object"));
  }
  if (body->contains("directory") && !body->contains("cwd")) {
    (*body)["cwd"] = (*body)["directory"];
    body->erase("directory");
  }
  v1::CreateSessionRequest create;
  if (absl::Status s = FromJsonText(DumpJson(*body), &create); !s.ok()) return ErrorResponse(s);
  return Answer(gateway.client->CreateSession(create));
}

web::Response GetSessionPart(const Gateway& gateway, const web::Request& request) {
  std::optional<SessionPath> path = ParseSessionPath(request.path);
  if (!path) return NotFound();
  if (path->rest.empty()) {
    // without_context=true: the row only, for a first screen that must not
    // wait for a long session's model context to load.
    absl::StatusOr<bool> without_context = QueryBool(request.query, "without_context", false);
    if (!without_context.ok()) return ErrorResponse(without_context.status());
    v1::GetSessionRequest get;
    get.set_session_id(path->id);
    get.set_without_context(*without_context);
    return Answer(gateway.client->GetSession(get));
  }
  if (path->rest == "stats") {
    v1::GetStatsRequest stats;
    stats.set_session_id(path->id);
    return Answer(gateway.client->GetStats(stats));
  }
  if (path->rest == "history") {
    // Newest first; next_cursor continues upward (older items).
    v1::GetHistoryRequest history;
    history.set_session_id(path->id);
    history.set_direction(v1::HISTORY_DIRECTION_BACKWARD);
    absl::StatusOr<int64_t> limit = QueryInt(request.query, "limit", 0);
    if (!limit.ok()) return ErrorResponse(limit.status());
    history.set_limit(static_cast<int32_t>(std::min<int64_t>(*limit, 1 << 20)));
    if (auto it = request.query.find("cursor"); it != request.query.end()) {
      history.set_cursor(it->second);
    }
    return Answer(gateway.client->GetHistory(history));
  }
  return NotFound();  // "live" is the WebSocket
}

// Holds the session's lease for the one call, as any writer must.
web::Response DeleteSession(const Gateway& gateway, const web::Request& request) {
  std::optional<SessionPath> path = ParseSessionPath(request.path);
  if (!path || !path->rest.empty()) return NotFound();
  client::WriteLease lease(*gateway.client, gateway.LeaseRequest(path->id, gateway.client_name));
  absl::StatusOr<std::string> lease_id = lease.WaitGranted();
  if (!lease_id.ok()) return ErrorResponse(lease_id.status());
  v1::DeleteSessionRequest remove;
  remove.set_session_id(path->id);
  remove.set_lease_id(*lease_id);
  absl::StatusOr<v1::DeleteSessionResponse> removed = gateway.client->DeleteSession(remove);
  if (!removed.ok()) return ErrorResponse(removed.status());
  return NoContent();
}

web::Response GetPlugin(const Gateway& gateway, const web::Request& request) {
  std::optional<std::string> ns = ParsePluginPath(request.path);
  if (!ns) return NotFound();
  v1::GetPluginSettingsRequest get;
  get.set_namespace_(*ns);
  return Answer(gateway.client->GetPluginSettings(get));
}

web::Response PutPlugin(const Gateway& gateway, const web::Request& request) {
  std::optional<std::string> ns = ParsePluginPath(request.path);
  if (!ns) return NotFound();
  v1::SetPluginSettingsRequest set;
  if (absl::Status s = FromJsonText(request.body, &set); !s.ok()) return ErrorResponse(s);
  set.set_namespace_(*ns);  // the path names it
  return Answer(gateway.client->SetPluginSettings(set));
}

// The stored preferences, {} when none are kept. A file that cannot be read
// or holds something else is reported on stderr and answered as {}: the
// page then keeps its own, and its next change replaces the file.
web::Response GetPreferences(const Gateway& gateway, const web::Request&) {
  if (gateway.preferences_path.empty()) return JsonResponse("{}");
  absl::StatusOr<Json> stored = ReadPreferences(gateway.preferences_path);
  if (!stored.ok()) {
    // One write, so that lines from other handler threads do not interleave.
    std::cerr << ("raw-dashboard: ignoring the stored preferences: " +
                  std::string(stored.status().message()) + "\n");
    return JsonResponse("{}");
  }
  return JsonResponse(DumpJson(*stored));
}

// Replaces the stored preferences with the body, once it is valid
// (ValidatePreferences); answers with what was stored.
web::Response PutPreferences(const Gateway& gateway, const web::Request& request) {
  if (request.body.size() > kMaxPreferencesBytes) {
    web::Response response = ErrorResponse(absl::InvalidArgumentError(
        absl::StrCat("the preferences are larger than ", kMaxPreferencesBytes, " bytes")));
    response.status = 413;
    return response;
  }
  absl::StatusOr<Json> body = ParseJson(request.body);
  if (!body.ok()) {
    return ErrorResponse(absl::InvalidArgumentError(
        absl::StrCat("the preferences are not JSON: ", body.status().message())));
  }
  if (absl::Status s = ValidatePreferences(*body); !s.ok()) return ErrorResponse(s);
  if (gateway.preferences_path.empty()) {
    return ErrorResponse(absl::FailedPreconditionError(
        "no state directory to keep preferences in (set HOME or XDG_STATE_HOME)"));
  }
  if (absl::Status s = WritePreferences(gateway.preferences_path, *body); !s.ok()) {
    return ErrorResponse(absl::InternalError(s.message()));
  }
  return JsonResponse(DumpJson(*body));
}

// A route whose handler answers from `fn(gateway, request)`.
template <typename Fn>
web::HttpRoute Route(std::string method, std::string path, bool prefix, GatewayPtr gateway,
                     Fn fn) {
  web::HttpRoute route;
  route.method = std::move(method);
  route.path = std::move(path);
  route.prefix = prefix;
  route.handler = [gateway = std::move(gateway), fn](const web::Request& request,
                                                     web::Respond respond) {
    respond(fn(*gateway, request));
  };
  return route;
}

}  // namespace

web::Routes DashboardRoutes(GatewayPtr gateway) {
  web::Routes routes;
  auto files = std::make_shared<StaticFiles>(gateway->web_root);
  auto serve = [files](const Gateway&, const web::Request& request) { return files->Serve(request.path); };
  for (const char* path : {"/", "/index.html"}) {
    web::HttpRoute route = Route("GET", path, false, gateway, serve);
    route.public_route = true;
    routes.http.push_back(std::move(route));
  }
  web::HttpRoute assets = Route("GET", "/assets/", true, gateway, serve);
  assets.public_route = true;
  routes.http.push_back(std::move(assets));
  web::HttpRoute login = Route("POST", "/api/login", false, gateway,
                               [](const Gateway& g, const web::Request& r) { return Login(g, r); });
  login.public_route = true;  // it checks the token itself
  routes.http.push_back(std::move(login));

  routes.http.push_back(Route("GET", "/api/info", false, gateway, Info));
  routes.http.push_back(Route("GET", "/api/sessions", false, gateway, ListSessions));
  routes.http.push_back(Route("POST", "/api/sessions", false, gateway, CreateSession));
  routes.http.push_back(Route("GET", "/api/sessions/", true, gateway, GetSessionPart));
  routes.http.push_back(Route("DELETE", "/api/sessions/", true, gateway, DeleteSession));
  routes.http.push_back(Route("GET", "/api/agents", false, gateway,
                              [](const Gateway& g, const web::Request&) {
                                return Answer(g.client->ListAgents({}));
                              }));
  routes.http.push_back(Route("GET", "/api/models", false, gateway,
                              [](const Gateway& g, const web::Request&) {
                                return Answer(g.client->ListModels({}));
                              }));
  routes.http.push_back(Route("GET", "/api/mcp", false, gateway,
                              [](const Gateway& g, const web::Request&) {
                                return Answer(g.client->ListMcpServers({}));
                              }));
  routes.http.push_back(Route("GET", "/api/packages", false, gateway,
                              [](const Gateway& g, const web::Request&) {
                                return Answer(g.client->ListPackages({}));
                              }));
  routes.http.push_back(Route("GET", "/api/config/check", false, gateway,
                              [](const Gateway& g, const web::Request&) {
                                return Answer(g.client->CheckConfig({}));
                              }));
  routes.http.push_back(Route("GET", "/api/plugins/", true, gateway, GetPlugin));
  routes.http.push_back(Route("PUT", "/api/plugins/", true, gateway, PutPlugin));
  routes.http.push_back(Route("GET", "/api/preferences", false, gateway, GetPreferences));
  routes.http.push_back(Route("PUT", "/api/preferences", false, gateway, PutPreferences));

  // Not public: only a socket that showed the token is opened, and only it
  // may send the large messages a prompt with images needs (main.cc).
  web::WebSocketRoute live;
  live.path = "/api/sessions/";
  live.prefix = true;
  live.factory = [gateway](const web::Request& upgrade) -> std::unique_ptr<web::WebSocketHandler> {
    std::optional<SessionPath> path = ParseSessionPath(upgrade.path);
    if (!path || path->rest != "live") return nullptr;
    absl::StatusOr<int64_t> after_seq = QueryInt(upgrade.query, "after_seq", 0);
    if (!after_seq.ok()) return nullptr;
    return MakeLiveSession(gateway, path->id, static_cast<uint64_t>(*after_seq));
  };
  routes.websocket.push_back(std::move(live));
  return routes;
}

}  // namespace raw::dashboard
