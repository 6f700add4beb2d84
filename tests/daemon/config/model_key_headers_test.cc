// models.<name>.api_key and models.<name>.headers.
#include <string>
#include <vector>

#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::raw::config::testing::ProblemLines;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// A document with one model of `method` (plus `extra` members) and variable
// KEY.
std::string HeadersDoc(const std::string& method, const std::string& extra) {
  return R"({"variables": {"KEY": {"env": "K"}}, "models": {"m": {"method": ")" + method +
         R"(", "model_id": "x", "base_url": "https://api.example.com")" +
         (extra.empty() ? "" : ", " + extra) + "}}}";
}

TEST(ModelKeyHeadersTest, ReadsApiKeyAndHeaders) {
  absl::StatusOr<Config> config = ParseConfig(HeadersDoc(
      "openai-chat-completions",
      R"("api_key": "${KEY}", "headers": {"OpenAI-Project": "proj_1", "X-Trace": "t-${KEY}"})"));
  ASSERT_TRUE(config.ok()) << config.status();
  const ModelConfig& m = config->models.at("m");
  EXPECT_EQ(m.api_key, "${KEY}");
  EXPECT_EQ(m.api_key_env, "");
  EXPECT_EQ(m.headers.size(), 2u);
  EXPECT_EQ(m.headers.at("OpenAI-Project"), "proj_1");
  EXPECT_EQ(m.headers.at("X-Trace"), "t-${KEY}");
}

TEST(ModelKeyHeadersTest, DefaultsAreNoKeyAndNoHeaders) {
  absl::StatusOr<Config> config = ParseConfig(HeadersDoc("openai-chat-completions", ""));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->models.at("m").api_key, "");
  EXPECT_THAT(config->models.at("m").headers, IsEmpty());
}

TEST(ModelKeyHeadersTest, ApiKeyAndApiKeyEnvAreExclusive) {
  EXPECT_THAT(ProblemLines(HeadersDoc("openai-chat-completions",
                                      R"("api_key": "${KEY}", "api_key_env": "OPENAI_API_KEY")")),
              ElementsAre("models.m.api_key: set either api_key or api_key_env, not both"));
}

TEST(ModelKeyHeadersTest, BadApiKeyIsNeverEchoed) {
  EXPECT_THAT(ProblemLines(HeadersDoc("openai-chat-completions", R"("api_key": "")")),
              ElementsAre("models.m.api_key: expected the API key, normally a variable reference "
                          "such as \"${OPENAI_KEY}\" (see \"variables\")"));
  EXPECT_THAT(ProblemLines(HeadersDoc("openai-chat-completions", R"("api_key": 12345)")),
              ElementsAre(HasSubstr("models.m.api_key: expected the API key")));
  for (const std::string& line :
       ProblemLines(HeadersDoc("openai-chat-completions", R"("api_key": "sk-live-abc ${KEY")"))) {
    EXPECT_THAT(line, Not(HasSubstr("sk-live")));
    EXPECT_THAT(line, HasSubstr("models.m.api_key: the \"${\" at character 13"));
  }
}

TEST(ModelKeyHeadersTest, HeaderNamesAreTokensEachOnceIgnoringCase) {
  EXPECT_THAT(
      ProblemLines(HeadersDoc(
          "openai-chat-completions",
          R"("headers": {"X Bad": "v", "X-A": "1", "x-a": "2", "X-N": 5, "X-L": "a\r\nb"})")),
      ElementsAre(
          R"(models.m.headers["X Bad"]: invalid header name (letters, digits and !#$%&'*+-.^_`|~, no spaces))",
          "models.m.headers.X-L: a header value may not contain a line break or NUL",
          "models.m.headers.X-N: expected a string, got 5",
          "models.m.headers.x-a: the same header as \"X-A\" (header names ignore case)"));
  EXPECT_THAT(ProblemLines(HeadersDoc("openai-chat-completions", R"("headers": ["X-A: 1"])")),
              ElementsAre("models.m.headers: expected an object of header names to values, got "
                          "an array"));
}

TEST(ModelKeyHeadersTest, HeadersRawSendsItselfAreRefused) {
  EXPECT_THAT(
      ProblemLines(
          HeadersDoc("openai-chat-completions",
                     R"("headers": {"content-type": "text/plain", "Accept": "*/*", "Host": "h",
                                      "Content-Length": "1", "Transfer-Encoding": "chunked"})")),
      ElementsAre(
          "models.m.headers.Accept: Raw sends this header on every request; a second one is "
          "refused",
          "models.m.headers.Content-Length: derived from base_url and the request body; it "
          "cannot be set",
          "models.m.headers.Host: derived from base_url and the request body; it cannot be set",
          "models.m.headers.Transfer-Encoding: derived from base_url and the request body; it "
          "cannot be set",
          "models.m.headers.content-type: Raw sends this header on every request; a second one "
          "is refused"));
}

TEST(ModelKeyHeadersTest, TheKeyHeaderIsRefusedOnlyWhenRawSendsAKey) {
  // With a key, each method's key header would go out twice.
  EXPECT_THAT(
      ProblemLines(HeadersDoc("openai-chat-completions",
                              R"("api_key_env": "K", "headers": {"authorization": "Basic x"})")),
      ElementsAre(HasSubstr("models.m.headers.authorization: Raw sends the API key "
                            "(api_key or api_key_env) in this header for method "
                            "\"openai-chat-completions\"")));
  EXPECT_THAT(ProblemLines(HeadersDoc("openai-responses",
                                      R"("api_key": "${KEY}", "headers": {"Authorization": "x"})")),
              ElementsAre(HasSubstr("models.m.headers.Authorization: Raw sends the API key")));
  EXPECT_THAT(ProblemLines(HeadersDoc("anthropic-messages",
                                      R"("api_key": "${KEY}", "headers": {"X-Api-Key": "x"})")),
              ElementsAre(HasSubstr("models.m.headers.X-Api-Key: Raw sends the API key")));
  EXPECT_THAT(
      ProblemLines(HeadersDoc("google-generate-content",
                              R"("api_key": "${KEY}", "headers": {"x-goog-api-key": "x"})")),
      ElementsAre(HasSubstr("models.m.headers.x-goog-api-key: Raw sends the API key")));
  // Without a key the header is the user's, for example another scheme.
  EXPECT_THAT(ProblemLines(HeadersDoc("openai-chat-completions",
                                      R"("headers": {"Authorization": "Basic ${KEY}"})")),
              IsEmpty());
  // Another method's key header is an ordinary header.
  EXPECT_THAT(ProblemLines(HeadersDoc("anthropic-messages",
                                      R"("api_key": "${KEY}", "headers": {"Authorization": "x",
                                  "anthropic-beta": "b"})")),
              IsEmpty());
}

TEST(ModelKeyHeadersTest, AnthropicVersionIsRaws) {
  EXPECT_THAT(
      ProblemLines(HeadersDoc("anthropic-messages", R"("headers": {"anthropic-version": "1"})")),
      ElementsAre("models.m.headers.anthropic-version: Raw sends this header on every "
                  "request of method \"anthropic-messages\"; a second one is refused"));
  EXPECT_THAT(ProblemLines(HeadersDoc("openai-chat-completions",
                                      R"("headers": {"anthropic-version": "1"})")),
              IsEmpty());
}

}  // namespace
}  // namespace raw::config
