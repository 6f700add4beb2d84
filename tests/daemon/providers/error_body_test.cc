#include "daemon/providers/error_body.h"

#include <string>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::providers::error_body {
namespace {

using ::testing::HasSubstr;

// 2015-10-21 07:28:00 UTC, a fixed "now" for HTTP-date hints.
absl::Time Now() { return absl::FromUnixSeconds(1445412480); }

ErrorEvent Classify(int status, http::Headers headers, const std::string& body) {
  return ClassifyHttpError(status, headers, body, Now());
}

// The canonical HTTP error responses (rate limit with retry-after, quota,
// overload, context overflow, array-wrapped body, proxy HTML, x-should-retry).
TEST(OpenAiChatErrorClassifierTest, RateLimitWithRetryAfter) {
  ErrorEvent e = Classify(
      429, {{"retry-after", "2"}, {"content-type", "application/json"}},
      R"({"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}})");
  EXPECT_EQ(e.kind, ErrorKind::kRateLimited);
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.retry_after_ms, 2000);
  EXPECT_FALSE(e.after_output);
  EXPECT_EQ(e.http_status, 429);
  EXPECT_EQ(e.provider_type, "requests");
  EXPECT_EQ(e.provider_code, "rate_limit_exceeded");
  EXPECT_EQ(e.message, "HTTP 429: Rate limit reached");
}

TEST(OpenAiChatErrorClassifierTest, QuotaIsBillingAndFinal) {
  ErrorEvent e = Classify(
      429, {},
      R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})");
  EXPECT_EQ(e.kind, ErrorKind::kBilling);
  EXPECT_FALSE(e.retryable);
  EXPECT_EQ(e.retry_after_ms, std::nullopt);
  EXPECT_EQ(e.message, "HTTP 429: You exceeded your current quota");
}

TEST(OpenAiChatErrorClassifierTest, OverloadedWithRequestIdHeader) {
  ErrorEvent e = Classify(
      529, {{"request-id", "req_T"}},
      R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_T"})");
  EXPECT_EQ(e.kind, ErrorKind::kOverloaded);
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.request_id, "req_T");
  EXPECT_EQ(e.provider_type, "overloaded_error");
}

TEST(OpenAiChatErrorClassifierTest, ContextOverflow) {
  ErrorEvent anthropic_shape = Classify(
      400, {},
      R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"},"request_id":"req_U"})");
  EXPECT_EQ(anthropic_shape.kind, ErrorKind::kContextOverflow);
  EXPECT_FALSE(anthropic_shape.retryable);
  EXPECT_EQ(anthropic_shape.request_id, "req_U");

  ErrorEvent openai_shape = Classify(
      400, {{"x-request-id", "req_1"}},
      R"({"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})");
  EXPECT_EQ(openai_shape.kind, ErrorKind::kContextOverflow);
  EXPECT_EQ(openai_shape.request_id, "req_1");

  ErrorEvent llama = Classify(
      400, {}, R"({"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}})");
  EXPECT_EQ(llama.kind, ErrorKind::kContextOverflow);
  EXPECT_EQ(llama.provider_code, "400");

  ErrorEvent other = Classify(400, {}, R"({"error":{"message":"Unknown parameter: 'foo'.","type":"invalid_request_error"}})");
  EXPECT_EQ(other.kind, ErrorKind::kInvalidRequest);
  EXPECT_FALSE(other.retryable);
}

TEST(OpenAiChatErrorClassifierTest, ArrayWrappedBody) {
  ErrorEvent e = Classify(
      503, {},
      R"([{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}])");
  EXPECT_EQ(e.kind, ErrorKind::kOverloaded);
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message, "HTTP 503: The model is overloaded. Please try again later.");
  EXPECT_EQ(e.provider_type, "UNAVAILABLE");
}

TEST(OpenAiChatErrorClassifierTest, HtmlBodyFromAProxy) {
  ErrorEvent e = Classify(502, {{"content-type", "text/html"}}, "<html>Bad gateway</html>");
  EXPECT_EQ(e.kind, ErrorKind::kServer);
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message, "HTTP 502: Bad gateway");

  ErrorEvent page = Classify(
      504, {}, "<!DOCTYPE html>\n<html><head><title>504 Gateway Time-out</title></head>"
               "<body><h1>cloudflare</h1></body></html>");
  EXPECT_EQ(page.kind, ErrorKind::kTimeout);
  EXPECT_EQ(page.message, "HTTP 504: 504 Gateway Time-out");
}

TEST(OpenAiChatErrorClassifierTest, ShouldRetryHeaderWins) {
  ErrorEvent e = Classify(500, {{"x-should-retry", "false"}},
                          R"({"error":{"message":"boom","type":"server_error","param":null,"code":null}})");
  EXPECT_EQ(e.kind, ErrorKind::kServer);
  EXPECT_FALSE(e.retryable);
  EXPECT_EQ(e.message, "HTTP 500: boom");

  ErrorEvent forced = Classify(400, {{"X-Should-Retry", "true"}}, "{}");
  EXPECT_EQ(forced.kind, ErrorKind::kInvalidRequest);
  EXPECT_TRUE(forced.retryable);
}

TEST(OpenAiChatErrorClassifierTest, StatusTable) {
  struct Row {
    int status;
    std::string body;
    ErrorKind kind;
    bool retryable;
  };
  const Row rows[] = {
      {401, R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}})",
       ErrorKind::kAuth, false},
      {402, R"({"error":{"message":"Insufficient Balance","type":"unknown_error"}})",
       ErrorKind::kBilling, false},
      {403, R"({"error":{"message":"Country not supported"}})", ErrorKind::kPermission, false},
      {404, R"({"error":{"message":"model 'x' not found"}})", ErrorKind::kNotFound, false},
      {408, "", ErrorKind::kTimeout, true},
      {409, "", ErrorKind::kServer, true},
      {413, "", ErrorKind::kInvalidRequest, false},
      {422, R"({"error":{"message":"Invalid format"}})", ErrorKind::kInvalidRequest, false},
      {418, "", ErrorKind::kInvalidRequest, false},
      {500, "", ErrorKind::kServer, true},
      {501, R"({"error":{"message":"busy","type":"server_is_overloaded"}})", ErrorKind::kOverloaded,
       true},
      {503, R"({"error":{"message":"slow down","code":"slow_down"}})", ErrorKind::kOverloaded, true},
      {504, "", ErrorKind::kTimeout, true},
      {302, "", ErrorKind::kUnknown, false},
  };
  for (const Row& row : rows) {
    ErrorEvent e = Classify(row.status, {}, row.body);
    EXPECT_EQ(e.kind, row.kind) << row.status << " " << ErrorKindName(e.kind);
    EXPECT_EQ(e.retryable, row.retryable) << row.status;
    EXPECT_EQ(e.http_status, row.status);
  }
}

TEST(OpenAiChatErrorClassifierTest, MessageIsTheProvidersOwnWithTheStatus) {
  EXPECT_EQ(Classify(401, {}, R"({"error":{"message":"Incorrect API key provided"}})").message,
            "HTTP 401: Incorrect API key provided");
  EXPECT_EQ(Classify(502, {}, "").message, "HTTP 502: Bad Gateway");
  EXPECT_EQ(Classify(500, {}, "  \n").message, "HTTP 500: Internal Server Error");
  EXPECT_EQ(Classify(500, {}, R"({"error":"llama runner process has terminated"})").message,
            "HTTP 500: llama runner process has terminated");
  EXPECT_EQ(Classify(400, {}, "plain text\n  problem").message, "HTTP 400: plain text problem");
  EXPECT_EQ(Classify(500, {}, "{broken json").message, "HTTP 500: {broken json");
  std::string long_body(1000, 'x');
  EXPECT_LT(Classify(500, {}, long_body).message.size(), 320u);
}

// Raw follows no redirect from a provider (the key would go with it): the
// message says where the server pointed and what to change, with only the
// printable ASCII of the server's Location.
TEST(OpenAiChatErrorClassifierTest, ARedirectSaysWhereItPointedAndWhatToChange) {
  ErrorEvent e = Classify(308, {{"Location", "https://api.example.com/v1/chat/completions"}}, "");
  EXPECT_EQ(e.kind, ErrorKind::kUnknown);
  EXPECT_FALSE(e.retryable);
  EXPECT_THAT(e.message, HasSubstr("HTTP 308: the server redirected the request to "
                                   "https://api.example.com/v1/chat/completions"));
  EXPECT_THAT(e.message, HasSubstr("set the model's base_url"));
  ErrorEvent hostile = Classify(302, {{"location", "https://x.example/\x1b[31mred\r\nFake: 1"}},
                                "<html><title>Found</title></html>");
  EXPECT_THAT(hostile.message, HasSubstr("https://x.example/[31mredFake:1"));
  EXPECT_THAT(hostile.message, HasSubstr("(Found)"));
  EXPECT_THAT(hostile.message, ::testing::Not(HasSubstr("\x1b")));
}

TEST(OpenAiChatErrorClassifierTest, RetryHints) {
  EXPECT_EQ(RetryAfterMs({{"retry-after-ms", "1500.4"}, {"retry-after", "9"}}, Now()), 1500);
  EXPECT_EQ(RetryAfterMs({{"Retry-After", "0.5"}}, Now()), 500);
  EXPECT_EQ(RetryAfterMs({{"retry-after", "120"}}, Now()), 120000);  // kept; policy decides
  EXPECT_EQ(RetryAfterMs({{"retry-after", "Wed, 21 Oct 2015 07:28:30 GMT"}}, Now()), 30000);
  EXPECT_EQ(RetryAfterMs({{"retry-after", "Wed, 21 Oct 2015 07:27:00 GMT"}}, Now()),
            std::nullopt);  // in the past
  EXPECT_EQ(RetryAfterMs({{"retry-after", "-3"}}, Now()), std::nullopt);
  EXPECT_EQ(RetryAfterMs({{"retry-after", "soon"}}, Now()), std::nullopt);
  EXPECT_EQ(RetryAfterMs({{"retry-after-ms", "x"}, {"retry-after", "1"}}, Now()), 1000);
  EXPECT_EQ(RetryAfterMs({}, Now()), std::nullopt);
  // Past int64_t once in milliseconds: held at 10^15 ms, still a wait far
  // too long to make, never a negative number read as none.
  EXPECT_EQ(RetryAfterMs({{"retry-after", "1e17"}}, Now()), 1'000'000'000'000'000);
  EXPECT_EQ(RetryAfterMs({{"retry-after-ms", "1e300"}}, Now()), 1'000'000'000'000'000);
}

TEST(OpenAiChatErrorClassifierTest, StreamErrors) {
  auto classify = [](const std::string& text) { return ClassifyStreamError(*ParseJson(text)); };
  ErrorEvent server = classify(
      R"({"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null})");
  EXPECT_EQ(server.kind, ErrorKind::kServer);
  EXPECT_TRUE(server.retryable);
  EXPECT_EQ(server.http_status, 0);
  EXPECT_EQ(server.message, "The server had an error while processing your request.");

  EXPECT_EQ(classify(R"({"message":"x","type":"invalid_request_error"})").kind,
            ErrorKind::kInvalidRequest);
  EXPECT_FALSE(classify(R"({"message":"x","type":"invalid_request_error"})").retryable);
  EXPECT_EQ(classify(R"({"message":"x","code":"rate_limit_exceeded"})").kind,
            ErrorKind::kRateLimited);
  EXPECT_EQ(classify(R"({"message":"x","type":"insufficient_quota"})").kind, ErrorKind::kBilling);
  EXPECT_EQ(classify(R"({"error":{"message":"x","type":"overloaded_error"}})").kind,
            ErrorKind::kOverloaded);
  ErrorEvent unknown = classify(R"({"message":"model runner crashed"})");
  EXPECT_EQ(unknown.kind, ErrorKind::kServer);
  EXPECT_TRUE(unknown.retryable);
  ErrorEvent bare = ClassifyStreamError(Json("text only"));
  EXPECT_EQ(bare.message, "text only");
  EXPECT_THAT(ClassifyStreamError(Json::object()).message, HasSubstr("without a message"));
  EXPECT_THAT(ClassifyStreamError(Json("")).message, HasSubstr("without a message"));
}

TEST(OpenAiChatErrorClassifierTest, StatusOfAnErrorEvent) {
  ErrorEvent e;
  e.message = "HTTP 401: no";
  e.kind = ErrorKind::kAuth;
  EXPECT_EQ(ErrorEventToStatus(e), absl::UnauthenticatedError("HTTP 401: no"));
  e.kind = ErrorKind::kCancelled;
  EXPECT_EQ(ErrorEventToStatus(e).code(), absl::StatusCode::kCancelled);
  e.kind = ErrorKind::kPrematureEof;
  EXPECT_EQ(ErrorEventToStatus(e).code(), absl::StatusCode::kUnavailable);
  e.kind = ErrorKind::kTimeout;
  EXPECT_EQ(ErrorEventToStatus(e).code(), absl::StatusCode::kDeadlineExceeded);
  e.kind = ErrorKind::kContextOverflow;
  EXPECT_EQ(ErrorEventToStatus(e).code(), absl::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace raw::providers::error_body
