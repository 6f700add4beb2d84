#include "daemon/search/web_search_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/json.h"
#include "daemon/http/bounded_collector.h"
#include "daemon/http/ip_address.h"

namespace raw::search {
namespace {

// Largest answer read from a backend (a page of results is a few KiB).
constexpr size_t kMaxAnswerBytes = 4 * 1024 * 1024;
constexpr int64_t kMaxConnectTimeoutMs = 15000;
constexpr size_t kMaxMessageChars = 300;

std::string StringField(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

bool IsWebUrl(const std::string& url) {
  return absl::StartsWithIgnoreCase(url, "http://") || absl::StartsWithIgnoreCase(url, "https://");
}

std::string Collapse(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > kMaxMessageChars) {
    size_t cut = kMaxMessageChars;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
    out += "...";
  }
  return out;
}

absl::StatusOr<Json> ParseObject(std::string_view body) {
  absl::StatusOr<Json> json = ParseJson(body);
  if (!json.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the answer is not JSON (", json.status().message(), ")"));
  }
  if (!json->is_object()) return absl::InvalidArgumentError("the answer is not a JSON object");
  return json;
}

// The array at `key` of `object`, or an error naming `where`.
absl::StatusOr<const Json*> ResultsArray(const Json& object, const char* key, const char* where) {
  auto it = object.find(key);
  if (it == object.end()) {
    return absl::InvalidArgumentError(absl::StrCat("the answer has no \"", where, "\" array"));
  }
  if (!it->is_array()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", where, "\" is not an array"));
  }
  return &*it;
}

}  // namespace

std::string BackendName(config::SearchBackendKind backend) {
  switch (backend) {
    case config::SearchBackendKind::kSearxng:
      return "searxng";
    case config::SearchBackendKind::kBrave:
      return "brave";
    case config::SearchBackendKind::kNone:
      break;
  }
  return "none";
}

absl::StatusOr<std::vector<SearchResult>> ParseSearxngResults(std::string_view body,
                                                              size_t max_results) {
  absl::StatusOr<Json> json = ParseObject(body);
  if (!json.ok()) return json.status();
  absl::StatusOr<const Json*> results = ResultsArray(*json, "results", "results");
  if (!results.ok()) return results.status();
  std::vector<SearchResult> out;
  for (const Json& r : **results) {
    if (out.size() >= max_results) break;
    if (!r.is_object()) continue;
    SearchResult result{StringField(r, "title"), StringField(r, "url"), StringField(r, "content"),
                        StringField(r, "publishedDate")};
    if (!IsWebUrl(result.url)) continue;
    out.push_back(std::move(result));
  }
  return out;
}

absl::StatusOr<std::vector<SearchResult>> ParseBraveResults(std::string_view body,
                                                            size_t max_results) {
  absl::StatusOr<Json> json = ParseObject(body);
  if (!json.ok()) return json.status();
  std::vector<SearchResult> out;
  auto web = json->find("web");
  // No "web" section: Brave found nothing to show for the query.
  if (web == json->end()) return out;
  if (!web->is_object()) return absl::InvalidArgumentError("\"web\" is not an object");
  absl::StatusOr<const Json*> results = ResultsArray(*web, "results", "web.results");
  if (!results.ok()) return results.status();
  for (const Json& r : **results) {
    if (out.size() >= max_results) break;
    if (!r.is_object()) continue;
    SearchResult result{StringField(r, "title"), StringField(r, "url"),
                        StringField(r, "description"), StringField(r, "age")};
    if (result.date.empty()) result.date = StringField(r, "page_age");
    if (!IsWebUrl(result.url)) continue;
    out.push_back(std::move(result));
  }
  return out;
}

std::string ErrorBodyMessage(std::string_view body) {
  absl::StatusOr<Json> json = ParseJson(body);
  if (json.ok() && json->is_object()) {
    for (const char* key : {"error", "message", "detail"}) {
      auto it = json->find(key);
      if (it == json->end()) continue;
      if (it->is_string()) return Collapse(it->get<std::string>());
      if (it->is_object()) {
        for (const char* inner : {"detail", "message", "code"}) {
          std::string text = StringField(*it, inner);
          if (!text.empty()) return Collapse(text);
        }
      }
    }
  }
  return Collapse(body);
}

std::string EncodeQueryValue(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

bool UrlNamesANonPublicAddress(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return false;
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (rest.find('@') != std::string_view::npos) return false;  // userinfo: not a plain address
  std::string host;
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return false;
    host = std::string(rest.substr(1, close - 1));
  } else {
    host = std::string(rest.substr(0, rest.find(':')));
  }
  if (absl::AsciiStrToLower(host) == "localhost") return true;
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  if (inet_pton(AF_INET, host.c_str(), &v4.sin_addr) == 1) {
    return http::NonPublicAddressReason(reinterpret_cast<const sockaddr*>(&v4), sizeof v4)
        .has_value();
  }
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  if (inet_pton(AF_INET6, host.c_str(), &v6.sin6_addr) == 1) {
    return http::NonPublicAddressReason(reinterpret_cast<const sockaddr*>(&v6), sizeof v6)
        .has_value();
  }
  return false;
}

WebSearchClient::WebSearchClient(http::HttpClient& http, config::RavenSearchSettings settings,
                                 std::string api_key, bool allow_private_addresses)
    : http_(http),
      settings_(std::move(settings)),
      api_key_(std::move(api_key)),
      allow_private_addresses_(allow_private_addresses) {}

std::string WebSearchClient::Scrub(std::string text) const {
  if (api_key_.empty()) return text;
  return absl::StrReplaceAll(text, {{api_key_, "[redacted]"}});
}

absl::StatusOr<std::vector<SearchResult>> WebSearchClient::Search(const std::string& query,
                                                                  size_t max_results,
                                                                  const CancelToken& cancel) const {
  const std::string backend = BackendName(settings_.backend);
  http::HttpRequest request;
  request.method = "GET";
  switch (settings_.backend) {
    case config::SearchBackendKind::kNone:
      return absl::FailedPreconditionError("no search backend is configured (raven.search)");
    case config::SearchBackendKind::kSearxng:
      request.url = absl::StrCat(settings_.url, "/search?q=", EncodeQueryValue(query),
                                 "&format=json");
      break;
    case config::SearchBackendKind::kBrave:
      request.url = absl::StrCat(settings_.url, "?q=", EncodeQueryValue(query),
                                 "&count=", std::clamp<size_t>(max_results, 1, 20));
      request.headers.push_back({"X-Subscription-Token", api_key_});
      break;
  }
  request.headers.push_back({"Accept", "application/json"});
  const int64_t timeout = std::max<int64_t>(settings_.timeout_ms, 1);
  request.connect_timeout_ms = std::min(timeout, kMaxConnectTimeoutMs);
  request.idle_timeout_ms = timeout;
  request.total_timeout_ms = timeout;
  // The backend's address is the user's (raven.search.url), never a model's:
  // one written as a loopback or private address is reached as written. A
  // host name must resolve to a public address unless private ones are
  // allowed, so that no name can lead the request into this machine.
  request.public_addresses_only =
      !allow_private_addresses_ && !UrlNamesANonPublicAddress(settings_.url);
  http::BoundedCollector response(kMaxAnswerBytes);
  absl::Status sent = http_.Send(request, response, cancel);
  if (cancel.cancelled() || absl::IsCancelled(sent)) {
    return absl::CancelledError("the search was cancelled");
  }
  if (!sent.ok() && !(absl::IsAborted(sent) && response.stopped())) {
    std::string why = Scrub(std::string(sent.message()));
    if (absl::IsPermissionDenied(sent)) {
      return absl::PermissionDeniedError(absl::StrCat(
          "the ", backend, " search backend was not contacted: ", why,
          " (a backend on this machine or a private network is reached when raven.search.url "
          "names its address, such as http://127.0.0.1:8888; for a host name that resolves to "
          "one, set raven.network.allow_private_addresses)"));
    }
    if (absl::IsDeadlineExceeded(sent)) {
      return absl::DeadlineExceededError(absl::StrCat("the ", backend,
                                                      " search backend did not answer within ",
                                                      timeout, " ms: ", why));
    }
    return absl::UnavailableError(
        absl::StrCat("the ", backend, " search backend could not be reached: ", why));
  }
  if (response.cut()) {
    return absl::InternalError(absl::StrCat("the ", backend, " search backend's answer is longer "
                                            "than ", kMaxAnswerBytes, " bytes"));
  }
  const int status = response.status();
  if (status < 200 || status >= 300) {
    std::string message = Scrub(ErrorBodyMessage(response.body()));
    return absl::InternalError(absl::StrCat("the ", backend, " search backend answered HTTP ",
                                            status, message.empty() ? "" : ": ", message));
  }
  absl::StatusOr<std::vector<SearchResult>> results =
      settings_.backend == config::SearchBackendKind::kSearxng
          ? ParseSearxngResults(response.body(), max_results)
          : ParseBraveResults(response.body(), max_results);
  if (!results.ok()) {
    return absl::InternalError(absl::StrCat("the ", backend, " search backend's answer is malformed: ",
                                            Scrub(std::string(results.status().message()))));
  }
  return results;
}

}  // namespace raw::search
