#include "clients/web/http_message.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/hex_digit.h"

namespace raw::web {
namespace {

// Form decoding: %XX and '+' for space. A malformed escape stays as sent.
std::string Unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out.push_back(' ');
    } else if (s[i] == '%' && i + 2 < s.size() && HexDigitValue(s[i + 1]) >= 0 &&
               HexDigitValue(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexDigitValue(s[i + 1]) * 16 + HexDigitValue(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

std::optional<std::string_view> Request::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

size_t Request::HeaderCount(std::string_view name) const {
  size_t n = 0;
  for (const auto& field : headers) n += field.first == name ? 1 : 0;
  return n;
}

std::vector<std::string> Request::Cookies(std::string_view name) const {
  std::vector<std::string> values;
  for (const auto& [key, value] : headers) {
    if (key != "cookie") continue;
    for (absl::string_view pair : absl::StrSplit(value, ';')) {
      pair = absl::StripAsciiWhitespace(pair);
      size_t eq = pair.find('=');
      if (eq == absl::string_view::npos) continue;
      if (pair.substr(0, eq) == absl::string_view(name.data(), name.size())) {
        values.emplace_back(pair.substr(eq + 1));
      }
    }
  }
  return values;
}

std::vector<std::string> Request::CookieNames() const {
  std::vector<std::string> names;
  for (const auto& [key, value] : headers) {
    if (key != "cookie") continue;
    for (absl::string_view pair : absl::StrSplit(value, ';')) {
      pair = absl::StripAsciiWhitespace(pair);
      size_t eq = pair.find('=');
      if (eq == absl::string_view::npos || eq == 0) continue;
      std::string name(pair.substr(0, eq));
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(std::move(name));
      }
    }
  }
  return names;
}

void ParseTarget(std::string_view target, Request* request) {
  size_t q = target.find('?');
  request->path = std::string(target.substr(0, q));
  request->query.clear();
  if (q == std::string_view::npos) return;
  std::string_view query = target.substr(q + 1);
  for (absl::string_view part : absl::StrSplit(absl::string_view(query.data(), query.size()), '&')) {
    if (part.empty()) continue;
    size_t eq = part.find('=');
    std::string key = Unescape(std::string_view(part.data(), eq == absl::string_view::npos ? part.size() : eq));
    std::string value =
        eq == absl::string_view::npos ? "" : Unescape(std::string_view(part.data() + eq + 1, part.size() - eq - 1));
    request->query.emplace(std::move(key), std::move(value));
  }
}

Response TextResponse(int status, std::string text) {
  Response r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(text) + "\n";
  return r;
}

}  // namespace raw::web
