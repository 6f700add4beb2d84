#include "daemon/tools/builtin/web_content.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "daemon/tools/builtin/string_view_bridge.h"
#include "common/utf8.h"
#include "daemon/http/charset.h"

namespace raw::tools::builtin {
namespace {

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

bool LooksLikeHtml(absl::string_view body) {
  if (absl::StartsWith(body, "\xEF\xBB\xBF")) body.remove_prefix(3);
  body = absl::StripLeadingAsciiWhitespace(body);
  return absl::StartsWithIgnoreCase(body, "<!doctype html") ||
         absl::StartsWithIgnoreCase(body, "<html");
}

}  // namespace

absl::StatusOr<WebText> BodyToText(std::string_view content_type, std::string_view body,
                                   const HtmlTextOptions& html_options) {
  WebText result;
  absl::string_view header = ToAbsl(content_type);
  absl::string_view media = header.substr(0, header.find(';'));
  result.media_type = absl::AsciiStrToLower(absl::StripAsciiWhitespace(media));
  std::string charset = http::HeaderParameter(content_type, "charset");

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

  if (result.html && charset.empty()) charset = http::MetaCharset(body);
  absl::StatusOr<std::string> text = http::ToUtf8(body, charset);
  if (!text.ok()) return text.status();
  result.text = result.html ? HtmlToText(*text, html_options) : *std::move(text);
  return result;
}

}  // namespace raw::tools::builtin
