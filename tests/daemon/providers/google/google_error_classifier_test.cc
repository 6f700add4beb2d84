// Gemini error classification: the http/* error rows of the fixture table
// that apply to this API, google.rpc.Status details, and stream errors.
#include "daemon/providers/google/error_classifier.h"

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace raw::providers::google {
namespace {

Json J(std::string_view text) {
  absl::StatusOr<Json> parsed = ParseJson(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : Json();
}

const absl::Time kNow = absl::FromUnixSeconds(1700000000);

constexpr char kQuotaBody[] =
    R"({"error":{"code":429,"message":"You exceeded your current quota, please check your plan.",)"
    R"("status":"RESOURCE_EXHAUSTED","details":[)"
    R"({"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[)"
    R"({"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},)"
    R"({"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34.4s"}]}})";

TEST(GoogleErrorClassifierTest, RateLimitWithRetryInfo) {
  ErrorEvent e = ClassifyHttpError(429, {{"content-type", "application/json"}}, kQuotaBody, kNow);
  EXPECT_EQ(e.kind, ErrorKind::kRateLimited);
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.retry_after_ms, 34400);
  EXPECT_EQ(e.http_status, 429);
  EXPECT_FALSE(e.after_output);
  EXPECT_EQ(e.provider_code, "RESOURCE_EXHAUSTED");
  EXPECT_EQ(e.message, "HTTP 429: You exceeded your current quota, please check your plan.");
}

TEST(GoogleErrorClassifierTest, RetryAfterHeaderWinsOverRetryInfo) {
  ErrorEvent e = ClassifyHttpError(429, {{"retry-after", "2"}}, kQuotaBody, kNow);
  EXPECT_EQ(e.retry_after_ms, 2000);
}

TEST(GoogleErrorClassifierTest, PerDayQuotaIsNotRetryable) {
  std::string body =
      R"({"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[)"
      R"({"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[)"
      R"({"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}})";
  ErrorEvent e = ClassifyHttpError(429, {}, body, kNow);
  EXPECT_EQ(e.kind, ErrorKind::kRateLimited);
  EXPECT_FALSE(e.retryable);
}

TEST(GoogleErrorClassifierTest, ArrayWrappedOverloaded) {
  ErrorEvent e = ClassifyHttpError(
      503, {},
      R"([{"error":{"code":503,"message":"The model is overloaded. Please try again later.",)"
      R"("status":"UNAVAILABLE"}}])",
      kNow);
  EXPECT_EQ(e.kind, ErrorKind::kOverloaded);
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.provider_code, "UNAVAILABLE");
  EXPECT_EQ(e.message, "HTTP 503: The model is overloaded. Please try again later.");
}

TEST(GoogleErrorClassifierTest, HtmlFromAProxy) {
  ErrorEvent e =
      ClassifyHttpError(502, {{"content-type", "text/html"}}, "<html>Bad gateway</html>", kNow);
  EXPECT_EQ(e.kind, ErrorKind::kServer);
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message, "HTTP 502: Bad gateway");
}

TEST(GoogleErrorClassifierTest, ShouldRetryHeaderWins) {
  ErrorEvent e = ClassifyHttpError(
      500, {{"x-should-retry", "false"}},
      R"({"error":{"code":500,"message":"boom","status":"INTERNAL"}})", kNow);
  EXPECT_EQ(e.kind, ErrorKind::kServer);
  EXPECT_FALSE(e.retryable);
}

TEST(GoogleErrorClassifierTest, ContextOverflow) {
  ErrorEvent e = ClassifyHttpError(
      400, {},
      R"({"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum )"
      R"(number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}})",
      kNow);
  EXPECT_EQ(e.kind, ErrorKind::kContextOverflow);
  EXPECT_FALSE(e.retryable);
}

TEST(GoogleErrorClassifierTest, InvalidApiKeyIsAuthEvenAs400) {
  ErrorEvent e = ClassifyHttpError(
      400, {},
      R"({"error":{"code":400,"message":"API key not valid. Please pass a valid API key.",)"
      R"("status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo",)"
      R"("reason":"API_KEY_INVALID","domain":"googleapis.com"}]}})",
      kNow);
  EXPECT_EQ(e.kind, ErrorKind::kAuth);
  EXPECT_FALSE(e.retryable);
  EXPECT_EQ(e.provider_type, "API_KEY_INVALID");
  EXPECT_EQ(e.message, "HTTP 400: API key not valid. Please pass a valid API key.");
}

TEST(GoogleErrorClassifierTest, StatusRows) {
  struct Row {
    int status;
    const char* name;
    ErrorKind kind;
    bool retryable;
  };
  for (const Row& row : {Row{400, "INVALID_ARGUMENT", ErrorKind::kInvalidRequest, false},
                         Row{403, "PERMISSION_DENIED", ErrorKind::kPermission, false},
                         Row{404, "NOT_FOUND", ErrorKind::kNotFound, false},
                         Row{500, "INTERNAL", ErrorKind::kServer, true},
                         Row{504, "DEADLINE_EXCEEDED", ErrorKind::kTimeout, true}}) {
    std::string body = std::string(R"({"error":{"code":)") + std::to_string(row.status) +
                       R"(,"message":"m","status":")" + row.name + R"("}})";
    ErrorEvent e = ClassifyHttpError(row.status, {}, body, kNow);
    EXPECT_EQ(e.kind, row.kind) << row.name;
    EXPECT_EQ(e.retryable, row.retryable) << row.name;
    EXPECT_EQ(e.message, absl::StrCat("HTTP ", row.status, ": m"));
  }
}

TEST(GoogleErrorClassifierTest, EmptyBodyNamesTheStatus) {
  ErrorEvent e = ClassifyHttpError(503, {}, "", kNow);
  EXPECT_EQ(e.kind, ErrorKind::kOverloaded);
  EXPECT_EQ(e.message, "HTTP 503: Service Unavailable");
}

TEST(GoogleErrorClassifierTest, StreamErrors) {
  ErrorEvent overloaded = ClassifyStreamError(
      J(R"({"code":503,"message":"busy","status":"UNAVAILABLE"})"));
  EXPECT_EQ(overloaded.kind, ErrorKind::kOverloaded);
  EXPECT_TRUE(overloaded.retryable);
  EXPECT_EQ(overloaded.http_status, 0);
  EXPECT_EQ(overloaded.message, "busy");

  ErrorEvent limited = ClassifyStreamError(J(R"({"code":429,"message":"slow"})"));
  EXPECT_EQ(limited.kind, ErrorKind::kRateLimited);
  EXPECT_TRUE(limited.retryable);

  ErrorEvent invalid =
      ClassifyStreamError(J(R"({"message":"bad","status":"INVALID_ARGUMENT"})"));
  EXPECT_EQ(invalid.kind, ErrorKind::kInvalidRequest);
  EXPECT_FALSE(invalid.retryable);

  ErrorEvent shapeless = ClassifyStreamError(J(R"({"odd":true})"));
  EXPECT_EQ(shapeless.kind, ErrorKind::kServer);
  EXPECT_TRUE(shapeless.retryable);
  EXPECT_FALSE(shapeless.message.empty());
}

TEST(GoogleErrorClassifierTest, Durations) {
  EXPECT_EQ(ParseDurationMs("34.4s"), 34400);
  EXPECT_EQ(ParseDurationMs("2s"), 2000);
  EXPECT_EQ(ParseDurationMs("0.001s"), 1);
  EXPECT_EQ(ParseDurationMs("1e17s"), 1'000'000'000'000'000);
  EXPECT_EQ(ParseDurationMs("34.4"), std::nullopt);
  EXPECT_EQ(ParseDurationMs("-1s"), std::nullopt);
  EXPECT_EQ(ParseDurationMs("xs"), std::nullopt);
}

}  // namespace
}  // namespace raw::providers::google
