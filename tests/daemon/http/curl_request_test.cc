#include "daemon/http/curl_request.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::http {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Lines(const curl_slist* list) {
  std::vector<std::string> lines;
  for (; list != nullptr; list = list->next) lines.emplace_back(list->data);
  return lines;
}

TEST(ParseRequestTargetTest, NamesHostAndPortWithoutTheRestOfTheUrl) {
  auto target = ParseRequestTarget("https://api.example.com/v1/models?key=secret");
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(target->host, "api.example.com");
  EXPECT_EQ(target->host_port, "api.example.com:443");
  EXPECT_FALSE(target->loopback);

  target = ParseRequestTarget("http://127.0.0.1:8080/v1");
  ASSERT_TRUE(target.ok());
  EXPECT_EQ(target->host_port, "127.0.0.1:8080");
  EXPECT_TRUE(target->loopback);
  EXPECT_TRUE(ParseRequestTarget("http://LocalHost/v1")->loopback);
  EXPECT_TRUE(ParseRequestTarget("http://[::1]:9/v1")->loopback);
  EXPECT_EQ(ParseRequestTarget("http://[::1]/v1")->host_port, "[::1]:80");
}

TEST(ParseRequestTargetTest, RejectsWhatIsNotAnHttpUrl) {
  EXPECT_THAT(ParseRequestTarget("").status().message(), HasSubstr("no URL"));
  EXPECT_EQ(ParseRequestTarget("not a url").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ParseRequestTarget("file:///etc/passwd").status().message(),
              HasSubstr("unsupported URL scheme 'file'"));
}

TEST(ValidateMethodTest, AcceptsTokensAndRefusesBodiesOnGet) {
  HttpRequest request;
  for (std::string method : {"POST", "GET", "DELETE", "PATCH"}) {
    request.method = method;
    EXPECT_TRUE(ValidateMethod(request).ok()) << method;
  }
  request.method = "get";
  EXPECT_THAT(ValidateMethod(request).message(), HasSubstr("invalid HTTP method 'get'"));
  request.method = "HEAD";
  request.body = "x";
  EXPECT_THAT(ValidateMethod(request).message(), HasSubstr("HEAD request cannot carry a body"));
}

TEST(SendsBodyTest, PostAlwaysSendsOne) {
  HttpRequest request;
  request.method = "POST";
  EXPECT_TRUE(SendsBody(request));
  request.method = "DELETE";
  EXPECT_FALSE(SendsBody(request));
  request.body = "{}";
  EXPECT_TRUE(SendsBody(request));
}

TEST(BuildCurlHeaderListTest, KeepsCallerHeadersAndSuppressesCurlDefaults) {
  HttpRequest request;
  request.headers = {{"Authorization", "Bearer k"}, {"X-Empty", ""}};
  auto list = BuildCurlHeaderList(request);
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_THAT(Lines(list->get()),
              ElementsAre("Authorization: Bearer k", "X-Empty;", "Expect:", "Content-Type:"));

  request.method = "GET";
  request.headers = {{"Expect", "100-continue"}};
  list = BuildCurlHeaderList(request);
  ASSERT_TRUE(list.ok());
  EXPECT_THAT(Lines(list->get()), ElementsAre("Expect: 100-continue"));
}

TEST(BuildCurlHeaderListTest, RejectsHeaderInjection) {
  HttpRequest request;
  request.headers = {{"X-A", "ok\nX-B: injected"}};
  EXPECT_THAT(BuildCurlHeaderList(request).status().message(), HasSubstr("'X-A'"));
  request.headers = {{"X-A:", "v"}};
  EXPECT_THAT(BuildCurlHeaderList(request).status().message(),
              HasSubstr("invalid HTTP header name 'X-A:'"));
  request.headers = {{"", "v"}};
  EXPECT_EQ(BuildCurlHeaderList(request).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace raw::http
