// BaseUrl: the rules for models.<name>.base_url, the API root a provider
// adapter appends its path to ("/chat/completions"). Pure functions of the
// text; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace raw::config {

struct BaseUrlParts {
  std::string scheme;       // "http" or "https", lowercased
  std::string host;         // lowercased; an IPv6 literal without brackets
  std::optional<int> port;  // when written in the URL
  std::string path;         // "" or starting with '/', trailing '/' removed
};

// What messages about a URL suggest: an example of a valid one, and where
// credentials go instead of the URL.
struct UrlHints {
  absl::string_view example = "https://api.openai.com/v1";
  absl::string_view credentials = "name the variable holding the key in api_key_env instead";
};

// Splits an http(s) URL with a host, an optional port and an optional path.
// Anything else is kInvalidArgument whose message says what is wrong, ready
// for "<path>: <message>": another scheme, no host, a bad port, whitespace,
// credentials, a query or a fragment.
absl::StatusOr<BaseUrlParts> ParseBaseUrl(absl::string_view url, const UrlHints& hints = {});

// `url` as an error may quote it: its credentials (userinfo) replaced with
// "...@" and its query or fragment with "?..." or "#...", since either may
// carry a key ("https://u:pw@h/v1", "https://h/v1?key=..."). Any text is
// accepted, URL or not.
std::string UrlForMessages(absl::string_view url);

// `url` with trailing '/' removed ("http://h:1/v1/" -> "http://h:1/v1").
std::string TrimBaseUrl(absl::string_view url);

// True when the host is this machine: localhost, 127.0.0.0/8 or ::1.
bool IsLoopbackHost(absl::string_view host);

// True when `url` parses and its host is a loopback host.
bool IsLoopbackBaseUrl(absl::string_view url);

}  // namespace raw::config
