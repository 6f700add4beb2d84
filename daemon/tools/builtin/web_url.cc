#include "daemon/tools/builtin/web_url.h"

#include <curl/curl.h>

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/hex_digit.h"
#include "daemon/tools/builtin/string_view_bridge.h"

namespace raw::tools::builtin {
namespace {

struct UrlDeleter {
  void operator()(CURLU* url) const { curl_url_cleanup(url); }
};
using UrlPtr = std::unique_ptr<CURLU, UrlDeleter>;

// A part of `url`, or "" when absent.
std::string Part(CURLU* url, CURLUPart part, unsigned int flags = 0) {
  char* value = nullptr;
  if (curl_url_get(url, part, &value, flags) != CURLUE_OK || value == nullptr) return "";
  std::string result(value);
  curl_free(value);
  return result;
}

// RFC 3986 6.2.2.2: a percent-encoded unreserved character (letters,
// digits, "-", ".", "_", "~") is that character; any other percent-encoding
// keeps its meaning and gets upper-case hex digits.
std::string NormalizePercentEncoding(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const int high = text[i] == '%' && i + 2 < text.size() ? HexDigitValue(text[i + 1]) : -1;
    const int low = high >= 0 ? HexDigitValue(text[i + 2]) : -1;
    if (low < 0) {
      out += text[i];
      continue;
    }
    const char c = static_cast<char>(high * 16 + low);
    if (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
        c == '~') {
      out += c;
    } else {
      absl::StrAppend(&out, "%", std::string(1, absl::ascii_toupper(text[i + 1])),
                      std::string(1, absl::ascii_toupper(text[i + 2])));
    }
    i += 2;
  }
  return out;
}

}  // namespace

std::string UrlScheme(std::string_view url) {
  size_t colon = url.find("://");
  if (colon == std::string_view::npos || colon == 0) return "";
  return absl::AsciiStrToLower(ToAbsl(url.substr(0, colon)));
}

absl::StatusOr<std::string> CheckFetchUrl(std::string_view text) {
  std::string url(absl::StripAsciiWhitespace(ToAbsl(text)));
  if (url.empty()) return absl::InvalidArgumentError("argument \"url\" is empty");
  std::string scheme = UrlScheme(url);
  if (scheme.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", url, "\" is not an absolute URL; give one starting with https:// or http://"));
  }
  if (scheme != "http" && scheme != "https") {
    return absl::InvalidArgumentError(absl::StrCat("unsupported URL scheme \"", scheme,
                                                   "\": web_fetch fetches http and https URLs "
                                                   "only"));
  }
  UrlPtr handle(curl_url());
  if (!handle) return absl::ResourceExhaustedError("out of memory parsing the URL");
  CURLUcode rc = curl_url_set(handle.get(), CURLUPART_URL, url.c_str(), 0);
  if (rc != CURLUE_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid URL: ", curl_url_strerror(rc)));
  }
  if (!Part(handle.get(), CURLUPART_USER).empty() ||
      !Part(handle.get(), CURLUPART_PASSWORD).empty()) {
    return absl::InvalidArgumentError(
        "the URL contains credentials (user:password@ before the host); web_fetch refuses "
        "URLs with credentials: remove them");
  }
  if (Part(handle.get(), CURLUPART_HOST).empty()) {
    return absl::InvalidArgumentError(absl::StrCat("the URL \"", url, "\" has no host"));
  }
  // The fragment is never sent; drop it from what is fetched and reported.
  curl_url_set(handle.get(), CURLUPART_FRAGMENT, nullptr, 0);
  // One spelling of each URL, so that url rules see one (RFC 3986 6.2.2):
  // host names are case-insensitive and "example.com." is "example.com";
  // the scheme's default port is no port; an unreserved character is the
  // same percent-encoded or not.
  std::string host = absl::AsciiStrToLower(Part(handle.get(), CURLUPART_HOST));
  while (host.size() > 1 && host.back() == '.') host.pop_back();
  curl_url_set(handle.get(), CURLUPART_HOST, host.c_str(), 0);
  for (CURLUPart part : {CURLUPART_PATH, CURLUPART_QUERY}) {
    const std::string written = Part(handle.get(), part);
    if (written.find('%') == std::string::npos) continue;
    curl_url_set(handle.get(), part, NormalizePercentEncoding(written).c_str(), 0);
  }
  // Parsed again, so that dot segments a decoding revealed ("/%2e%2e/")
  // are removed as when they are written plainly.
  const std::string normalized = Part(handle.get(), CURLUPART_URL, CURLU_NO_DEFAULT_PORT);
  rc = curl_url_set(handle.get(), CURLUPART_URL, normalized.c_str(), 0);
  if (rc != CURLUE_OK) {
    return absl::InvalidArgumentError(absl::StrCat("invalid URL: ", curl_url_strerror(rc)));
  }
  return Part(handle.get(), CURLUPART_URL, CURLU_NO_DEFAULT_PORT);
}

ShownUrl WithoutCredentials(std::string_view url) {
  std::string text(url);
  UrlPtr handle(curl_url());
  bool parsed = handle != nullptr &&
                curl_url_set(handle.get(), CURLUPART_URL, text.c_str(),
                             CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK;
  const std::string before = parsed ? Part(handle.get(), CURLUPART_URL) : "";
  if (before.empty()) {
    if (text.find('@') != std::string::npos) return {"", true};
    return {std::move(text), false};
  }
  // Cleared even when empty: "http://:pw@host" has an empty user name.
  for (CURLUPart part : {CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_OPTIONS}) {
    curl_url_set(handle.get(), part, nullptr, 0);
  }
  std::string after = Part(handle.get(), CURLUPART_URL);
  if (after == before) return {std::move(text), false};
  if (after.empty()) return {"", true};
  return {std::move(after), true};
}

absl::StatusOr<std::string> ResolveUrl(std::string_view base, std::string_view reference) {
  UrlPtr handle(curl_url());
  if (!handle) return absl::ResourceExhaustedError("out of memory parsing the URL");
  std::string base_text(base);
  std::string ref_text(absl::StripAsciiWhitespace(ToAbsl(reference)));
  CURLUcode rc = curl_url_set(handle.get(), CURLUPART_URL, base_text.c_str(), 0);
  if (rc == CURLUE_OK) {
    // Relative to what is set; absolute references replace it. Schemes
    // libcurl does not speak (mailto:, data:) are kept as written.
    rc = curl_url_set(handle.get(), CURLUPART_URL, ref_text.c_str(), CURLU_NON_SUPPORT_SCHEME);
  }
  if (rc != CURLUE_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot resolve \"", ref_text, "\": ", curl_url_strerror(rc)));
  }
  return Part(handle.get(), CURLUPART_URL);
}

}  // namespace raw::tools::builtin
