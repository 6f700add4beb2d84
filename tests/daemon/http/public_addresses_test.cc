// CurlHttpClient with HttpRequest::public_addresses_only: the address that
// would be connected to is checked after name resolution, so neither a
// literal loopback address nor a name resolving to one gets a connection.

#include <string>

#include "absl/status/status.h"
#include "daemon/http/curl_http_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_provider_server.h"

namespace raw::http {
namespace {

using ::raw::testing::FakeProviderServer;
using ::raw::testing::ScriptedResponse;
using ::testing::AllOf;
using ::testing::HasSubstr;

class PublicAddressesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.status().ok()) << server_.status(); }

  absl::Status Get(const std::string& url, bool public_only, HttpResponse* response) {
    HttpRequest request;
    request.method = "GET";
    request.url = url;
    request.total_timeout_ms = 30000;
    request.public_addresses_only = public_only;
    return SendAndCollect(client_, request, cancel_, response);
  }

  FakeProviderServer server_;
  CurlHttpClient client_;
  CancelToken cancel_;
};

TEST_F(PublicAddressesTest, ALoopbackAddressIsNeverConnectedTo) {
  HttpResponse response;
  absl::Status sent = Get(server_.base_url() + "/page", /*public_only=*/true, &response);
  EXPECT_TRUE(absl::IsPermissionDenied(sent)) << sent;
  EXPECT_THAT(std::string(sent.message()),
              AllOf(HasSubstr("refused to connect to 127.0.0.1:"),
                    HasSubstr("at 127.0.0.1 (a loopback address (127.0.0.0/8))"),
                    HasSubstr("only public addresses")));
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(PublicAddressesTest, ANameThatResolvesToLoopbackIsCheckedOnItsAddress) {
  std::string url = server_.base_url();
  url.replace(url.find("127.0.0.1"), 9, "localhost");
  HttpResponse response;
  absl::Status sent = Get(url + "/page", /*public_only=*/true, &response);
  EXPECT_TRUE(absl::IsPermissionDenied(sent)) << sent;
  EXPECT_THAT(std::string(sent.message()), HasSubstr("(a loopback address"));
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(PublicAddressesTest, WithoutTheFlagLoopbackIsReached) {
  ScriptedResponse page;
  page.status = 200;
  page.chunks = {"hello"};
  server_.Enqueue(page);
  HttpResponse response;
  ASSERT_TRUE(Get(server_.base_url() + "/page", /*public_only=*/false, &response).ok());
  EXPECT_EQ(response.body, "hello");
}

}  // namespace
}  // namespace raw::http
