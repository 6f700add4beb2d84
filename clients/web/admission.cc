#include "clients/web/admission.h"

#include <algorithm>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "clients/web/access_token.h"

namespace raw::web {
namespace {

bool IsStateChanging(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

std::vector<std::string> OwnAuthorities(const AdmissionPolicy& policy) {
  std::vector<std::string> own;
  for (const std::string& host : policy.own_hosts)
    own.push_back(absl::StrCat(host, ":", policy.port));
  return own;
}

}  // namespace

std::optional<Rejection> CheckHost(const Request& request, const AdmissionPolicy& policy) {
  if (request.HeaderCount("host") != 1) {
    return Rejection{421, "exactly one Host field is required"};
  }
  std::string host = absl::AsciiStrToLower(std::string(*request.Header("host")));
  for (const std::string& own : OwnAuthorities(policy)) {
    if (host == own) return std::nullopt;
  }
  return Rejection{421, "Host is not this local server"};
}

std::optional<Rejection> CheckOrigin(const Request& request, const AdmissionPolicy& policy,
                                     bool websocket_upgrade) {
  if (!websocket_upgrade && !IsStateChanging(request.method)) return std::nullopt;
  size_t count = request.HeaderCount("origin");
  if (count == 0) return std::nullopt;
  if (count > 1) return Rejection{403, "more than one Origin field"};
  std::string origin(*request.Header("origin"));
  std::string lower = absl::AsciiStrToLower(origin);
  for (const std::string& own : OwnAuthorities(policy)) {
    if (lower == absl::StrCat("http://", own)) return std::nullopt;
  }
  if (std::find(policy.allowed_origins.begin(), policy.allowed_origins.end(), origin) !=
      policy.allowed_origins.end()) {
    return std::nullopt;
  }
  return Rejection{403, "Origin is not allowed"};
}

std::optional<Rejection> CheckToken(const Request& request, const AdmissionPolicy& policy) {
  // Every candidate is compared (no early return), so timing does not tell
  // which place held a near miss.
  bool ok = false;
  for (const auto& [name, value] : request.headers) {
    if (name != "authorization") continue;
    std::string_view v = value;
    if (v.size() > 7 && absl::EqualsIgnoreCase(absl::string_view(v.data(), 7), "bearer ")) {
      ok |= TokenEquals(v.substr(7), policy.token);
    }
  }
  if (auto it = request.query.find("token"); policy.query_token && it != request.query.end()) {
    ok |= TokenEquals(it->second, policy.token);
  }
  if (!policy.session_cookie.empty() && !policy.session_secret.empty()) {
    // Every cookie of the name counts: a page on another port of this host
    // can set one of the same name (cookies ignore ports) that the browser
    // sends first, and must not lock the real one out.
    for (const std::string& cookie : request.Cookies(policy.session_cookie)) {
      ok |= TokenEquals(cookie, policy.session_secret);
    }
  }
  if (ok) return std::nullopt;
  return Rejection{401, "a valid access token is required"};
}

std::string CookieHosts(const std::string& address, const std::vector<std::string>& own_hosts) {
  std::string hosts = address == "::1" ? "[::1]" : address;
  if (std::find(own_hosts.begin(), own_hosts.end(), "localhost") != own_hosts.end()) {
    absl::StrAppend(&hosts, " and localhost");
  }
  return hosts;
}

}  // namespace raw::web
