// builtin/web_fetch: GETs an http(s) URL through the daemon's HttpClient and
// returns the page as text (web_content.h).
//
// Bounded on every side: the transfer has a total and an idle timeout
// (tools.web_fetch.timeout_ms), the body is cut at tools.web_fetch.max_bytes
// (the transfer is aborted there), and the text at max_output_bytes. Redirects
// are not followed: the result names the target so the model can decide to
// fetch it, with any user name and password removed (they are never
// repeated). URLs with credentials and schemes other than http(s) are refused.
// Only public addresses are connected to (http::HttpRequest::
// public_addresses_only: loopback, private, link-local and the like are
// refused on the address actually connected to) unless the agent sets
// allow_private_addresses (config::WebFetchSettings).

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/time.h"
#include "common/utf8.h"
#include "daemon/http/bounded_collector.h"
#include "daemon/http/http_client.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/builtin/string_view_bridge.h"
#include "daemon/tools/builtin/tool_args.h"
#include "daemon/tools/builtin/web_content.h"
#include "daemon/tools/builtin/web_url.h"

namespace raw::tools::builtin {
namespace {

constexpr int64_t kDefaultTimeoutMs = 30000;
constexpr int64_t kDefaultMaxBytes = 2 * 1024 * 1024;
constexpr int64_t kDefaultMaxOutputBytes = 100000;
constexpr int64_t kMaxConnectTimeoutMs = 15000;
// How much of an error page's text is quoted.
constexpr size_t kErrorExcerptBytes = 2000;

// True when `href` carries a scheme of its own ("mailto:", "data:"), which
// is not resolved against the page.
bool HasOwnScheme(std::string_view href) {
  for (size_t i = 0; i < href.size(); ++i) {
    char c = href[i];
    if (c == ':') return i > 0;
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' ||
          c == '.')) {
      return false;
    }
  }
  return false;
}

std::string CutText(std::string text, size_t limit) {
  if (text.size() <= limit) return text;
  text.resize(Utf8Floor(text, limit));
  return text;
}

// What the model learns of a redirect to `target` (resolved): the target
// without credentials, which are never repeated.
std::string RedirectMessage(int status, const std::string& url, const std::string& target) {
  ShownUrl shown = WithoutCredentials(target);
  std::string message = absl::StrCat("HTTP ", status, " redirect from ", url, " to ",
                                     shown.shown.empty() ? "a URL" : shown.shown);
  if (shown.had_credentials) {
    absl::StrAppend(&message, " (the redirect carried credentials, user:password@ before the "
                              "host; they were dropped and web_fetch never sends them)");
  }
  std::string scheme = UrlScheme(target);
  if (scheme != "http" && scheme != "https") {
    absl::StrAppend(&message, ", which is not an http(s) URL; web_fetch cannot follow it");
    return message;
  }
  absl::StrAppend(&message, ". web_fetch does not follow redirects: call it again with that "
                            "URL to fetch the target.");
  return message;
}

ToolOutput WebFetch(const Json& args, const ToolContext& ctx) {
  if (absl::Status s = CheckArgumentObject(args, {"url", "max_bytes"}); !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  absl::StatusOr<std::string> url_arg = RequiredString(args, "url");
  if (!url_arg.ok()) return ToolOutput::Error(std::string(url_arg.status().message()));
  absl::StatusOr<std::optional<int64_t>> max_bytes_arg = OptionalInteger(args, "max_bytes", 1);
  if (!max_bytes_arg.ok()) return ToolOutput::Error(std::string(max_bytes_arg.status().message()));
  absl::StatusOr<std::string> url = CheckFetchUrl(*url_arg);
  if (!url.ok()) return ToolOutput::Error(std::string(url.status().message()));
  if (ctx.http == nullptr) {
    return ToolOutput::Error("web_fetch is not available: this daemon has no HTTP client");
  }

  const config::WebFetchSettings& settings = ctx.settings.web_fetch;
  const int64_t timeout_ms = settings.timeout_ms > 0 ? settings.timeout_ms : kDefaultTimeoutMs;
  const size_t max_body =
      static_cast<size_t>(settings.max_bytes > 0 ? settings.max_bytes : kDefaultMaxBytes);
  const int64_t configured_output =
      settings.max_output_bytes > 0 ? settings.max_output_bytes : kDefaultMaxOutputBytes;
  const size_t max_output =
      static_cast<size_t>(std::min(configured_output, max_bytes_arg->value_or(configured_output)));

  http::HttpRequest request;
  request.method = "GET";
  request.url = *url;
  request.headers = {{"Accept",
                      "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,"
                      "*/*;q=0.5"}};
  request.connect_timeout_ms = std::min(timeout_ms, kMaxConnectTimeoutMs);
  request.idle_timeout_ms = timeout_ms;
  request.total_timeout_ms = timeout_ms;
  request.public_addresses_only = !settings.allow_private_addresses;
  http::BoundedCollector response(max_body);
  absl::Status sent = ctx.http->Send(request, response, ctx.cancel);
  if (ctx.cancel.cancelled() || absl::IsCancelled(sent)) {
    return ToolOutput::Cancelled("web_fetch was cancelled");
  }
  if (!sent.ok() && !(absl::IsAborted(sent) && response.stopped())) {
    if (absl::IsPermissionDenied(sent)) {
      return ToolOutput::Error(absl::StrCat(
          "fetching ", *url, " was refused: ", sent.message(),
          ". web_fetch reaches only public internet addresses, never this machine or its "
          "private networks, unless the agent's config sets \"allow_private_addresses\": true"));
    }
    if (absl::IsDeadlineExceeded(sent)) {
      return ToolOutput::Error(
          absl::StrCat("fetching ", *url, " timed out: ", sent.message()));
    }
    return ToolOutput::Error(absl::StrCat("fetching ", *url, " failed: ", sent.message()));
  }

  const int status = response.status();
  const std::string content_type = http::FindHeader(response.headers(), "Content-Type");
  if (status >= 300 && status < 400) {
    std::string location(absl::StripAsciiWhitespace(
        http::FindHeader(response.headers(), "Location")));
    if (location.empty()) {
      return ToolOutput::Error(absl::StrCat("HTTP ", status, " from ", *url,
                                            " without a Location header; nothing to fetch"));
    }
    absl::StatusOr<std::string> target = ResolveUrl(*url, location);
    if (!target.ok()) {
      ShownUrl shown = WithoutCredentials(location);
      return ToolOutput::Error(absl::StrCat(
          "HTTP ", status, " redirect from ", *url, " to an invalid location",
          shown.shown.empty() ? " (not shown: it may hold credentials)"
                              : absl::StrCat(" \"", shown.shown, "\"",
                                             shown.had_credentials ? " (credentials removed)"
                                                                   : "")));
    }
    return ToolOutput::Error(RedirectMessage(status, *url, *target));
  }

  HtmlTextOptions html_options;
  // The HTML parse gets the request's time again, the memory of
  // Raven's page check and the call's cancellation (html_text.h).
  html_options.budget.deadline_ns = SteadyNowNs() + timeout_ms * 1'000'000;
  html_options.budget.max_bytes = raven::web::ParseMemoryFor(response.body().size());
  html_options.budget.cancel = &ctx.cancel;
  html_options.link_target = [&](std::string_view href) -> std::string {
    if (HasOwnScheme(href)) {
      return absl::StartsWithIgnoreCase(ToAbsl(href), "data:") ? "" : std::string(href);
    }
    absl::StatusOr<std::string> resolved = ResolveUrl(*url, href);
    return resolved.ok() ? *resolved : std::string(href);
  };

  if (status >= 400 || status < 200) {
    absl::StatusOr<WebText> text = BodyToText(content_type, response.body(), html_options);
    std::string excerpt = text.ok() ? text->text : std::string();
    std::string message = absl::StrCat("HTTP ", status, " from ", *url);
    if (!excerpt.empty()) {
      bool longer = excerpt.size() > kErrorExcerptBytes;
      absl::StrAppend(&message, "; the response says:\n",
                      CutText(std::move(excerpt), kErrorExcerptBytes), longer ? "\n[...]" : "");
    }
    return ToolOutput::Error(std::move(message));
  }

  absl::StatusOr<WebText> text = BodyToText(content_type, response.body(), html_options);
  if (!text.ok()) {
    return ToolOutput::Error(absl::StrCat("cannot use ", *url, ": ", text.status().message()));
  }
  std::string out = absl::StrCat("HTTP ", status, " ", *url);
  if (!text->media_type.empty()) absl::StrAppend(&out, " (", text->media_type, ")");
  out += "\n\n";
  const size_t full_size = text->text.size();
  if (full_size == 0) out += "(the page has no text)";
  absl::StrAppend(&out, CutText(std::move(text->text), max_output));
  if (response.cut()) {
    absl::StrAppend(&out, "\n\n[the response was longer than ", max_body,
                    " bytes (tools.web_fetch.max_bytes); the transfer was stopped there and "
                    "only its first part is shown]");
  }
  if (full_size > max_output) {
    absl::StrAppend(&out, "\n\n[text cut at ", max_output, " of ", full_size, " bytes",
                    max_output < static_cast<size_t>(configured_output)
                        ? " (max_bytes)"
                        : " (tools.web_fetch.max_output_bytes)",
                    "]");
  }
  return ToolOutput::Ok(std::move(out));
}

}  // namespace

ToolSpec MakeWebFetchTool() {
  ToolSpec spec;
  spec.qualified_name = "builtin/web_fetch";
  spec.model_name = "web_fetch";
  spec.description =
      "Fetch a web page or file over HTTP(S) with a GET request and return it as text. HTML is "
      "reduced to readable text (headings marked with '#', list items with '- ', links as "
      "`text (url)`); plain text, JSON and other text formats are returned as they are; "
      "binary content (images, PDFs, archives) is refused. The result starts with the HTTP "
      "status and the URL. Redirects are not followed: the error names the target URL, which "
      "you may fetch next. HTTP errors (4xx, 5xx) are errors quoting the start of the "
      "response. Long pages are cut at the configured size limits and say so. URLs with "
      "credentials (user:password@) are refused.";
  spec.input_schema = OrderedJson{
      {"type", "object"},
      {"properties",
       {{"url",
         {{"type", "string"},
          {"description", "Absolute http:// or https:// URL to fetch."}}},
        {"max_bytes",
         {{"type", "integer"},
          {"minimum", 1},
          {"description", "Most bytes of text to return; lower than the configured limit to "
                          "keep the result short. Default: the configured limit."}}}}},
      {"required", {"url"}},
      {"additionalProperties", false}};
  // Not read-only in the rules' sense: the URL itself carries data out of
  // the machine, so a fetch asks unless a url rule allows it.
  spec.read_only = false;
  spec.rule_subject = RuleSubject::kUrl;
  spec.rule_argument = "url";
  spec.handler = WebFetch;
  return spec;
}

}  // namespace raw::tools::builtin
