// ExtraHeadersHttpClient and WithExtraHeaders.
#include "daemon/providers/extra_headers.h"

#include <memory>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::providers {
namespace {

using ::raw::testing::FakeHttpClient;
using ::raw::testing::FakeHttpResponse;
using ::testing::ElementsAre;
using ::testing::Pair;

class IgnoringHandler : public http::HttpResponseHandler {
 public:
  void OnStatus(int, const http::Headers&) override {}
  bool OnBody(std::string_view) override { return true; }
};

TEST(ExtraHeadersTest, AppendsAfterTheRequestsOwnHeaders) {
  FakeHttpClient inner;
  inner.Enqueue(FakeHttpResponse{});
  ExtraHeadersHttpClient client(inner, {{"X-A", "1"}, {"X-B", "2"}});
  http::HttpRequest request;
  request.url = "http://127.0.0.1:9/x";
  request.headers = {{"Content-Type", "application/json"}};
  IgnoringHandler handler;
  CancelToken cancel;
  EXPECT_TRUE(client.Send(request, handler, cancel).ok());
  EXPECT_THAT(inner.single_request().headers, ElementsAre(Pair("Content-Type", "application/json"),
                                                          Pair("X-A", "1"), Pair("X-B", "2")));
  // The caller's request is left as it was.
  EXPECT_THAT(request.headers, ElementsAre(Pair("Content-Type", "application/json")));
}

// A provider that sends one bare request through the client it was made with.
class OneRequestProvider : public Provider {
 public:
  explicit OneRequestProvider(http::HttpClient& http) : http_(http) {}
  absl::Status Stream(const ModelRequest&, ProviderEventSink&, const CancelToken& cancel) override {
    http::HttpRequest request;
    request.url = "http://127.0.0.1:9/y";
    IgnoringHandler handler;
    return http_.Send(request, handler, cancel);
  }

 private:
  http::HttpClient& http_;
};

class NullSink : public ProviderEventSink {
 public:
  void OnEvent(const ProviderEvent&) override {}
};

TEST(ExtraHeadersTest, TheWrappedProviderOwnsItsClient) {
  FakeHttpClient http;
  http.Enqueue(FakeHttpResponse{});
  http::HttpClient* seen = nullptr;
  std::unique_ptr<Provider> provider =
      WithExtraHeaders(http, {{"X-Team", "t"}}, [&seen](http::HttpClient& client) {
        seen = &client;
        return std::make_unique<OneRequestProvider>(client);
      });
  EXPECT_NE(seen, &http);
  NullSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider->Stream(ModelRequest{}, sink, cancel).ok());
  EXPECT_THAT(http.single_request().headers, ElementsAre(Pair("X-Team", "t")));
}

TEST(ExtraHeadersTest, NoHeadersNoWrapper) {
  FakeHttpClient http;
  http::HttpClient* seen = nullptr;
  WithExtraHeaders(http, {}, [&seen](http::HttpClient& client) {
    seen = &client;
    return std::make_unique<OneRequestProvider>(client);
  });
  EXPECT_EQ(seen, &http);
}

}  // namespace
}  // namespace raw::providers
