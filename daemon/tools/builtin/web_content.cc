#include "daemon/tools/builtin/web_content.h"

#include <iconv.h>

#include <cerrno>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "daemon/tools/builtin/string_view_bridge.h"
#include "common/utf8.h"

namespace raw::tools::builtin {
namespace {

// How far into an HTML page a <meta charset> is looked for.
constexpr size_t kMetaCharsetWindow = 2048;

bool IsTextual(absl::string_view type) {
  if (absl::StartsWith(type, "text/")) return true;
  if (absl::EndsWith(type, "+json") || absl::EndsWith(type, "+xml")) return true;
  for (absl::string_view known :
       {"application/json", "application/xml", "application/javascript",
        "application/x-javascript", "application/ecmascript", "application/x-yaml",
        "application/yaml", "application/toml", "application/x-sh", "application/sql",
        "application/graphql", "application/x-ndjson", "application/csv",
        "application/x-www-form-urlencoded"}) {
    if (type == known) return true;
  }
  return false;
}

// The value of parameter `name` in a header like "text/html; charset=utf-8".
std::string Parameter(absl::string_view header, absl::string_view name) {
  size_t semi = header.find(';');
  while (semi != absl::string_view::npos) {
    absl::string_view rest = header.substr(semi + 1);
    size_t next = rest.find(';');
    absl::string_view param = absl::StripAsciiWhitespace(rest.substr(0, next));
    size_t eq = param.find('=');
    if (eq != absl::string_view::npos &&
        absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(param.substr(0, eq)), name)) {
      absl::string_view value = absl::StripAsciiWhitespace(param.substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      return absl::AsciiStrToLower(value);
    }
    semi = next == absl::string_view::npos ? next : semi + 1 + next;
  }
  return "";
}

// The charset named by a <meta> near the top of an HTML page, or "".
std::string MetaCharset(absl::string_view body) {
  std::string head = absl::AsciiStrToLower(body.substr(0, kMetaCharsetWindow));
  size_t pos = head.find("charset=");
  if (pos == std::string::npos) return "";
  pos += 8;
  while (pos < head.size() && (head[pos] == '"' || head[pos] == '\'' || head[pos] == ' ')) ++pos;
  size_t end = pos;
  while (end < head.size() && (absl::ascii_isalnum(static_cast<unsigned char>(head[end])) ||
                               head[end] == '-' || head[end] == '_' || head[end] == ':')) {
    ++end;
  }
  return head.substr(pos, end - pos);
}

bool LooksLikeHtml(absl::string_view body) {
  if (absl::StartsWith(body, "\xEF\xBB\xBF")) body.remove_prefix(3);
  body = absl::StripLeadingAsciiWhitespace(body);
  return absl::StartsWithIgnoreCase(body, "<!doctype html") ||
         absl::StartsWithIgnoreCase(body, "<html");
}

// `body` converted from `charset` to UTF-8; invalid input becomes U+FFFD.
absl::StatusOr<std::string> ToUtf8(std::string_view body, const std::string& charset) {
  if (charset.empty() || charset == "utf-8" || charset == "utf8" || charset == "us-ascii" ||
      charset == "ascii") {
    return SanitizeUtf8(body);
  }
  iconv_t cd = iconv_open("UTF-8", charset.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the response uses charset \"", charset, "\", which cannot be converted"));
  }
  std::string out;
  char buffer[16 * 1024];
  char* in = const_cast<char*>(body.data());
  size_t in_left = body.size();
  while (in_left > 0) {
    char* dst = buffer;
    size_t dst_left = sizeof(buffer);
    size_t rc = iconv(cd, &in, &in_left, &dst, &dst_left);
    out.append(buffer, static_cast<size_t>(dst - buffer));
    if (rc == static_cast<size_t>(-1)) {
      if (errno == E2BIG) continue;
      // An invalid or truncated sequence: replace one byte and go on.
      out += "\xEF\xBF\xBD";
      ++in;
      --in_left;
    }
  }
  iconv_close(cd);
  return SanitizeUtf8(out);
}

}  // namespace

absl::StatusOr<WebText> BodyToText(std::string_view content_type, std::string_view body,
                                   const HtmlTextOptions& html_options) {
  WebText result;
  absl::string_view header = ToAbsl(content_type);
  absl::string_view media = header.substr(0, header.find(';'));
  result.media_type = absl::AsciiStrToLower(absl::StripAsciiWhitespace(media));
  std::string charset = Parameter(header, "charset");

  if (result.media_type.empty()) {
    if (LooksLikeHtml(ToAbsl(body))) {
      result.html = true;
    } else if (LooksBinary(body)) {
      return absl::InvalidArgumentError(
          "the response has no Content-Type and looks binary (it contains NUL bytes); "
          "web_fetch returns text, HTML and JSON only");
    }
  } else if (result.media_type == "text/html" || result.media_type == "application/xhtml+xml") {
    result.html = true;
  } else if (!IsTextual(result.media_type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the response is ", result.media_type,
        ", which is not text; web_fetch returns text, HTML and JSON only"));
  }

  if (result.html && charset.empty()) charset = MetaCharset(ToAbsl(body));
  absl::StatusOr<std::string> text = ToUtf8(body, charset);
  if (!text.ok()) return text.status();
  result.text = result.html ? HtmlToText(*text, html_options) : *std::move(text);
  return result;
}

}  // namespace raw::tools::builtin
