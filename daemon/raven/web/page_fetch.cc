#include "daemon/raven/web/page_fetch.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "daemon/http/bounded_collector.h"
#include "daemon/raven/domain.h"

namespace raw::raven::web {
namespace {

struct UrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
using Url = std::unique_ptr<CURLU, UrlDeleter>;

std::string Part(CURLU* u, CURLUPart part) {
  char* value = nullptr;
  if (curl_url_get(u, part, &value, 0) != CURLUE_OK || value == nullptr) return "";
  std::string out(value);
  curl_free(value);
  return out;
}

struct Target {
  std::string url;
  std::string scheme;
  std::string site;  // UrlIdentity: host and non-default port
};

// `reference` resolved against `base` (libcurl's parser, the one that sends
// the request), or nullopt when it is not a URL.
std::optional<Target> Resolve(const std::string& base, const std::string& reference) {
  Url u(curl_url());
  if (!u || curl_url_set(u.get(), CURLUPART_URL, base.c_str(), 0) != CURLUE_OK) return std::nullopt;
  if (!reference.empty() &&
      curl_url_set(u.get(), CURLUPART_URL, reference.c_str(), 0) != CURLUE_OK) {
    return std::nullopt;
  }
  curl_url_set(u.get(), CURLUPART_FRAGMENT, nullptr, 0);
  Target t{Part(u.get(), CURLUPART_URL), absl::AsciiStrToLower(Part(u.get(), CURLUPART_SCHEME)),
           ""};
  if (t.url.empty() || Part(u.get(), CURLUPART_HOST).empty()) return std::nullopt;
  t.site = UrlIdentity(t.url);  // "" unless http(s), refused by the caller
  if (!Part(u.get(), CURLUPART_USER).empty()) return std::nullopt;
  return t;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::optional<RedirectRefusal> CheckRedirect(const std::string& start, const std::string& from,
                                             const std::string& to) {
  std::optional<Target> origin = Resolve(start, "");
  std::optional<Target> source = Resolve(from, "");
  std::optional<Target> next = Resolve(to, "");
  if (!origin || !source || !next) {
    return RedirectRefusal{FetchResult::kRefused,
                           absl::StrCat("redirected from ", from, " to ", to,
                                        ", which is not an http(s) URL without credentials")};
  }
  if (next->scheme != "http" && next->scheme != "https") {
    return RedirectRefusal{FetchResult::kRefused,
                           absl::StrCat("redirected to a ", next->scheme, " URL")};
  }
  // A downgrade: what comes over plain http, the page and so the citation
  // checked against it, anyone on the path can change. Refused on any host,
  // the Source's own included.
  if (source->scheme == "https" && next->scheme == "http") {
    return RedirectRefusal{
        FetchResult::kRefused,
        absl::StrCat("redirected from ", source->url, " to ", next->url,
                     ": Raven does not follow a redirect from https to plain http (the page "
                     "would come over an unencrypted connection that anyone on the path can "
                     "change)")};
  }
  // The same site is the same host and port; the scheme may change from
  // http to https (http://a/ to https://a/ keeps the default port).
  if (next->site != origin->site) {
    return RedirectRefusal{
        FetchResult::kCrossHost,
        absl::StrCat("redirected to another host or port (", next->site,
                     "); Raven does not follow redirects off the Source's host and "
                     "port: cite the page where it now lives")};
  }
  return std::nullopt;
}

FetchedPage FetchPage(http::HttpClient& client, const std::string& url,
                      const VerifierSettings& settings, int64_t deadline_ms,
                      const CancelToken& cancel, const UrlRefusal& refuse) {
  FetchedPage page;
  const int64_t end = NowMs() + std::max<int64_t>(deadline_ms, 1);
  std::optional<Target> first = Resolve(url, "");
  if (!first || (first->scheme != "http" && first->scheme != "https")) {
    page.result = FetchResult::kRefused;
    page.detail = "the URL is not an http(s) URL without credentials";
    return page;
  }
  Target current = *first;
  for (int hop = 0;; ++hop) {
    if (std::optional<std::string> why = refuse ? refuse(current.url) : std::nullopt) {
      if (!CanonicalUrl(current.url, page.url).ok()) page.url = current.url;
      page.result = FetchResult::kRefused;
      page.detail =
          absl::StrCat("not requested: the agent's rules deny ", page.url, " (", *why, ")");
      return page;
    }
    int64_t left = end - NowMs();
    if (left <= 0) {
      page.result = FetchResult::kUnreachable;
      page.detail = absl::StrCat("no complete answer within ", deadline_ms, " ms");
      return page;
    }
    http::HttpRequest request;
    request.method = "GET";
    request.url = current.url;
    request.headers = {{"Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5"},
                       {"User-Agent", "rawd-raven/1 (source excerpt check)"}};
    request.connect_timeout_ms = std::min<int64_t>(left, 15000);
    request.total_timeout_ms = left;
    request.idle_timeout_ms = left;
    request.public_addresses_only = !settings.allow_private_addresses;
    http::BoundedCollector collector(static_cast<size_t>(std::max<int64_t>(settings.max_bytes, 1)));
    absl::Status sent = client.Send(request, collector, cancel);
    // Reported in canonical form, the form the engine compares with the
    // Source URL (a host in capitals or an explicit default port from a
    // Location header are the same site).
    if (!CanonicalUrl(current.url, page.url).ok()) page.url = current.url;
    page.status = collector.status();
    if (cancel.cancelled() || absl::IsCancelled(sent)) {
      page.result = FetchResult::kCancelled;
      page.detail = "the check was cancelled";
      return page;
    }
    if (absl::IsPermissionDenied(sent)) {
      page.result = FetchResult::kRefused;
      page.detail = absl::StrCat(sent.message(),
                                 "; Raven reopens only public addresses unless the configuration "
                                 "allows private ones");
      return page;
    }
    if (collector.cut()) {
      page.result = FetchResult::kTruncated;
      page.detail = absl::StrCat("the body is longer than ", settings.max_bytes,
                                 " bytes and was cut off there");
      return page;
    }
    bool redirect = page.status >= 300 && page.status < 400 && page.status != 304;
    if (!sent.ok() && !(redirect && absl::IsAborted(sent))) {
      if (page.status != 0 && absl::IsUnavailable(sent)) {
        page.result = FetchResult::kTruncated;
        page.detail = absl::StrCat("the server cut the body off after ", collector.body().size(),
                                   " bytes (", sent.message(), ")");
      } else {
        page.result = FetchResult::kUnreachable;
        page.detail = absl::IsDeadlineExceeded(sent)
                          ? absl::StrCat("no complete answer within ", deadline_ms, " ms")
                          : std::string(sent.message());
      }
      return page;
    }
    if (!redirect) {
      page.result = FetchResult::kOk;
      page.content_type = http::FindHeader(collector.headers(), "Content-Type");
      page.body = collector.TakeBody();
      return page;
    }
    std::string location = http::FindHeader(collector.headers(), "Location");
    std::optional<Target> next = location.empty() ? std::nullopt : Resolve(current.url, location);
    if (!next) {
      page.result = FetchResult::kUnreachable;
      page.detail = absl::StrCat("HTTP ", page.status, " redirect without a usable Location");
      return page;
    }
    if (std::optional<RedirectRefusal> refusal =
            CheckRedirect(first->url, current.url, next->url)) {
      page.result = refusal->result;
      page.detail = std::move(refusal->detail);
      return page;
    }
    if (hop >= settings.max_redirects) {
      page.result = FetchResult::kUnreachable;
      page.detail = absl::StrCat("more than ", settings.max_redirects, " redirects");
      return page;
    }
    current = *next;
  }
}

}  // namespace raw::raven::web
