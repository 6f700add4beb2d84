#include "daemon/providers/error_body.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "daemon/providers/http_status_verdict.h"

namespace raw::providers::error_body {
namespace {

constexpr size_t kMaxBodyTextInMessage = 300;

// This absl build has its own string_view type.
absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// The parts of an error body that classification looks at.
struct ErrorFields {
  std::string message;
  std::string type;         // error.type, else error.status (Google-style)
  std::string code;         // error.code as text
  std::string detail_code;  // error.details.error_code (spend limits)
  std::string request_id;   // body-level request_id
};

std::string StringField(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer() || it->is_number_unsigned()) return it->dump();
  return "";
}

// Fills `fields` from an error object ({"message","type","code",...}) or
// from a document holding one under "error". Returns false when `value`
// has no recognisable error shape.
bool ExtractFields(const Json& value, ErrorFields* fields) {
  const Json* doc = &value;
  if (doc->is_array()) {
    if (doc->empty()) return false;
    doc = &(*doc)[0];
  }
  if (!doc->is_object()) return false;
  if (fields->request_id.empty()) fields->request_id = StringField(*doc, "request_id");
  auto err = doc->find("error");
  if (err != doc->end()) {
    if (err->is_string()) {
      fields->message = err->get<std::string>();
      return true;
    }
    if (err->is_object()) doc = &*err;
  }
  fields->message = StringField(*doc, "message");
  fields->type = StringField(*doc, "type");
  if (fields->type.empty() || fields->type == "error") fields->type = StringField(*doc, "status");
  fields->code = StringField(*doc, "code");
  auto details = doc->find("details");
  if (details != doc->end() && details->is_object()) {
    fields->detail_code = StringField(*details, "error_code");
  }
  return !fields->message.empty() || !fields->type.empty() || !fields->code.empty();
}

bool AnyOf(const ErrorFields& f, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (f.type == name || f.code == name || f.detail_code == name) return true;
  }
  return false;
}

bool IsBilling(const ErrorFields& f) {
  return AnyOf(f, {"insufficient_quota", "credit_balance_exhausted", "billing_hard_limit_reached",
                   "billing_not_active", "enforced_spend_limit_reached", "insufficient_balance",
                   "billing_error", "spend_limit_reached"});
}

bool IsContextOverflow(const ErrorFields& f) {
  if (AnyOf(f, {"context_length_exceeded", "string_above_max_length"})) return true;
  std::string m = absl::AsciiStrToLower(f.message);
  return absl::StrContains(m, "context length") || absl::StrContains(m, "context window") ||
         absl::StrContains(m, "context size") || absl::StrContains(m, "prompt is too long") ||
         (absl::StrContains(m, "input token count") && absl::StrContains(m, "exceed"));
}

bool IsContentPolicy(const ErrorFields& f) {
  return AnyOf(f, {"content_policy_violation", "content_filter", "invalid_prompt"});
}

bool IsOverloaded(const ErrorFields& f) {
  return AnyOf(f, {"overloaded_error", "server_is_overloaded", "slow_down", "overloaded",
                   "UNAVAILABLE"});
}

Verdict ClassifyStatus(int status, const ErrorFields& f) {
  if (IsBilling(f)) return {ErrorKind::kBilling, false};
  if (status == 400 || status == 413 || status == 422) {
    if (IsContextOverflow(f)) return {ErrorKind::kContextOverflow, false};
    if (IsContentPolicy(f)) return {ErrorKind::kContentPolicy, false};
  }
  Verdict verdict = VerdictForStatus(status);
  if (verdict.kind == ErrorKind::kServer && status >= 500 && IsOverloaded(f)) {
    return {ErrorKind::kOverloaded, true};
  }
  return verdict;
}

Verdict ClassifyInStream(const ErrorFields& f) {
  if (IsBilling(f)) return {ErrorKind::kBilling, false};
  if (IsContextOverflow(f)) return {ErrorKind::kContextOverflow, false};
  if (IsContentPolicy(f)) return {ErrorKind::kContentPolicy, false};
  if (IsOverloaded(f)) return {ErrorKind::kOverloaded, true};
  if (AnyOf(f, {"rate_limit_exceeded", "rate_limit_error", "requests", "tokens"})) {
    return {ErrorKind::kRateLimited, true};
  }
  if (AnyOf(f, {"timeout_error", "timeout"})) return {ErrorKind::kTimeout, true};
  if (AnyOf(f, {"invalid_request_error", "invalid_argument", "INVALID_ARGUMENT"})) {
    return {ErrorKind::kInvalidRequest, false};
  }
  if (AnyOf(f, {"authentication_error", "invalid_api_key"})) return {ErrorKind::kAuth, false};
  if (AnyOf(f, {"permission_error"})) return {ErrorKind::kPermission, false};
  return {ErrorKind::kServer, true};
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 529: return "Overloaded";
    default: return "error response";
  }
}

// Cuts `text` to at most `max` bytes without splitting a UTF-8 sequence.
std::string Truncate(std::string text, size_t max) {
  if (text.size() <= max) return text;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  text += "...";
  return text;
}

// What a redirect asks for: Raw follows none (the API key would go with the
// request to wherever the server points), so the user is told where it
// pointed and what to change. `location` comes from the server: only its
// printable ASCII is shown, cut short.
std::string RedirectDetail(std::string_view location, const std::string& body_detail) {
  std::string shown;
  for (char c : location) {
    if (c > ' ' && c < 0x7f) shown.push_back(c);
  }
  shown = Truncate(std::move(shown), 200);
  std::string detail = shown.empty() ? "the server redirected the request"
                                     : absl::StrCat("the server redirected the request to ", shown);
  absl::StrAppend(&detail,
                  "; Raw follows no redirect from a model provider (the API key would go with it), "
                  "so set the model's base_url to the address the provider documents");
  if (!body_detail.empty()) absl::StrAppend(&detail, " (", body_detail, ")");
  return detail;
}

// Readable text of a non-JSON body: an HTML page's <title>, else its text
// with tags removed; whitespace collapsed.
std::string BodyText(std::string_view body) {
  std::string lower = absl::AsciiStrToLower(ToAbsl(body));
  size_t title = lower.find("<title>");
  if (title != std::string::npos) {
    size_t end = lower.find("</title>", title);
    if (end != std::string::npos) {
      body = body.substr(title + 7, end - title - 7);
    }
  }
  std::string out;
  bool in_tag = false;
  bool space = false;
  for (char c : body) {
    if (c == '<') {
      in_tag = true;
      space = true;
      continue;
    }
    if (c == '>' && in_tag) {
      in_tag = false;
      continue;
    }
    if (in_tag) continue;
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return Truncate(std::move(out), kMaxBodyTextInMessage);
}

std::optional<int64_t> ParseHttpDateDelay(std::string_view value, absl::Time now) {
  absl::string_view text = absl::StripAsciiWhitespace(ToAbsl(value));
  if (!absl::ConsumeSuffix(&text, " GMT")) absl::ConsumeSuffix(&text, " UTC");
  absl::Time when;
  std::string err;
  if (!absl::ParseTime("%a, %d %b %Y %H:%M:%S", text, absl::UTCTimeZone(), &when, &err)) {
    return std::nullopt;
  }
  int64_t ms = absl::ToInt64Milliseconds(when - now);
  if (ms < 0) return std::nullopt;
  return ms;
}

}  // namespace

int64_t DelayMs(double ms) { return static_cast<int64_t>(std::llround(std::min(ms, 1e15))); }

std::optional<int64_t> RetryAfterMs(const http::Headers& headers, absl::Time now) {
  std::string ms_text = http::FindHeader(headers, "retry-after-ms");
  double value = 0;
  if (!ms_text.empty() && absl::SimpleAtod(absl::StripAsciiWhitespace(ms_text), &value) &&
      std::isfinite(value) && value >= 0) {
    return DelayMs(value);
  }
  std::string after = http::FindHeader(headers, "retry-after");
  if (after.empty()) return std::nullopt;
  if (absl::SimpleAtod(absl::StripAsciiWhitespace(after), &value)) {
    if (!std::isfinite(value) || value < 0) return std::nullopt;
    return DelayMs(value * 1000);
  }
  return ParseHttpDateDelay(after, now);
}

ErrorEvent ClassifyHttpError(int status, const http::Headers& headers, std::string_view body,
                             absl::Time now) {
  ErrorFields fields;
  bool structured = false;
  absl::string_view stripped = absl::StripAsciiWhitespace(ToAbsl(body));
  std::string_view trimmed(stripped.data(), stripped.size());
  if (!trimmed.empty() && (trimmed[0] == '{' || trimmed[0] == '[')) {
    absl::StatusOr<Json> parsed = ParseJson(trimmed);
    if (parsed.ok()) structured = ExtractFields(*parsed, &fields);
  }
  Verdict verdict = ClassifyStatus(status, fields);

  ErrorEvent event;
  event.kind = verdict.kind;
  event.retryable = verdict.retryable;
  event.http_status = status;
  event.provider_type = fields.type;
  event.provider_code = fields.code;
  event.retry_after_ms = RetryAfterMs(headers, now);
  event.request_id = http::FindHeader(headers, "x-request-id");
  if (event.request_id.empty()) event.request_id = http::FindHeader(headers, "request-id");
  if (event.request_id.empty()) event.request_id = fields.request_id;

  std::string detail;
  if (structured && !fields.message.empty()) {
    detail = fields.message;
  } else if (!trimmed.empty() && !structured) {
    detail = BodyText(trimmed);
  }
  if (status >= 300 && status < 400) {
    detail = RedirectDetail(http::FindHeader(headers, "location"), detail);
  }
  if (detail.empty()) detail = ReasonPhrase(status);
  event.message = absl::StrCat("HTTP ", status, ": ", detail);

  ApplyShouldRetry(headers, &event);
  return event;
}

ErrorEvent ClassifyStreamError(const Json& error) {
  ErrorFields fields;
  bool structured = ExtractFields(error, &fields);
  Verdict verdict = ClassifyInStream(fields);
  ErrorEvent event;
  event.kind = verdict.kind;
  event.retryable = verdict.retryable;
  event.provider_type = fields.type;
  event.provider_code = fields.code;
  event.request_id = fields.request_id;
  if (!fields.message.empty()) {
    event.message = fields.message;
  } else if (!structured && error.is_string() && !error.get_ref<const std::string&>().empty()) {
    event.message = error.get<std::string>();
  } else {
    event.message = "the server reported an error in the stream without a message";
  }
  return event;
}

}  // namespace raw::providers::error_body
