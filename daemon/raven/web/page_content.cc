#include "daemon/raven/web/page_content.h"

#include <algorithm>
#include <initializer_list>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/utf8.h"
#include "daemon/http/charset.h"

namespace raw::raven::web {
namespace {

// A page whose text is shorter than this is a wall rather than an article
// when it speaks of consent or subscriptions.
constexpr size_t kWallTextBytes = 3000;
// How much of the raw HTML is searched for challenge and paywall markers.
constexpr size_t kMarkerWindow = 256 * 1024;

bool LooksLikeHtml(std::string_view body) {
  std::string head = absl::AsciiStrToLower(
      absl::StripLeadingAsciiWhitespace(absl::string_view(body.data(), std::min<size_t>(body.size(), 512))));
  return absl::StartsWith(head, "<!doctype html") || absl::StartsWith(head, "<html") ||
         absl::StartsWith(head, "<head") || absl::StartsWith(head, "<body");
}

bool ContainsAny(std::string_view haystack, std::initializer_list<const char*> needles) {
  absl::string_view h(haystack.data(), haystack.size());
  for (const char* n : needles) {
    if (absl::StrContains(h, n)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<PageContent> DecodePage(std::string_view content_type, std::string_view body,
                                       const ParseBudget& budget) {
  PageContent out;
  absl::string_view header(content_type.data(), content_type.size());
  out.media_type = absl::AsciiStrToLower(absl::StripAsciiWhitespace(header.substr(0, header.find(';'))));
  if (body.size() >= 5 && body.substr(0, 5) == "%PDF-") {
    out.media_type = "application/pdf";
  }
  bool html = out.media_type == "text/html" || out.media_type == "application/xhtml+xml" ||
              (out.media_type.empty() && LooksLikeHtml(body));
  bool text = !html && (absl::StartsWith(out.media_type, "text/") ||
                        (out.media_type.empty() && !LooksBinary(body)));
  if (out.media_type == "application/pdf") {
    return absl::UnimplementedError(
        "the Source is a PDF, and this build of rawd cannot extract PDF text");
  }
  if (!html && !text) {
    return absl::UnimplementedError(absl::StrCat(
        "the Source is ", out.media_type.empty() ? "binary data" : out.media_type,
        ", which has no text to match the excerpt against"));
  }
  // A byte-order mark overrides any declaration and is not text; a
  // declared UTF-16 without one has no prefix to drop.
  std::string charset = http::BomCharset(body);
  if (charset == "utf-16le" || charset == "utf-16be") {
    body.remove_prefix(std::min<size_t>(2, body.size()));
  }
  if (charset.empty()) charset = http::HeaderParameter(content_type, "charset");
  if (charset.empty() && html) charset = http::MetaCharset(body);
  absl::StatusOr<std::string> utf8 = http::ToUtf8(body, charset);
  if (!utf8.ok()) return utf8.status();
  if (!html) {
    out.text.text = *std::move(utf8);
    out.text.segments.push_back({0, 0});
    return out;
  }
  absl::StatusOr<PageText> page = ExtractPageText(*utf8, budget);
  if (!page.ok()) return page.status();
  out.text = *std::move(page);
  return out;
}

std::optional<std::string> BlockReason(int status, std::string_view raw_html,
                                       std::string_view text) {
  switch (status) {
    case 401: case 407:
      return absl::StrCat("the server asks for a login (HTTP ", status, ")");
    case 402:
      return "the server asks for payment (HTTP 402)";
    case 403:
      return "the server refused access (HTTP 403), typically a bot or region block";
    case 429:
      return "the server is rate-limiting requests (HTTP 429)";
    case 451:
      return "the page is withheld for legal reasons (HTTP 451)";
    default:
      break;
  }
  std::string html = absl::AsciiStrToLower(
      absl::string_view(raw_html.data(), std::min(raw_html.size(), kMarkerWindow)));
  if (ContainsAny(html, {"cf-chl", "challenge-platform", "<title>just a moment",
                         "attention required! | cloudflare", "g-recaptcha", "h-captcha",
                         "hcaptcha.com", "cf-turnstile", "captcha-delivery"})) {
    return "the server answered with a bot challenge (captcha) instead of the page";
  }
  std::string compact = html;
  compact.erase(std::remove_if(compact.begin(), compact.end(),
                               [](char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); }),
                compact.end());
  if (absl::StrContains(compact, "\"isaccessibleforfree\":false") ||
      absl::StrContains(compact, "\"isaccessibleforfree\":\"false\"")) {
    return "the page is behind a paywall (its metadata says it is not accessible for free)";
  }
  std::string lower_text =
      absl::AsciiStrToLower(absl::string_view(text.data(), std::min(text.size(), kMarkerWindow)));
  if (text.size() < kWallTextBytes) {
    if (ContainsAny(lower_text, {"cookie", "consent", "your privacy choices",
                                 "manage preferences", "accept all"})) {
      return "the server answered with a cookie or consent wall instead of the page";
    }
    if (ContainsAny(lower_text, {"subscribe to continue", "subscribe to read",
                                 "to continue reading", "already a subscriber",
                                 "this content is for subscribers"})) {
      return "the page is behind a paywall (only a teaser was served)";
    }
    if (ContainsAny(lower_text, {"sign in to continue", "log in to continue",
                                 "please log in", "please sign in"})) {
      return "the server answered with a login wall instead of the page";
    }
  }
  return std::nullopt;
}

}  // namespace raw::raven::web
