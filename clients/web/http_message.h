// The plain HTTP request and response types of the local server
// (local_server.h). No Boost types: handlers and tests compile without Beast.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace raw::web {

struct Request {
  std::string method;  // "GET", "POST", ... as sent
  std::string target;  // path and query as sent ("/api/x?token=...")
  std::string path;    // target up to '?'
  // Query parameters, percent-decoded; the first of repeated names wins.
  std::map<std::string, std::string> query;
  // Header fields in arrival order; names lower-cased.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // The port the server that received the request listens on.
  uint16_t local_port = 0;

  // The first field named `name` (lower case), if any.
  std::optional<std::string_view> Header(std::string_view name) const;
  // How many fields are named `name` (lower case).
  size_t HeaderCount(std::string_view name) const;
  // Every value of cookie `name` in the Cookie fields, in the order sent. A
  // browser sends every cookie whose domain and path match, so one name can
  // come more than once (another server on the same host may set its own
  // with a longer path, which is sent first); a check must look at all.
  std::vector<std::string> Cookies(std::string_view name) const;
  // The name of every cookie in the Cookie fields, in the order sent, each
  // once.
  std::vector<std::string> CookieNames() const;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // Extra fields (for example Set-Cookie). The server adds the security
  // fields itself (local_server.h).
  std::vector<std::pair<std::string, std::string>> headers;
  // False only for responses a browser may keep (a static page); API
  // responses get `Cache-Control: no-store`.
  bool no_store = true;
};

// Splits `target` into path and percent-decoded query parameters.
void ParseTarget(std::string_view target, Request* request);

// A plain-text answer: `text` and a newline.
Response TextResponse(int status, std::string text);

}  // namespace raw::web
