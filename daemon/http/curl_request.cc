#include "daemon/http/curl_request.h"

#include <algorithm>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace raw::http {
namespace {

struct UrlDeleter {
  void operator()(CURLU* url) const { curl_url_cleanup(url); }
};
using UrlPtr = std::unique_ptr<CURLU, UrlDeleter>;

bool IsToken(std::string_view text) {
  if (text.empty()) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

std::string UrlPart(CURLU* url, CURLUPart part, unsigned flags) {
  char* value = nullptr;
  if (curl_url_get(url, part, &value, flags) != CURLUE_OK || value == nullptr) return "";
  std::string out(value);
  curl_free(value);
  return out;
}

}  // namespace

absl::StatusOr<RequestTarget> ParseRequestTarget(const std::string& url_text) {
  if (url_text.empty()) return absl::InvalidArgumentError("request has no URL");
  UrlPtr url(curl_url());
  if (url == nullptr) return absl::ResourceExhaustedError("cannot allocate a URL handle");
  CURLUcode rc = curl_url_set(url.get(), CURLUPART_URL, url_text.c_str(), 0);
  if (rc != CURLUE_OK) {
    return absl::InvalidArgumentError(absl::StrCat("invalid request URL: ", curl_url_strerror(rc)));
  }
  std::string scheme = absl::AsciiStrToLower(UrlPart(url.get(), CURLUPART_SCHEME, 0));
  if (scheme != "http" && scheme != "https") {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported URL scheme '", scheme, "' (only http and https are allowed)"));
  }
  RequestTarget target;
  target.host = UrlPart(url.get(), CURLUPART_HOST, 0);
  if (target.host.empty()) return absl::InvalidArgumentError("request URL has no host");
  target.host_port =
      absl::StrCat(target.host, ":", UrlPart(url.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT));
  std::string host = absl::AsciiStrToLower(target.host);
  target.loopback = host == "localhost" || host == "[::1]" || absl::StartsWith(host, "127.");
  return target;
}

absl::StatusOr<CurlHeaderList> BuildCurlHeaderList(const HttpRequest& request) {
  CurlHeaderList list;
  auto append = [&list](const std::string& line) {
    curl_slist* grown = curl_slist_append(list.get(), line.c_str());
    if (grown == nullptr) return false;
    list.release();
    list.reset(grown);
    return true;
  };
  for (const auto& [name, value] : request.headers) {
    if (!IsToken(name)) {
      return absl::InvalidArgumentError(absl::StrCat("invalid HTTP header name '", name, "'"));
    }
    if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("HTTP header '", name, "' has a line break or NUL in its value"));
    }
    // "Name;" is libcurl's spelling for a header with an empty value.
    if (!append(value.empty() ? absl::StrCat(name, ";") : absl::StrCat(name, ": ", value))) {
      return absl::ResourceExhaustedError("cannot allocate the request header list");
    }
  }
  // libcurl would otherwise add "Expect: 100-continue" to larger bodies (and
  // wait for the interim response) and a form-encoded Content-Type.
  if (FindHeader(request.headers, "Expect").empty() && !append("Expect:")) {
    return absl::ResourceExhaustedError("cannot allocate the request header list");
  }
  if (SendsBody(request) && FindHeader(request.headers, "Content-Type").empty() &&
      !append("Content-Type:")) {
    return absl::ResourceExhaustedError("cannot allocate the request header list");
  }
  return list;
}

absl::Status ValidateMethod(const HttpRequest& request) {
  const std::string& method = request.method;
  if (method.empty() || method.size() > 16 ||
      !std::all_of(method.begin(), method.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
    return absl::InvalidArgumentError(absl::StrCat("invalid HTTP method '", method, "'"));
  }
  if ((method == "GET" || method == "HEAD") && request.body_size() > 0) {
    return absl::InvalidArgumentError(absl::StrCat("a ", method, " request cannot carry a body"));
  }
  return absl::OkStatus();
}

bool SendsBody(const HttpRequest& request) {
  const std::string& method = request.method;
  return request.body_size() > 0 || method == "POST" || method == "PUT" || method == "PATCH";
}

}  // namespace raw::http
