// Web URLs for builtin/web_fetch: checking what the model asked for and
// resolving links and redirect targets, with libcurl's URL parser (the same
// one that will send the request).
//
// Stateless functions; safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace raw::tools::builtin {

// `url` normalized (scheme and host in lower case, no fragment), when it
// is an absolute http or https URL without credentials. Errors say what is
// wrong (not a URL, another scheme, user:password@ in it) without repeating
// any credentials.
absl::StatusOr<std::string> CheckFetchUrl(std::string_view url);

// `reference` (absolute, or relative like "../a.html" or "/x") resolved
// against the absolute URL `base`.
absl::StatusOr<std::string> ResolveUrl(std::string_view base, std::string_view reference);

// The scheme of an absolute URL in lower case ("https"), "" when unknown.
std::string UrlScheme(std::string_view url);

// An absolute URL as it may be shown: without the user name, password and
// login options libcurl finds before the host. `had_credentials` says
// whether any were removed. A URL libcurl cannot parse is never shown when
// it holds an '@' (it may hide credentials): `shown` is then empty.
struct ShownUrl {
  std::string shown;
  bool had_credentials = false;
};
ShownUrl WithoutCredentials(std::string_view url);

}  // namespace raw::tools::builtin
