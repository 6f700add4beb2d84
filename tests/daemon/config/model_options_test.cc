// models.<name>.{cache, max_retries, reasoning_content}: values, defaults and
// the methods each one applies to.
#include <string>

#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::raw::config::testing::DocWith;
using ::raw::config::testing::ProblemLines;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A document whose only model "m" uses `method` plus the members `extra`.
std::string DocWithMethod(const std::string& method, const std::string& extra) {
  return R"({"models": {"m": {"method": ")" + method +
         R"(", "model_id": "x", "base_url": "https://h.example/v1", )" + extra +
         R"(}}, "agents": {"a": {"model": "m"}}})";
}

ModelConfig Parse(const std::string& method, const std::string& extra) {
  absl::StatusOr<Config> config = ParseConfig(DocWithMethod(method, extra));
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return {};
  return config->models.at("m");
}

TEST(ModelCacheTest, ExplicitKeyOnTheOpenAiMethods) {
  for (const char* method : {kMethodOpenAiChat, kMethodOpenAiResponses}) {
    ModelConfig m = Parse(method, R"("cache": {"key": "team-repo"})");
    EXPECT_EQ(m.cache_key, "team-repo") << method;
    EXPECT_EQ(m.cache_retention, "5m") << method;
  }
  // An empty cache object changes nothing.
  ModelConfig m = Parse(kMethodOpenAiChat, R"("cache": {})");
  EXPECT_EQ(m.cache_key, std::nullopt);
}

TEST(ModelCacheTest, KeyMustBeANonEmptyString) {
  EXPECT_THAT(ProblemLines(DocWith(R"("cache": {"key": ""})", "")),
              ElementsAre(R"(models.flash.cache.key: expected a non-empty string, got "")"));
  EXPECT_THAT(ProblemLines(DocWith(R"("cache": {"key": "  "})", "")),
              ElementsAre(R"(models.flash.cache.key: expected a non-empty string, got "  ")"));
  EXPECT_THAT(ProblemLines(DocWith(R"("cache": {"key": 7})", "")),
              ElementsAre("models.flash.cache.key: expected a non-empty string, got 7"));
}

TEST(ModelCacheTest, KeyIsRefusedWhereNoPromptCacheKeyIsSent) {
  for (const char* method : {kMethodAnthropicMessages, kMethodGoogleGenerateContent}) {
    EXPECT_THAT(ProblemLines(DocWithMethod(method, R"("cache": {"key": "k"})")),
                ElementsAre(std::string("models.m.cache.key: only methods "
                                        "\"openai-chat-completions\" and \"openai-responses\" "
                                        "send a prompt-cache key; this model uses \"") +
                            method + "\""));
  }
}

TEST(ModelCacheTest, RetentionOnAnthropic) {
  EXPECT_EQ(Parse(kMethodAnthropicMessages, R"("cache": {"retention": "1h"})").cache_retention,
            "1h");
  EXPECT_EQ(Parse(kMethodAnthropicMessages, R"("cache": {"retention": "5m"})").cache_retention,
            "5m");
  EXPECT_EQ(Parse(kMethodAnthropicMessages, R"("max_retries": 4)").cache_retention, "5m");
}

TEST(ModelCacheTest, RetentionMustBeAKnownValue) {
  EXPECT_THAT(
      ProblemLines(DocWithMethod(kMethodAnthropicMessages, R"("cache": {"retention": "24h"})")),
      ElementsAre(R"(models.m.cache.retention: expected one of "5m", "1h", got "24h")"));
  EXPECT_THAT(
      ProblemLines(DocWithMethod(kMethodAnthropicMessages, R"("cache": {"retention": 300})")),
      ElementsAre(R"(models.m.cache.retention: expected one of "5m", "1h", got 300)"));
}

TEST(ModelCacheTest, RetentionIsAnthropicOnly) {
  for (const char* method :
       {kMethodOpenAiChat, kMethodOpenAiResponses, kMethodGoogleGenerateContent}) {
    EXPECT_THAT(ProblemLines(DocWithMethod(method, R"("cache": {"retention": "1h"})")),
                ElementsAre(std::string("models.m.cache.retention: only method "
                                        "\"anthropic-messages\" takes a retention (the lifetime "
                                        "of its cache_control marker); this model uses \"") +
                            method + "\""));
  }
}

TEST(ModelCacheTest, ShapeAndUnknownKeys) {
  EXPECT_THAT(ProblemLines(DocWith(R"("cache": "team-repo")", "")),
              ElementsAre(R"(models.flash.cache: expected an object, got "team-repo")"));
  EXPECT_THAT(
      ProblemLines(DocWith(R"("cache": {"ttl": "1h"})", "")),
      ElementsAre("models.flash.cache.ttl: unknown key (expected one of: key, retention)"));
}

TEST(ModelCacheTest, MethodChecksWaitForAValidMethod) {
  // A broken method is reported once; the cache fields are not blamed for it.
  EXPECT_THAT(ProblemLines(DocWithMethod("anthropic", R"("cache": {"retention": "1h"})")),
              ElementsAre(::testing::StartsWith("models.m.method: unknown method \"anthropic\"")));
}

TEST(ModelRetriesTest, RangeAndDefault) {
  EXPECT_EQ(Parse(kMethodOpenAiChat, R"("max_retries": 0)").max_retries, 0);
  EXPECT_EQ(Parse(kMethodGoogleGenerateContent, R"("max_retries": 10)").max_retries, 10);
  EXPECT_EQ(Parse(kMethodAnthropicMessages, R"("cache": {})").max_retries, 4);
  EXPECT_THAT(ProblemLines(DocWith(R"("max_retries": 11)", "")),
              ElementsAre("models.flash.max_retries: expected an integer from 0 to 10, got 11"));
  EXPECT_THAT(ProblemLines(DocWith(R"("max_retries": -1)", "")),
              ElementsAre("models.flash.max_retries: expected a non-negative integer, got -1"));
  EXPECT_THAT(ProblemLines(DocWith(R"("max_retries": 2.5)", "")),
              ElementsAre("models.flash.max_retries: expected a non-negative integer, got 2.5"));
  EXPECT_THAT(ProblemLines(DocWith(R"("max_retries": "3")", "")),
              ElementsAre(R"(models.flash.max_retries: expected a non-negative integer, got "3")"));
}

TEST(ModelReasoningContentTest, SendAndOmit) {
  EXPECT_TRUE(Parse(kMethodOpenAiChat, R"("reasoning_content": "send")").send_reasoning_content);
  EXPECT_FALSE(Parse(kMethodOpenAiChat, R"("reasoning_content": "omit")").send_reasoning_content);
  EXPECT_FALSE(Parse(kMethodOpenAiChat, R"("max_retries": 4)").send_reasoning_content);
}

TEST(ModelReasoningContentTest, MustBeAKnownValue) {
  EXPECT_THAT(
      ProblemLines(DocWith(R"("reasoning_content": true)", "")),
      ElementsAre(R"(models.flash.reasoning_content: expected one of "omit", "send", got true)"));
}

TEST(ModelReasoningContentTest, OnlyForChatCompletions) {
  for (const char* method :
       {kMethodOpenAiResponses, kMethodAnthropicMessages, kMethodGoogleGenerateContent}) {
    EXPECT_THAT(ProblemLines(DocWithMethod(method, R"("reasoning_content": "send")")),
                ElementsAre(std::string("models.m.reasoning_content: only method "
                                        "\"openai-chat-completions\" takes it (whether "
                                        "reasoning_content goes back on assistant messages that "
                                        "made tool calls); this model uses \"") +
                            method + "\""));
  }
}

TEST(ModelOptionsTest, AllProblemsOfOneModelAreReported) {
  EXPECT_THAT(
      ProblemLines(DocWithMethod(
          kMethodGoogleGenerateContent,
          R"("cache": {"key": "", "retention": "1h"}, "max_retries": 99, "reasoning_content": "x")")),
      ElementsAre(R"(models.m.cache.key: expected a non-empty string, got "")",
                  ::testing::StartsWith("models.m.cache.retention: only method"),
                  "models.m.max_retries: expected an integer from 0 to 10, got 99",
                  R"(models.m.reasoning_content: expected one of "omit", "send", got "x")"));
  EXPECT_THAT(ProblemLines(DocWithMethod(kMethodOpenAiChat,
                                         R"("cache": {"key": "k"}, "max_retries": 0, )"
                                         R"("reasoning_content": "send")")),
              IsEmpty());
}

}  // namespace
}  // namespace raw::config
