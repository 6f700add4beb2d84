// Fetching one Source page for the excerpt check, over the daemon's
// HttpClient (libcurl), bounded and conservative:
// - http and https only; no credentials are sent (URLs carrying them are
//   refused before this point), no cookies, no proxy for public-only
//   requests;
// - only public addresses are connected to, checked on the address actually
//   connected to, unless allow_private_addresses is set;
// - redirects are followed by hand, at most max_redirects, and only to the
//   same host and port as Source identity compares them (UrlIdentity: case,
//   a trailing dot and an explicit default port do not matter; the scheme
//   may change from http to https); a redirect to another host or port is
//   refused, and so is any redirect from https to http (CheckRedirect);
// - a URL `refuse` names a reason for (the agent's deny url rules) is never
//   requested, the first one nor one a redirect leads to: kRefused;
// - the whole fetch, redirects included, ends by `deadline_ms` from the
//   start; cancelling `cancel` ends it promptly;
// - a body longer than max_bytes is cut there and reported truncated, as is
//   a transfer the server cut off: an incomplete body cannot disprove an
//   excerpt.
// Thread-safe if the client is.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/cancel_token.h"
#include "daemon/http/http_client.h"
#include "daemon/raven/web/verifier_settings.h"

namespace raw::raven::web {

enum class FetchResult {
  kOk,           // a complete response (any HTTP status)
  kUnreachable,  // no response: connection failure, deadline
  kCrossHost,    // redirected to another host (not followed)
  kRefused,      // a non-public address, a redirect to another scheme or from https to http
  kTruncated,    // the body was cut off
  kCancelled,
};

struct FetchedPage {
  FetchResult result = FetchResult::kUnreachable;
  int status = 0;
  std::string url;  // the URL that answered (after same-host redirects), canonical
  std::string content_type;
  std::string body;
  std::string detail;  // why, unless kOk
};

// Why a fetch that began at `start` does not follow a redirect from `from`
// (the URL that answered) to `to` (its Location, resolved against `from`).
struct RedirectRefusal {
  FetchResult result;  // kRefused or kCrossHost
  std::string detail;  // names the URLs and the reason
};

// The redirect rules of FetchPage, on their own: a redirect is refused when
// `to` is not an http(s) URL (kRefused), when it goes from https to http on
// any host, the same one included (kRefused: a downgrade to a connection
// anyone on the path can change; the detail names both URLs), or when it
// leaves the host and port of `start` as UrlIdentity compares them
// (kCrossHost). nullopt = it may be followed (the agent's rules and
// max_redirects are checked apart). Pure.
std::optional<RedirectRefusal> CheckRedirect(const std::string& start, const std::string& from,
                                             const std::string& to);

// Why `url` must not be requested; nullopt = it may be.
using UrlRefusal = std::function<std::optional<std::string>(const std::string& url)>;

FetchedPage FetchPage(http::HttpClient& client, const std::string& url,
                      const VerifierSettings& settings, int64_t deadline_ms,
                      const CancelToken& cancel, const UrlRefusal& refuse = nullptr);

}  // namespace raw::raven::web
