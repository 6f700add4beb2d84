#include "daemon/http/curl_http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/fakes/sse_builders.h"

namespace raw::http {
namespace {

using ::raw::testing::FakeProviderServer;
using ::raw::testing::ScriptedResponse;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Records the callbacks in order; may be observed from another thread.
class RecordingHandler : public HttpResponseHandler {
 public:
  explicit RecordingHandler(bool stop_at_first_body = false)
      : stop_at_first_body_(stop_at_first_body) {}

  void OnStatus(int status, const Headers& headers) override {
    absl::MutexLock lock(&mu_);
    calls_.push_back("status");
    status_ = status;
    headers_ = headers;
  }

  bool OnBody(std::string_view bytes) override {
    absl::MutexLock lock(&mu_);
    calls_.push_back("body");
    body_.append(bytes);
    return !stop_at_first_body_;
  }

  bool WaitForBodySize(size_t size) {
    absl::MutexLock lock(&mu_);
    auto ready = [this, size]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return body_.size() >= size; };
    return mu_.AwaitWithTimeout(absl::Condition(&ready), absl::Seconds(10));
  }

  int status() const {
    absl::MutexLock lock(&mu_);
    return status_;
  }
  Headers headers() const {
    absl::MutexLock lock(&mu_);
    return headers_;
  }
  std::string body() const {
    absl::MutexLock lock(&mu_);
    return body_;
  }
  std::vector<std::string> calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  // "status" exactly once, before every "body".
  bool StatusCameFirstAndOnce() const {
    absl::MutexLock lock(&mu_);
    return !calls_.empty() && calls_.front() == "status" &&
           std::count(calls_.begin(), calls_.end(), "status") == 1;
  }

 private:
  const bool stop_at_first_body_;
  mutable absl::Mutex mu_;
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
  int status_ ABSL_GUARDED_BY(mu_) = 0;
  Headers headers_ ABSL_GUARDED_BY(mu_);
  std::string body_ ABSL_GUARDED_BY(mu_);
};

class CurlHttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.status().ok()) << server_.status(); }

  HttpRequest Request(std::string path = "/chat/completions") {
    HttpRequest request;
    request.url = server_.base_url() + path;
    request.headers = {{"Content-Type", "application/json"}};
    request.body = R"({"stream":true})";
    // A safety net: a broken cancel or idle path fails instead of hanging.
    request.total_timeout_ms = 30000;
    return request;
  }

  ScriptedResponse Events(std::vector<std::string> chunks) {
    return testing::chat::Stream(std::move(chunks));
  }

  FakeProviderServer server_;
  CurlHttpClient client_;
  CancelToken cancel_;
};

TEST_F(CurlHttpClientTest, StreamsChunksInOrderWithStatusFirst) {
  server_.Enqueue(Events({"data: one\n\n", "data: two\n\n", "data: three\n\n"}));
  RecordingHandler handler;
  ASSERT_TRUE(client_.Send(Request(), handler, cancel_).ok());
  EXPECT_EQ(handler.status(), 200);
  EXPECT_EQ(FindHeader(handler.headers(), "content-type"), "text/event-stream");
  EXPECT_EQ(handler.body(), "data: one\n\ndata: two\n\ndata: three\n\n");
  EXPECT_TRUE(handler.StatusCameFirstAndOnce());
}

TEST_F(CurlHttpClientTest, DeliversBytesBeforeTheResponseEnds) {
  ScriptedResponse response = Events({"data: early\n\n", "data: late\n\n"});
  response.gate_before_chunk = 1;
  server_.Enqueue(response);
  RecordingHandler handler;
  absl::Status status;
  std::thread sender([&] { status = client_.Send(Request(), handler, cancel_); });
  ASSERT_TRUE(server_.WaitForGate());
  // The server is parked before the second chunk: the first must be here.
  ASSERT_TRUE(handler.WaitForBodySize(13));
  EXPECT_EQ(handler.body(), "data: early\n\n");
  server_.ReleaseGate();
  sender.join();
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(handler.body(), "data: early\n\ndata: late\n\n");
}

TEST_F(CurlHttpClientTest, ReportsStatusForAnEmptyBody) {
  server_.Enqueue(Events({}));
  RecordingHandler handler;
  ASSERT_TRUE(client_.Send(Request(), handler, cancel_).ok());
  EXPECT_THAT(handler.calls(), ElementsAre("status"));
  EXPECT_EQ(handler.status(), 200);
}

TEST_F(CurlHttpClientTest, CollectsErrorStatusAndBody) {
  ScriptedResponse limited =
      testing::chat::ErrorResponse(429, "Rate limit reached", "requests", "rate_limit_exceeded");
  limited.headers.emplace_back("retry-after", "2");
  server_.Enqueue(limited);
  server_.Enqueue(testing::chat::ErrorResponse(503, "Overloaded", "server_error", ""));

  HttpResponse response;
  ASSERT_TRUE(SendAndCollect(client_, Request(), cancel_, &response).ok());
  EXPECT_EQ(response.status, 429);
  EXPECT_EQ(FindHeader(response.headers, "Retry-After"), "2");
  EXPECT_EQ(FindHeader(response.headers, "Content-Type"), "application/json");
  EXPECT_EQ(response.body,
            R"({"error":{"message":"Rate limit reached","type":"requests","param":null,)"
            R"("code":"rate_limit_exceeded"}})");

  ASSERT_TRUE(SendAndCollect(client_, Request(), cancel_, &response).ok());
  EXPECT_EQ(response.status, 503);
  EXPECT_THAT(response.body, HasSubstr(R"("code":null)"));
}

TEST_F(CurlHttpClientTest, CutStreamIsUnavailableAfterThePartialBytes) {
  ScriptedResponse response = Events({"data: part1\n\n", "data: part2\n\n"});
  response.end = ScriptedResponse::End::kCut;
  server_.Enqueue(response);
  RecordingHandler handler;
  absl::Status status = client_.Send(Request(), handler, cancel_);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("127.0.0.1:", server_.port())));
  EXPECT_EQ(handler.body(), "data: part1\n\ndata: part2\n\n");
  EXPECT_TRUE(handler.StatusCameFirstAndOnce());
}

TEST_F(CurlHttpClientTest, IdleTimeoutWhenNoByteArrives) {
  ScriptedResponse response = Events({"data: first\n\n", "data: never\n\n"});
  response.gate_before_chunk = 1;
  server_.Enqueue(response);
  HttpRequest request = Request();
  request.idle_timeout_ms = 200;
  RecordingHandler handler;
  absl::Status status = client_.Send(request, handler, cancel_);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_THAT(status.message(), HasSubstr("idle timeout"));
  EXPECT_THAT(status.message(), HasSubstr("200 ms"));
  EXPECT_EQ(handler.body(), "data: first\n\n");
  server_.ReleaseGate();  // lets the server thread finish
}

TEST_F(CurlHttpClientTest, TotalTimeoutIsDeadlineExceeded) {
  ScriptedResponse response = Events({"data: never\n\n"});
  response.gate_before_chunk = 0;
  server_.Enqueue(response);
  HttpRequest request = Request();
  request.total_timeout_ms = 300;
  RecordingHandler handler;
  absl::Status status = client_.Send(request, handler, cancel_);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_THAT(status.message(), HasSubstr("total timeout of 300 ms"));
  server_.ReleaseGate();
}

TEST_F(CurlHttpClientTest, CancelWhileParkedReturnsCancelled) {
  ScriptedResponse response = Events({"data: a\n\n", "data: b\n\n"});
  response.gate_before_chunk = 1;
  server_.Enqueue(response);
  RecordingHandler handler;
  absl::Status status;
  std::thread sender([&] { status = client_.Send(Request(), handler, cancel_); });
  ASSERT_TRUE(server_.WaitForGate());
  cancel_.Cancel("interrupted by the user");
  sender.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
  EXPECT_THAT(status.message(), HasSubstr("interrupted by the user"));
  server_.ReleaseGate();
}

TEST_F(CurlHttpClientTest, AlreadyCancelledTokenSendsNothing) {
  cancel_.Cancel();
  RecordingHandler handler;
  absl::Status status = client_.Send(Request(), handler, cancel_);
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(handler.calls().empty());
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(CurlHttpClientTest, HandlerStoppingIsAborted) {
  server_.Enqueue(Events({"data: a\n\n", "data: b\n\n"}));
  RecordingHandler handler(/*stop_at_first_body=*/true);
  absl::Status status = client_.Send(Request(), handler, cancel_);
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted) << status;
  EXPECT_THAT(handler.calls(), ElementsAre("status", "body"));
}

TEST_F(CurlHttpClientTest, ConnectionRefusedIsUnavailable) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const int port = ntohs(address.sin_port);
  close(fd);  // nothing listens there now

  HttpRequest request;
  request.url = absl::StrCat("http://127.0.0.1:", port, "/v1/chat/completions?key=secret");
  RecordingHandler handler;
  absl::Status status = client_.Send(request, handler, cancel_);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("127.0.0.1:", port)));
  EXPECT_THAT(status.message(), HasSubstr("Connection refused"));  // the system's reason
  EXPECT_THAT(status.message(), HasSubstr("Failed to connect"));   // libcurl's
  EXPECT_THAT(std::string(status.message()), ::testing::Not(HasSubstr("secret")));
  EXPECT_TRUE(handler.calls().empty());
}

// A CA file that cannot be read fails every HTTPS request the same way: a
// kFailedPrecondition (not worth a retry) that names SSL_CERT_FILE.
TEST_F(CurlHttpClientTest, AnUnreadableCaFileIsAFailedPrecondition) {
  CurlHttpClient::Options options;
  options.ca_file = "/nonexistent/raw-test-ca.pem";
  CurlHttpClient client(options);
  HttpRequest request;
  request.url = absl::StrCat("https://127.0.0.1:", server_.port(), "/v1/chat/completions");
  request.total_timeout_ms = 30000;
  RecordingHandler handler;
  absl::Status status = client.Send(request, handler, cancel_);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(status.message(), HasSubstr("SSL_CERT_FILE"));
  EXPECT_TRUE(handler.calls().empty());
}

TEST_F(CurlHttpClientTest, AResetBeforeTheStatusLineIsUnavailable) {
  ScriptedResponse reset;
  reset.framing = ScriptedResponse::Framing::kRaw;
  reset.end = ScriptedResponse::End::kReset;
  server_.Enqueue(reset);
  HttpRequest request;
  request.url = server_.base_url() + "/chat/completions";
  RecordingHandler handler;
  absl::Status status = client_.Send(request, handler, cancel_);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(status.message(), HasSubstr("reset"));
  EXPECT_TRUE(handler.calls().empty());
}

TEST_F(CurlHttpClientTest, SendsHeadersAndBodyExactly) {
  server_.Enqueue(Events({"data: ok\n\n"}));
  server_.Enqueue(Events({}));
  HttpRequest request = Request("/chat/completions?alt=sse");
  request.headers = {{"Authorization", "Bearer sk-test"},
                     {"Content-Type", "application/json"},
                     {"X-Custom", "two  spaces, and: colon"}};
  request.body = "{\"text\":\"h\u00e9llo\\n\",\n \"big\":\"" + std::string(5000, 'x') + "\"}";
  RecordingHandler handler;
  ASSERT_TRUE(client_.Send(request, handler, cancel_).ok());

  HttpRequest get;
  get.method = "GET";
  get.url = server_.base_url() + "/models";
  get.headers = {{"Accept", "application/json"}};
  RecordingHandler get_handler;
  ASSERT_TRUE(client_.Send(get, get_handler, cancel_).ok());

  std::vector<testing::RecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  const testing::RecordedRequest& post = requests[0];
  EXPECT_EQ(post.method, "POST");
  EXPECT_EQ(post.path, "/v1/chat/completions?alt=sse");
  EXPECT_EQ(post.Header("Authorization"), "Bearer sk-test");
  EXPECT_EQ(post.Header("Content-Type"), "application/json");
  EXPECT_EQ(post.Header("X-Custom"), "two  spaces, and: colon");
  EXPECT_EQ(post.Header("User-Agent"), "raw/0.1.0");
  EXPECT_EQ(post.Header("Expect"), "");  // no 100-continue round trip
  EXPECT_EQ(post.body, request.body);
  EXPECT_EQ(requests[1].method, "GET");
  EXPECT_EQ(requests[1].path, "/v1/models");
  EXPECT_EQ(requests[1].Header("Accept"), "application/json");
  EXPECT_EQ(requests[1].body, "");
}

TEST_F(CurlHttpClientTest, SendsABodyInPiecesAsOneBody) {
  server_.Enqueue(Events({"data: ok\n\n"}));
  HttpRequest request = Request("/chat/completions");
  // Larger than libcurl's upload buffer, so that it reads the pieces in
  // several calls, some of them across a piece's end.
  std::string big;
  for (int i = 0; big.size() < 300000; ++i) absl::StrAppend(&big, "item ", i, ",");
  request.SetBody(
      {"{\"head\":1,\"items\":[",
       {std::make_shared<const std::string>(big), std::make_shared<const std::string>(""),
        std::make_shared<const std::string>("\"last\"]}")}});
  const std::string whole = "{\"head\":1,\"items\":[" + big + "\"last\"]}";
  EXPECT_EQ(request.body_size(), whole.size());
  RecordingHandler handler;
  ASSERT_TRUE(client_.Send(request, handler, cancel_).ok());
  std::vector<testing::RecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].Header("Content-Length"), std::to_string(whole.size()));
  EXPECT_EQ(requests[0].Header("Transfer-Encoding"), "");
  EXPECT_EQ(requests[0].Header("Expect"), "");
  EXPECT_TRUE(requests[0].body == whole)
      << requests[0].body.size() << " bytes against " << whole.size();
}

TEST_F(CurlHttpClientTest, DoesNotFollowRedirects) {
  ScriptedResponse redirect;
  redirect.status = 307;
  redirect.headers = {{"Location", server_.base_url() + "/elsewhere"}};
  server_.Enqueue(redirect);
  server_.Enqueue(Events({"data: followed\n\n"}));
  HttpResponse response;
  ASSERT_TRUE(SendAndCollect(client_, Request(), cancel_, &response).ok());
  EXPECT_EQ(response.status, 307);
  EXPECT_EQ(FindHeader(response.headers, "location"), server_.base_url() + "/elsewhere");
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(CurlHttpClientTest, ConcurrentSendsFromTwoThreads) {
  for (std::string name : {"alpha", "beta"}) {
    ScriptedResponse response = Events({"data: " + name + "\n\n", "data: end\n\n"});
    response.gate_before_chunk = 1;
    server_.Enqueue(response);
  }
  RecordingHandler first;
  RecordingHandler second;
  absl::Status first_status;
  absl::Status second_status;
  std::thread a([&] { first_status = client_.Send(Request(), first, cancel_); });
  std::thread b([&] { second_status = client_.Send(Request(), second, cancel_); });
  // Both transfers are in flight at the same time, each parked at its gate.
  ASSERT_TRUE(server_.WaitForRequestCount(2));
  ASSERT_TRUE(server_.WaitForGate());
  server_.ReleaseGate();
  server_.ReleaseGate();
  a.join();
  b.join();
  EXPECT_TRUE(first_status.ok()) << first_status;
  EXPECT_TRUE(second_status.ok()) << second_status;
  EXPECT_EQ(std::set<std::string>({first.body(), second.body()}),
            std::set<std::string>({"data: alpha\n\ndata: end\n\n", "data: beta\n\ndata: end\n\n"}));
}

TEST_F(CurlHttpClientTest, RejectsBadRequestsWithClearErrors) {
  RecordingHandler handler;
  HttpRequest request = Request();
  request.url = "";
  EXPECT_THAT(client_.Send(request, handler, cancel_).message(), HasSubstr("no URL"));

  request = Request();
  request.url = "ftp://127.0.0.1/file";
  absl::Status status = client_.Send(request, handler, cancel_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("'ftp'"));

  request = Request();
  request.headers = {{"X-Evil", "a\r\nHost: elsewhere"}};
  status = client_.Send(request, handler, cancel_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("X-Evil"));

  request = Request();
  request.headers = {{"Bad Name", "v"}};
  EXPECT_EQ(client_.Send(request, handler, cancel_).code(), absl::StatusCode::kInvalidArgument);

  request = Request();
  request.method = "GET";
  status = client_.Send(request, handler, cancel_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("cannot carry a body"));

  request = Request();
  request.method = "po st";
  EXPECT_EQ(client_.Send(request, handler, cancel_).code(), absl::StatusCode::kInvalidArgument);

  EXPECT_TRUE(handler.calls().empty());
  EXPECT_TRUE(server_.requests().empty());
}

}  // namespace
}  // namespace raw::http
