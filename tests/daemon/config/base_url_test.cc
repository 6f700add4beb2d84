// ParseBaseUrl, TrimBaseUrl and the loopback test.
#include "daemon/config/base_url.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::config {
namespace {

using ::testing::HasSubstr;

TEST(BaseUrlTest, SplitsValidUrls) {
  auto parts = ParseBaseUrl("HTTPS://API.OpenAI.com/v1/");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(parts->scheme, "https");
  EXPECT_EQ(parts->host, "api.openai.com");
  EXPECT_EQ(parts->port, std::nullopt);
  EXPECT_EQ(parts->path, "/v1");

  parts = ParseBaseUrl("http://127.0.0.1:11434/v1");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(parts->host, "127.0.0.1");
  EXPECT_EQ(parts->port, 11434);

  parts = ParseBaseUrl("http://[::1]:8080");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(parts->host, "::1");
  EXPECT_EQ(parts->port, 8080);
  EXPECT_EQ(parts->path, "");
}

TEST(BaseUrlTest, RefusesWhatCannotBeAnApiRoot) {
  struct Case {
    const char* url;
    const char* says;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"", "is empty"},
           {"localhost:11434", "has no scheme"},
           {"ws://h", "has scheme \"ws\""},
           {"https://", "has no host"},
           {"https://:80/v1", "has no host"},
           {"https://h:/v1", "has an empty port"},
           {"https://h:0", "has an invalid port \"0\""},
           {"https://h:65536", "has an invalid port"},
           {"https://h:8x", "has an invalid port"},
           {"https://h/v1#x", "must not contain a query (?) or fragment (#)"},
           {"https://h/v1 ", "contains whitespace"},
           {"https://h_a!b/v1", "has an invalid host"},
           {"https://[::1/v1", "unterminated [IPv6] host"},
           {"https://[zz]/", "invalid IPv6 host"},
           {"https://[::1]x/", "text after its [IPv6] host"},
           {"https://user:pw@h/v1", "must not contain credentials"},
       }) {
    auto parts = ParseBaseUrl(c.url);
    ASSERT_FALSE(parts.ok()) << c.url;
    EXPECT_EQ(parts.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(parts.status().message()), HasSubstr(c.says)) << c.url;
  }
}

TEST(BaseUrlTest, TrimDropsTrailingSlashesOnly) {
  EXPECT_EQ(TrimBaseUrl("http://h:1/v1//"), "http://h:1/v1");
  EXPECT_EQ(TrimBaseUrl("https://api.deepseek.com"), "https://api.deepseek.com");
}

TEST(BaseUrlTest, Loopback) {
  EXPECT_TRUE(IsLoopbackBaseUrl("http://localhost:11434/v1"));
  EXPECT_TRUE(IsLoopbackBaseUrl("http://127.0.0.1:8080"));
  EXPECT_TRUE(IsLoopbackBaseUrl("http://127.1.2.3"));
  EXPECT_TRUE(IsLoopbackBaseUrl("http://[::1]:11434/v1"));
  EXPECT_FALSE(IsLoopbackBaseUrl("http://127.example.com/v1"));
  EXPECT_FALSE(IsLoopbackBaseUrl("http://192.168.1.5:11434/v1"));
  EXPECT_FALSE(IsLoopbackBaseUrl("https://api.openai.com/v1"));
  EXPECT_FALSE(IsLoopbackBaseUrl("not a url"));
}

}  // namespace
}  // namespace raw::config
