// Rule URLs: the URL a url rule sees is the URL builtin/web_fetch fetches
// (web_url.h CheckFetchUrl: scheme and host in lower case, the host
// without a trailing dot, no default port, percent-encoded unreserved
// characters decoded, fragment dropped), so a rule cannot be dodged by
// spelling ("HTTPS://Docs.Python.org.:443/%7Ex").
// Pure; thread-safe.
#pragma once

#include <string>

namespace raw::tools::policy {

// `url` normalized as web_fetch fetches it; a URL it would refuse is
// returned as written (the call fails without sending anything).
std::string RuleUrl(const std::string& url);

}  // namespace raw::tools::policy
