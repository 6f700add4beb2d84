// The provider fault matrix, part one: what a server answers, through a
// real rawd and real libcurl, for each of the four APIs with the API's own
// bodies. 429 with a retry-after hint (waited for), without one (backed
// off), with one past the cap (reported); 500, 502, 503 and 529 (retried,
// the last reported with the provider's words); an HTML error page and an
// HTML page with status 200; JSON instead of SSE (a whole answer, or an
// error document); a 200 with an empty body; a malformed JSON event; an
// event over the size cap. Transport faults are in
// fault_matrix_transport_test.cc.
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tests/e2e/fault_matrix_fixture.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

class HttpFaultTest : public FaultMatrixTest {};

// The delay a retry notice announces ("Retrying in 1.0 s"), or -1.
double AnnouncedDelaySeconds(const std::string& notice) {
  size_t at = notice.find("Retrying in ");
  if (at == std::string::npos) return -1;
  std::string rest = notice.substr(at + 12);
  double seconds = -1;
  if (!absl::SimpleAtod(rest.substr(0, rest.find(' ')), &seconds)) return -1;
  return seconds;
}

constexpr char kNginx502[] =
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad "
    "Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n";

TEST_P(HttpFaultTest, RateLimitWithRetryAfterWaitsTheHintThenSucceeds) {
  StartDaemon(R"("max_retries": 2)");
  testing::ScriptedResponse limited = ErrorResponse(429, GetParam().rate_limit_body);
  limited.headers.push_back({"retry-after", "1"});
  fake_.Enqueue(limited);
  fake_.Enqueue(Replay("01-text"));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_COMPLETED) << turn.end.message();
  ASSERT_THAT(turn.notices, SizeIs(1));
  EXPECT_THAT(turn.notices[0], HasSubstr("HTTP 429"));
  EXPECT_THAT(turn.notices[0], HasSubstr(GetParam().rate_limit_message));
  EXPECT_EQ(AnnouncedDelaySeconds(turn.notices[0]), 1.0) << turn.notices[0];
  EXPECT_EQ(turn.committed, kGoodText);
  std::vector<testing::RecordedRequest> requests = fake_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].body, requests[1].body) << "a retry sends the same bytes";
}

TEST_P(HttpFaultTest, RateLimitWithoutRetryAfterBacksOffThenSucceeds) {
  StartDaemon(R"("max_retries": 2)");
  fake_.Enqueue(ErrorResponse(429, GetParam().rate_limit_body));
  fake_.Enqueue(Replay("01-text"));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_COMPLETED) << turn.end.message();
  ASSERT_THAT(turn.notices, SizeIs(1));
  EXPECT_THAT(turn.notices[0], HasSubstr(GetParam().rate_limit_message));
  // The first backoff is full jitter over the 1 s base.
  double delay = AnnouncedDelaySeconds(turn.notices[0]);
  EXPECT_GE(delay, 0.0) << turn.notices[0];
  EXPECT_LE(delay, 1.0) << turn.notices[0];
  EXPECT_EQ(turn.committed, kGoodText);
  EXPECT_EQ(fake_.requests().size(), 2u);
}

TEST_P(HttpFaultTest, RateLimitHintPastTheCapEndsTheTurnWithTheProvidersWords) {
  StartDaemon(R"("max_retries": 2)");
  testing::ScriptedResponse limited = ErrorResponse(429, GetParam().rate_limit_body);
  limited.headers.push_back({"retry-after", "120"});
  fake_.Enqueue(limited);

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(turn.end.message(), HasSubstr("HTTP 429"));
  EXPECT_THAT(turn.end.message(), HasSubstr(GetParam().rate_limit_message));
  EXPECT_THAT(turn.end.message(), HasSubstr("120 s")) << "the user learns when to try again";
  EXPECT_THAT(turn.notices, SizeIs(0)) << "a 120 s wait is not a silent retry";
  EXPECT_EQ(fake_.requests().size(), 1u);
  ExpectTheNextTurnCarriesNothingBroken();
}

TEST_P(HttpFaultTest, ServerErrorsAreRetriedAndTheLastIsReportedWithTheProvidersWords) {
  StartDaemon(R"("max_retries": 3)");
  for (int status : {500, 502, 503, 529}) {
    testing::ScriptedResponse failed = ErrorResponse(status, GetParam().server_error_body);
    failed.headers.push_back({"retry-after-ms", "10"});
    fake_.Enqueue(failed);
  }

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(turn.end.message(), HasSubstr("HTTP 529"));
  EXPECT_THAT(turn.end.message(), HasSubstr(GetParam().server_error_message));
  ASSERT_THAT(turn.notices, SizeIs(3));
  EXPECT_THAT(turn.notices[0], HasSubstr("HTTP 500"));
  EXPECT_THAT(turn.notices[1], HasSubstr("HTTP 502"));
  EXPECT_THAT(turn.notices[2], HasSubstr("HTTP 503"));
  for (const std::string& notice : turn.notices) {
    EXPECT_THAT(notice, HasSubstr(GetParam().server_error_message));
  }
  EXPECT_EQ(fake_.requests().size(), 4u);
  EXPECT_EQ(turn.committed, "");
  ExpectTheNextTurnCarriesNothingBroken();
}

TEST_P(HttpFaultTest, AnHtmlErrorPageIsReportedByItsTitle) {
  StartDaemon(R"("max_retries": 1)");
  fake_.Enqueue(ErrorResponse(502, kNginx502, "text/html"));
  fake_.Enqueue(ErrorResponse(502, kNginx502, "text/html"));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(turn.end.message(), HasSubstr("HTTP 502: 502 Bad Gateway"));
  EXPECT_THAT(turn.end.message(), ::testing::Not(HasSubstr("<")));
  ASSERT_THAT(turn.notices, SizeIs(1));
  EXPECT_THAT(turn.notices[0], HasSubstr("HTTP 502: 502 Bad Gateway"));
  EXPECT_EQ(fake_.requests().size(), 2u);
}

// A login page or a web UI at the base URL answers 200 with HTML: not a
// stream, and trying again will not make it one.
TEST_P(HttpFaultTest, AnHtmlPageWithStatus200IsReportedNotRetried) {
  StartDaemon(R"("max_retries": 2)");
  fake_.Enqueue(ErrorResponse(
      200, "<!DOCTYPE html><html><head><title>Sign in - Corporate Proxy</title></head><body>"
           "<form>...</form></body></html>",
      "text/html; charset=utf-8"));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(turn.end.message(), HasSubstr("text/html"));
  EXPECT_THAT(turn.end.message(), HasSubstr("Sign in - Corporate Proxy"));
  EXPECT_THAT(turn.notices, SizeIs(0));
  EXPECT_EQ(fake_.requests().size(), 1u);
}

TEST_P(HttpFaultTest, JsonInsteadOfSseIsReadAsTheWholeAnswer) {
  StartDaemon(R"("max_retries": 2)");
  fake_.Enqueue(ErrorResponse(200, GetParam().json_answer));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_COMPLETED) << turn.end.message();
  EXPECT_EQ(turn.committed, "Plain JSON.");
  EXPECT_THAT(turn.notices, SizeIs(0));
}

TEST_P(HttpFaultTest, AJsonErrorDocumentWithStatus200IsReportedWithTheProvidersWords) {
  StartDaemon(R"("max_retries": 2)");
  fake_.Enqueue(ErrorResponse(200, GetParam().invalid_body));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(turn.end.message(), HasSubstr(GetParam().invalid_message));
  EXPECT_THAT(turn.notices, SizeIs(0)) << "an invalid request is not retried";
  EXPECT_EQ(fake_.requests().size(), 1u);
}

// Status 200 and no byte of body, as an event stream and as JSON: a
// dropped answer, retried.
TEST_P(HttpFaultTest, A200WithAnEmptyBodyIsRetried) {
  StartDaemon(R"("max_retries": 2)");
  fake_.Enqueue(ErrorResponse(200, "", "text/event-stream"));
  fake_.Enqueue(ErrorResponse(200, ""));
  fake_.Enqueue(Replay("01-text"));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_COMPLETED) << turn.end.message();
  ASSERT_THAT(turn.notices, SizeIs(2));
  for (const std::string& notice : turn.notices) EXPECT_THAT(notice, HasSubstr("empty"));
  EXPECT_EQ(turn.committed, kGoodText);
  EXPECT_EQ(fake_.requests().size(), 3u);
}

TEST_P(HttpFaultTest, AMalformedJsonEventIsRetriedAndItsTextDiscarded) {
  StartDaemon(R"("max_retries": 2)");
  testing::ScriptedResponse broken = BrokenReplay(testing::ScriptedResponse::End::kComplete);
  broken.chunks.push_back("data: {\"candidates\": [{\"content\": {\"parts\": [{\"te\n\n");
  fake_.Enqueue(broken);
  fake_.Enqueue(Replay("01-text"));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_COMPLETED) << turn.end.message();
  ASSERT_THAT(turn.notices, SizeIs(1));
  EXPECT_THAT(turn.notices[0], HasSubstr("malformed"));
  EXPECT_EQ(turn.stream_resets, 1) << "clients drop the text of the broken attempt";
  EXPECT_EQ(turn.committed, kGoodText);
  ExpectTheNextTurnCarriesNothingBroken();
}

TEST_P(HttpFaultTest, AnEventOverTheSizeCapEndsTheTurnWithoutARetry) {
  StartDaemon(R"("max_retries": 2)");
  // One "data:" line of 33 MiB that never ends: past the 32 MiB cap on one
  // event, long before the 64 MiB the server would send.
  testing::ScriptedResponse huge = BrokenReplay(testing::ScriptedResponse::End::kComplete);
  huge.chunks.push_back("data: {\"padding\": \"");
  huge.chunks.push_back(std::string(1 << 20, 'x'));
  huge.repeat_chunk = huge.chunks.size() - 1;
  huge.repeat_times = 64;
  fake_.Enqueue(huge);

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(turn.end.message(), HasSubstr("exceeds 33554432 bytes"));
  EXPECT_THAT(turn.notices, SizeIs(0));
  EXPECT_EQ(fake_.requests().size(), 1u);
  ExpectTheNextTurnCarriesNothingBroken();
}

INSTANTIATE_TEST_SUITE_P(FaultMatrix, HttpFaultTest, ::testing::ValuesIn(AllApiCases()),
                         ApiCaseName);

}  // namespace
}  // namespace raw::e2e
