// Request preparation for CurlHttpClient: checks an HttpRequest and turns it
// into what libcurl needs (the target for messages and proxy decisions, the
// header list) before any transfer starts, so bad input fails with a clear
// InvalidArgument instead of reaching the wire.
//
// Pure functions; thread-safe. Callers own the returned header list.
#pragma once

#include <curl/curl.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/http/http_client.h"

namespace raw::http {

struct CurlSlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using CurlHeaderList = std::unique_ptr<curl_slist, CurlSlistDeleter>;

// Where a request goes. Messages name host_port, never the full URL: query
// strings may carry credentials.
struct RequestTarget {
  std::string host;       // as in the URL ("[::1]" for IPv6)
  std::string host_port;  // "host:port", with the scheme's default port
  bool loopback = false;  // localhost, 127.0.0.0/8 or [::1]
};

// Accepts absolute http and https URLs only.
absl::StatusOr<RequestTarget> ParseRequestTarget(const std::string& url);

// The method is an upper-case token; GET and HEAD carry no body.
absl::Status ValidateMethod(const HttpRequest& request);

// True when the request sends a body (possibly empty, as Content-Length: 0).
bool SendsBody(const HttpRequest& request);

// The request's headers as libcurl lines. Rejects names that are not HTTP
// tokens and values with line breaks. Also suppresses libcurl's own
// "Expect: 100-continue" and its form-encoded Content-Type default.
absl::StatusOr<CurlHeaderList> BuildCurlHeaderList(const HttpRequest& request);

}  // namespace raw::http
