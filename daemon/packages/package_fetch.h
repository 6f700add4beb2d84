// FetchPackage: downloads a package archive from an https:// URL into a
// file, with a time limit and a size limit, sending no credentials (no
// cookies, no netrc, no userinfo in the URL: such a URL is refused) and
// following no redirect. Thread-safe as the HttpClient is.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "daemon/http/http_client.h"

namespace raw::packages {

struct FetchLimits {
  int64_t max_bytes = int64_t{256} << 20;
  int64_t total_timeout_ms = 300000;
  int64_t connect_timeout_ms = 15000;
};

// True for text that looks like a URL ("<scheme>://...").
bool IsUrl(absl::string_view text);

// Checks `url` may be fetched: https, no userinfo, names an archive
// (.tar.gz, .tgz, .tar.zst, before any '?' or '#').
absl::Status CheckPackageUrl(absl::string_view url);

// The archive suffix of `url` (".tar.gz", ".tgz" or ".tar.zst").
std::string ArchiveSuffixOf(absl::string_view url);

// GETs `url` into the new file `dest`. A status other than 200, a body over
// the limit or a transfer over the time limit is an error naming the URL.
absl::Status FetchPackage(http::HttpClient& client, const std::string& url,
                          const std::string& dest, const FetchLimits& limits = {});

}  // namespace raw::packages
