// WebSearchClient: one query against the configured web search backend
// (config::RavenSearchSettings), over the daemon's HttpClient. The one
// place that speaks a search API; builtin/web_search and Raven's
// discovery (daemon/raven/web/web_source_searcher.h) both call it.
//
//   searxng  GET {url}/search?q=<query>&format=json
//            results[].{title, url, content, publishedDate}
//   brave    GET {url}?q=<query>&count=<n>, header X-Subscription-Token
//            web.results[].{title, url, description, age}
//
// Every query ends by settings.timeout_ms (connect, send and read), or
// promptly once `cancel` is cancelled. Only public addresses are connected
// to unless allow_private_addresses (http::HttpRequest::
// public_addresses_only). Errors carry the backend's own words (an HTTP
// error's message, a JSON parse error) and never the API key: it is sent
// only as a header and removed from any text quoted back.
//
// Thread-safe if the HttpClient is: Search may run on several threads at
// once.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/cancel_token.h"
#include "daemon/config/raven_settings.h"
#include "daemon/http/http_client.h"

namespace raw::search {

struct SearchResult {
  std::string title;
  std::string url;
  std::string snippet;
  std::string date;  // as the backend labels it ("2024-05-01", "3 days ago"); "" = none

  bool operator==(const SearchResult&) const = default;
};

// The backend's name as config.json spells it ("searxng", "brave").
std::string BackendName(config::SearchBackendKind backend);

// Pure parsers of a 2xx body: at most `max_results` results in the
// backend's order; entries without an http(s) url are skipped. A body that
// is not the expected JSON is kInvalidArgument saying what was wrong.
absl::StatusOr<std::vector<SearchResult>> ParseSearxngResults(std::string_view body,
                                                              size_t max_results);
absl::StatusOr<std::vector<SearchResult>> ParseBraveResults(std::string_view body,
                                                            size_t max_results);

// What an HTTP error body says: the message field of a JSON error
// (SearXNG's "error", Brave's error.detail, a generic "message"), else the
// start of the text; whitespace collapsed, at most 300 characters.
std::string ErrorBodyMessage(std::string_view body);

// RFC 3986 percent-encoding of a query parameter value.
std::string EncodeQueryValue(std::string_view value);

// True when `url`'s host is written as an address that is not public
// (http://127.0.0.1:8888, http://[::1]/, http://10.0.0.5) or is
// "localhost"; false for any other host name and for what does not parse.
bool UrlNamesANonPublicAddress(std::string_view url);

class WebSearchClient {
 public:
  // `api_key`: the brave subscription token (resolved from
  // settings.api_key_variable by the caller); "" for searxng.
  WebSearchClient(http::HttpClient& http, config::RavenSearchSettings settings,
                  std::string api_key, bool allow_private_addresses);

  // kFailedPrecondition when no backend is configured; kDeadlineExceeded,
  // kUnavailable, kPermissionDenied (a non-public address), kCancelled, or
  // kInternal for an HTTP error or a malformed answer, each message naming
  // the backend.
  absl::StatusOr<std::vector<SearchResult>> Search(const std::string& query, size_t max_results,
                                                   const CancelToken& cancel) const;

  const config::RavenSearchSettings& settings() const { return settings_; }

 private:
  std::string Scrub(std::string text) const;

  http::HttpClient& http_;
  config::RavenSearchSettings settings_;
  std::string api_key_;
  bool allow_private_addresses_;
};

}  // namespace raw::search
