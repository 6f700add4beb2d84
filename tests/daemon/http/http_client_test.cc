#include "daemon/http/http_client.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace raw::http {
namespace {

TEST(FindHeaderTest, MatchesNamesIgnoringCase) {
  Headers headers = {
      {"Content-Type", "text/event-stream"}, {"x-request-id", "req_1"}, {"X-Request-Id", "req_2"}};
  EXPECT_EQ(FindHeader(headers, "content-type"), "text/event-stream");
  EXPECT_EQ(FindHeader(headers, "X-REQUEST-ID"), "req_1");  // the first one wins
  EXPECT_EQ(FindHeader(headers, "retry-after"), "");
  EXPECT_EQ(FindHeader({}, "anything"), "");
}

// Answers with a fixed status and body in pieces.
class ScriptedClient : public HttpClient {
 public:
  ScriptedClient(int status, std::vector<std::string> pieces, absl::Status result)
      : status_(status), pieces_(std::move(pieces)), result_(std::move(result)) {}

  absl::Status Send(const HttpRequest& request, HttpResponseHandler& handler,
                    const CancelToken& /*cancel*/) override {
    seen_ = request;
    handler.OnStatus(status_, {{"Content-Type", "application/json"}});
    for (const std::string& piece : pieces_) {
      if (!handler.OnBody(piece)) return absl::AbortedError("stopped");
    }
    return result_;
  }

  HttpRequest seen_;

 private:
  int status_;
  std::vector<std::string> pieces_;
  absl::Status result_;
};

TEST(SendAndCollectTest, GathersStatusHeadersAndWholeBody) {
  ScriptedClient client(404, {R"({"error":)", R"({"message":"no such model"}})"}, absl::OkStatus());
  HttpRequest request;
  request.url = "http://127.0.0.1:1/v1/models/x";
  CancelToken cancel;
  HttpResponse response;
  response.body = "left over from an earlier call";
  ASSERT_TRUE(SendAndCollect(client, request, cancel, &response).ok());
  EXPECT_EQ(client.seen_.url, request.url);
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(FindHeader(response.headers, "content-type"), "application/json");
  EXPECT_EQ(response.body, R"({"error":{"message":"no such model"}})");
}

TEST(SendAndCollectTest, PassesTheTransferErrorThrough) {
  ScriptedClient client(200, {"partial"}, absl::UnavailableError("connection broke"));
  CancelToken cancel;
  HttpResponse response;
  absl::Status status = SendAndCollect(client, HttpRequest{}, cancel, &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(response.body, "partial");
}

}  // namespace
}  // namespace raw::http
