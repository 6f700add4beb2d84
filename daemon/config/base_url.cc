#include "daemon/config/base_url.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace raw::config {
namespace {

absl::Status InvalidUrl(absl::string_view what, const UrlHints& hints) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " (expected an http(s) URL such as \"", hints.example, "\")"));
}

bool IsHostNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

bool IsIpv6Char(char c) {
  return absl::ascii_isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
}

}  // namespace

absl::StatusOr<BaseUrlParts> ParseBaseUrl(absl::string_view url, const UrlHints& hints) {
  auto invalid = [&hints](absl::string_view what) { return InvalidUrl(what, hints); };
  if (url.empty()) return invalid("is empty");
  if (std::any_of(url.begin(), url.end(),
                  [](char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); })) {
    return invalid("contains whitespace");
  }
  BaseUrlParts parts;
  size_t sep = url.find("://");
  if (sep == absl::string_view::npos) return invalid("has no scheme");
  parts.scheme = absl::AsciiStrToLower(url.substr(0, sep));
  if (parts.scheme != "http" && parts.scheme != "https") {
    return invalid(absl::StrCat("has scheme \"", url.substr(0, sep), "\""));
  }
  if (url.find_first_of("?#") != absl::string_view::npos) {
    return invalid("must not contain a query (?) or fragment (#)");
  }
  absl::string_view rest = url.substr(sep + 3);
  size_t slash = rest.find('/');
  absl::string_view authority = rest.substr(0, slash);
  if (slash != absl::string_view::npos) {
    absl::string_view path = rest.substr(slash);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    parts.path = std::string(path);
  }
  if (authority.find('@') != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "must not contain credentials (user@ or user:password@); ", hints.credentials));
  }

  absl::string_view host;
  absl::string_view port;
  if (absl::StartsWith(authority, "[")) {
    size_t close = authority.find(']');
    if (close == absl::string_view::npos) return invalid("has an unterminated [IPv6] host");
    host = authority.substr(1, close - 1);
    absl::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return invalid("has text after its [IPv6] host");
      port = after.substr(1);
      if (port.empty()) return invalid("has an empty port");
    }
    if (host.empty() || !std::all_of(host.begin(), host.end(), IsIpv6Char)) {
      return invalid("has an invalid IPv6 host");
    }
  } else {
    size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != absl::string_view::npos) {
      port = authority.substr(colon + 1);
      if (port.empty()) return invalid("has an empty port");
    }
    if (host.empty()) return invalid("has no host");
    if (!std::all_of(host.begin(), host.end(), IsHostNameChar)) {
      return invalid(absl::StrCat("has an invalid host \"", host, "\""));
    }
  }
  parts.host = absl::AsciiStrToLower(host);
  if (!port.empty()) {
    int n = 0;
    bool digits = std::all_of(port.begin(), port.end(), [](char c) {
      return absl::ascii_isdigit(static_cast<unsigned char>(c));
    });
    if (!digits || port.size() > 5 || !absl::SimpleAtoi(port, &n) || n < 1 || n > 65535) {
      return invalid(absl::StrCat("has an invalid port \"", port, "\" (expected 1 to 65535)"));
    }
    parts.port = n;
  }
  return parts;
}

std::string UrlForMessages(absl::string_view url) {
  size_t start = url.find("://");
  start = start == absl::string_view::npos ? 0 : start + 3;
  std::string out(url.substr(0, start));
  absl::string_view rest = url.substr(start);
  const size_t authority_end = std::min(rest.find_first_of("/?#"), rest.size());
  if (size_t at = rest.substr(0, authority_end).rfind('@'); at != absl::string_view::npos) {
    out += "...@";
    rest.remove_prefix(at + 1);
  }
  if (size_t cut = rest.find_first_of("?#"); cut != absl::string_view::npos) {
    absl::StrAppend(&out, rest.substr(0, cut + 1), "...");
  } else {
    absl::StrAppend(&out, rest);
  }
  return out;
}

std::string TrimBaseUrl(absl::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return std::string(url);
}

bool IsLoopbackHost(absl::string_view host) {
  if (host == "localhost" || host == "::1") return true;
  return absl::StartsWith(host, "127.") && std::all_of(host.begin(), host.end(), [](char c) {
           return absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == '.';
         });
}

bool IsLoopbackBaseUrl(absl::string_view url) {
  auto parts = ParseBaseUrl(url);
  return parts.ok() && IsLoopbackHost(parts->host);
}

}  // namespace raw::config
