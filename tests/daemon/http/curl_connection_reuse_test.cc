// CurlHttpClient keeps the connections its requests leave open and gives
// them to the next request to the same server, except to a request limited
// to public addresses, which must open (and check) a connection of its own.
// The fake provider closes every connection, so these tests run a server
// that keeps them open and counts them (tests/fakes/keep_alive_server.h).

#include <string>
#include <string_view>

#include "daemon/http/curl_http_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/keep_alive_server.h"

namespace raw::http {
namespace {

using ::raw::testing::KeepAliveServer;

// A small POST to `url`, as a model request is.
HttpRequest PostTo(const std::string& url) {
  HttpRequest request;
  request.url = url;
  request.headers = {{"Content-Type", "application/json"}};
  request.body = R"({"stream":true})";
  request.total_timeout_ms = 30000;
  return request;
}

class CurlConnectionReuseTest : public ::testing::Test {
 protected:
  absl::Status Post(bool public_only, HttpResponse* response) {
    HttpRequest request = PostTo(server_.url());
    request.public_addresses_only = public_only;
    return SendAndCollect(client_, request, cancel_, response);
  }
  // A GET of the server's 1 MiB answer.
  HttpRequest GetBig() {
    HttpRequest big;
    big.method = "GET";
    big.url = server_.url("/big");
    big.total_timeout_ms = 30000;
    return big;
  }

  KeepAliveServer server_;
  CurlHttpClient client_;
  CancelToken cancel_;
};

TEST_F(CurlConnectionReuseTest, SequentialRequestsToOneServerShareAConnection) {
  for (int i = 0; i < 3; ++i) {
    HttpResponse response;
    ASSERT_TRUE(Post(/*public_only=*/false, &response).ok());
    EXPECT_EQ(response.body, "ok");
  }
  EXPECT_EQ(server_.requests(), 3);
  EXPECT_EQ(server_.connections(), 1);
}

// A kept connection to a loopback server (a local model's, say) must not
// carry a request that may reach only public addresses (a web fetch): it
// is refused as if nothing were kept.
TEST_F(CurlConnectionReuseTest, ARequestLimitedToPublicAddressesNeverTakesAKeptConnection) {
  HttpResponse first;
  ASSERT_TRUE(Post(/*public_only=*/false, &first).ok());
  HttpResponse second;
  absl::Status refused = Post(/*public_only=*/true, &second);
  EXPECT_TRUE(absl::IsPermissionDenied(refused)) << refused;
  EXPECT_EQ(server_.requests(), 1);
  // The kept connection is still there for the requests that may use it.
  HttpResponse third;
  ASSERT_TRUE(Post(/*public_only=*/false, &third).ok());
  EXPECT_EQ(server_.requests(), 2);
  EXPECT_EQ(server_.connections(), 1);
}

// Reads the status, then stops at the first bytes of the body.
class StopAtFirstBody : public HttpResponseHandler {
 public:
  void OnStatus(int, const Headers&) override {}
  bool OnBody(std::string_view) override { return false; }
};

// A transfer cut short leaves the rest of its answer on the connection:
// that connection is closed, never kept, so the next request reads only
// its own answer.
TEST_F(CurlConnectionReuseTest, ATransferCutShortLeavesNoConnectionBehind) {
  HttpResponse first;
  ASSERT_TRUE(Post(/*public_only=*/false, &first).ok());
  StopAtFirstBody stop;
  EXPECT_TRUE(absl::IsAborted(client_.Send(GetBig(), stop, cancel_)));
  HttpResponse after;
  ASSERT_TRUE(Post(/*public_only=*/false, &after).ok());
  EXPECT_EQ(after.body, "ok");
  EXPECT_EQ(server_.requests(), 3);
  EXPECT_EQ(server_.connections(), 2);
}

// Done() after the first bytes of the body: the rest is read and dropped.
class DoneAtFirstBody : public HttpResponseHandler {
 public:
  void OnStatus(int, const Headers&) override {}
  bool OnBody(std::string_view bytes) override {
    ++calls;
    received += bytes.size();
    return true;
  }
  bool Done() const override { return calls > 0; }

  int calls = 0;
  size_t received = 0;
};

// A handler that has what it needs before the response ends does not cost
// the connection when the response then ends: the next request takes it.
TEST_F(CurlConnectionReuseTest, AResponseThatEndsAfterItsHandlerIsDoneKeepsItsConnection) {
  for (int i = 0; i < 2; ++i) {
    DoneAtFirstBody done;
    absl::Status sent = client_.Send(PostTo(server_.url()), done, cancel_);
    EXPECT_TRUE(sent.ok()) << sent;
    EXPECT_EQ(done.calls, 1);
  }
  EXPECT_EQ(server_.requests(), 2);
  EXPECT_EQ(server_.connections(), 1);
}

// More than the trailing bytes' limit after Done(): the transfer ends as if
// the handler had stopped it, and its connection is not kept.
TEST_F(CurlConnectionReuseTest, TooMuchAfterItsHandlerIsDoneCutsTheResponseShort) {
  DoneAtFirstBody done;
  EXPECT_TRUE(absl::IsAborted(client_.Send(GetBig(), done, cancel_)));
  EXPECT_EQ(done.calls, 1) << "nothing after Done() reaches the handler";
  HttpResponse after;
  ASSERT_TRUE(Post(/*public_only=*/false, &after).ok());
  EXPECT_EQ(after.body, "ok");
  EXPECT_EQ(server_.connections(), 2);
}

// A server that closed a kept connection (its idle timeout) costs the next
// request nothing but a new connection: no error reaches the caller.
TEST(CurlConnectionReuseClosedTest, AConnectionTheServerClosedIsReplaced) {
  KeepAliveServer server(/*close_after_answer=*/true);
  CurlHttpClient client;
  CancelToken cancel;
  for (int i = 0; i < 2; ++i) {
    HttpResponse response;
    absl::Status sent = SendAndCollect(client, PostTo(server.url()), cancel, &response);
    ASSERT_TRUE(sent.ok()) << sent;
    EXPECT_EQ(response.body, "ok");
  }
  EXPECT_EQ(server.requests(), 2);
  EXPECT_EQ(server.connections(), 2);
}

}  // namespace
}  // namespace raw::http
