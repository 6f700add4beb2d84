#include "daemon/providers/google/error_classifier.h"

#include <cmath>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "daemon/providers/http_status_verdict.h"
#include "daemon/providers/error_body.h"

namespace raw::providers::google {
namespace {

absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// The parts of a google.rpc.Status that classification looks at.
struct RpcStatus {
  int code = 0;
  std::string message;
  std::string status;  // "RESOURCE_EXHAUSTED", ...
  std::string reason;  // ErrorInfo.reason
  std::optional<int64_t> retry_delay_ms;
  bool per_day_quota = false;
};

std::string StringAt(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

void ReadDetails(const Json& details, RpcStatus* out) {
  if (!details.is_array()) return;
  for (const Json& detail : details) {
    if (!detail.is_object()) continue;
    std::string type = StringAt(detail, "@type");
    if (absl::EndsWith(type, "google.rpc.RetryInfo")) {
      out->retry_delay_ms = ParseDurationMs(StringAt(detail, "retryDelay"));
    } else if (absl::EndsWith(type, "google.rpc.ErrorInfo")) {
      out->reason = StringAt(detail, "reason");
    } else if (absl::EndsWith(type, "google.rpc.QuotaFailure")) {
      auto violations = detail.find("violations");
      if (violations == detail.end() || !violations->is_array()) continue;
      for (const Json& violation : *violations) {
        if (!violation.is_object()) continue;
        if (absl::StrContains(StringAt(violation, "quotaId"), "PerDay")) out->per_day_quota = true;
      }
    }
  }
}

// A google.rpc.Status from an error body or stream chunk; nullopt when the
// value has no such shape.
std::optional<RpcStatus> ExtractStatus(const Json& value) {
  const Json* doc = &value;
  if (doc->is_array()) {
    if (doc->empty()) return std::nullopt;
    doc = &(*doc)[0];
  }
  if (!doc->is_object()) return std::nullopt;
  auto error = doc->find("error");
  if (error != doc->end() && error->is_object()) doc = &*error;
  RpcStatus out;
  auto code = doc->find("code");
  if (code != doc->end() && code->is_number_integer()) out.code = code->get<int>();
  out.message = StringAt(*doc, "message");
  out.status = StringAt(*doc, "status");
  if (out.code == 0 && out.message.empty() && out.status.empty()) return std::nullopt;
  auto details = doc->find("details");
  if (details != doc->end()) ReadDetails(*details, &out);
  return out;
}

// The HTTP status google.rpc uses for a canonical code name.
int CodeOfStatus(std::string_view status) {
  struct Entry {
    const char* name;
    int code;
  };
  static constexpr Entry kCodes[] = {
      {"INVALID_ARGUMENT", 400}, {"FAILED_PRECONDITION", 400}, {"OUT_OF_RANGE", 400},
      {"UNAUTHENTICATED", 401},  {"PERMISSION_DENIED", 403},   {"NOT_FOUND", 404},
      {"ABORTED", 409},          {"ALREADY_EXISTS", 409},      {"RESOURCE_EXHAUSTED", 429},
      {"CANCELLED", 499},        {"INTERNAL", 500},            {"UNKNOWN", 500},
      {"DATA_LOSS", 500},        {"UNIMPLEMENTED", 501},       {"UNAVAILABLE", 503},
      {"DEADLINE_EXCEEDED", 504},
  };
  for (const Entry& entry : kCodes) {
    if (status == entry.name) return entry.code;
  }
  return 0;
}

bool IsContextOverflow(const std::string& message) {
  std::string m = absl::AsciiStrToLower(message);
  return (absl::StrContains(m, "input token count") && absl::StrContains(m, "exceed")) ||
         absl::StrContains(m, "exceeds the maximum number of tokens") ||
         absl::StrContains(m, "context window") || absl::StrContains(m, "context length");
}

Verdict Classify(int code, const RpcStatus& s) {
  if (code == 0) code = CodeOfStatus(s.status);
  if (s.reason == "API_KEY_INVALID") return {ErrorKind::kAuth, false};
  if (code == 400 || code == 413 || code == 422) {
    if (IsContextOverflow(s.message)) return {ErrorKind::kContextOverflow, false};
    if (s.status == "FAILED_PRECONDITION" &&
        absl::StrContains(absl::AsciiStrToLower(s.message), "billing")) {
      return {ErrorKind::kBilling, false};
    }
  }
  // A per-day quota does not clear by retrying within the turn.
  if (code == 429) return {ErrorKind::kRateLimited, !s.per_day_quota};
  // No code and no known status: the server failed without saying how.
  if (code == 0) return {ErrorKind::kServer, true};
  Verdict verdict = VerdictForStatus(code);
  if (verdict.kind == ErrorKind::kServer && code >= 500 && s.status == "UNAVAILABLE") {
    return {ErrorKind::kOverloaded, true};
  }
  if (verdict.kind == ErrorKind::kUnknown) return {ErrorKind::kInvalidRequest, false};
  return verdict;
}

ErrorEvent FromStatus(int code, const RpcStatus& s) {
  Verdict verdict = Classify(code, s);
  ErrorEvent event;
  event.kind = verdict.kind;
  event.retryable = verdict.retryable;
  event.provider_code = s.status;
  event.provider_type = s.reason;
  event.retry_after_ms = s.retry_delay_ms;
  return event;
}

}  // namespace

std::optional<int64_t> ParseDurationMs(std::string_view duration) {
  absl::string_view text = absl::StripAsciiWhitespace(ToAbsl(duration));
  if (!absl::ConsumeSuffix(&text, "s")) return std::nullopt;
  double seconds = 0;
  if (!absl::SimpleAtod(text, &seconds) || !std::isfinite(seconds) || seconds < 0) {
    return std::nullopt;
  }
  return error_body::DelayMs(seconds * 1000);
}

ErrorEvent ClassifyHttpError(int status, const http::Headers& headers, std::string_view body,
                             absl::Time now) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(ToAbsl(body));
  std::optional<RpcStatus> rpc;
  if (!trimmed.empty() && (trimmed[0] == '{' || trimmed[0] == '[')) {
    absl::StatusOr<Json> parsed = ParseJson(std::string_view(trimmed.data(), trimmed.size()));
    if (parsed.ok()) rpc = ExtractStatus(*parsed);
  }
  // Only a google.rpc.Status (it has "status" or a numeric code) is read
  // here; any other shape goes to the generic classifier.
  if (!rpc.has_value() || (rpc->status.empty() && rpc->code == 0)) {
    return error_body::ClassifyHttpError(status, headers, body, now);
  }
  ErrorEvent event = FromStatus(status, *rpc);
  event.http_status = status;
  if (std::optional<int64_t> header_hint = error_body::RetryAfterMs(headers, now)) {
    event.retry_after_ms = header_hint;
  }
  event.request_id = http::FindHeader(headers, "x-request-id");
  std::string detail = !rpc->message.empty() ? rpc->message : rpc->status;
  event.message = absl::StrCat("HTTP ", status, ": ", detail);
  ApplyShouldRetry(headers, &event);
  return event;
}

ErrorEvent ClassifyStreamError(const Json& error) {
  std::optional<RpcStatus> rpc = ExtractStatus(error);
  if (!rpc.has_value()) {
    ErrorEvent event;
    event.kind = ErrorKind::kServer;
    event.retryable = true;
    event.message = error.is_string() && !error.get_ref<const std::string&>().empty()
                        ? error.get<std::string>()
                        : "the server reported an error in the stream without a message";
    return event;
  }
  ErrorEvent event = FromStatus(rpc->code, *rpc);
  if (!rpc->message.empty()) {
    event.message = rpc->message;
  } else if (!rpc->status.empty()) {
    event.message = absl::StrCat("the server reported ", rpc->status, " in the stream");
  } else {
    event.message = absl::StrCat("the server reported error code ", rpc->code, " in the stream");
  }
  return event;
}

}  // namespace raw::providers::google
