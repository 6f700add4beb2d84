// models.<name>: every field, its defaults and every validation rule.
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
using ::testing::HasSubstr;
using ::testing::Not;

// A document whose only model "m" is `model` (JSON text).
std::string DocWithModel(const std::string& model) {
  return R"({"models": {"m": )" + model + R"(}, "agents": {"a": {"model": "m"}}})";
}

ModelConfig ParseModel(const std::string& model) {
  absl::StatusOr<Config> config = ParseConfig(DocWithModel(model));
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return {};
  return config->models.at("m");
}

TEST(ModelEntryTest, ReadsEveryField) {
  ModelConfig m = ParseModel(R"({
      "provider": "openai", "method": "openai-chat-completions", "model_id": "gpt-5.1",
      "base_url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY",
      "context_window_tokens": 400000, "max_output_tokens": 8192,
      "system_role": "system", "max_tokens_field": "max_tokens",
      "idle_timeout_seconds": 90, "connect_timeout_seconds": 2.5,
      "cache": {"key": "proj-1"}, "max_retries": 2, "reasoning_content": "send"})");
  EXPECT_EQ(m.name, "m");
  EXPECT_EQ(m.provider, "openai");
  EXPECT_EQ(m.method, kMethodOpenAiChat);
  EXPECT_EQ(m.model_id, "gpt-5.1");
  EXPECT_EQ(m.base_url, "https://api.openai.com/v1");
  EXPECT_EQ(m.api_key_env, "OPENAI_API_KEY");
  EXPECT_EQ(m.context_window_tokens, 400000);
  EXPECT_EQ(m.max_output_tokens, 8192);
  EXPECT_EQ(m.system_role, "system");
  EXPECT_EQ(m.max_tokens_field, "max_tokens");
  EXPECT_EQ(m.idle_timeout_ms, 90000);
  EXPECT_EQ(m.connect_timeout_ms, 2500);
  EXPECT_EQ(m.cache_key, "proj-1");
  EXPECT_EQ(m.cache_retention, "5m");
  EXPECT_EQ(m.max_retries, 2);
  EXPECT_TRUE(m.send_reasoning_content);
}

TEST(ModelEntryTest, DefaultsOfOptionalFields) {
  ModelConfig m = ParseModel(
      R"({"method": "openai-chat-completions", "model_id": "x", "base_url": "https://h.example/v1"})");
  EXPECT_EQ(m.api_key_env, "");
  EXPECT_EQ(m.context_window_tokens, std::nullopt);
  EXPECT_EQ(m.max_output_tokens, std::nullopt);
  EXPECT_EQ(m.system_role, "system");
  EXPECT_EQ(m.max_tokens_field, "max_tokens");
  EXPECT_EQ(m.idle_timeout_ms, 300000);
  EXPECT_EQ(m.connect_timeout_ms, 15000);
  EXPECT_EQ(m.cache_key, std::nullopt);
  EXPECT_EQ(m.cache_retention, "5m");
  EXPECT_EQ(m.max_retries, 4);
  EXPECT_FALSE(m.send_reasoning_content);
}

TEST(ModelEntryTest, OpenAiProviderDefaultsToDeveloperRoleAndCompletionTokens) {
  ModelConfig m = ParseModel(
      R"({"provider": "openai", "method": "openai-chat-completions", "model_id": "x",
          "base_url": "https://gateway.example/v1"})");
  EXPECT_EQ(m.system_role, "developer");
  EXPECT_EQ(m.max_tokens_field, "max_completion_tokens");

  ModelConfig overridden = ParseModel(
      R"({"provider": "openai", "method": "openai-chat-completions", "model_id": "x",
          "base_url": "https://api.openai.com/v1", "system_role": "system",
          "max_tokens_field": "max_tokens"})");
  EXPECT_EQ(overridden.system_role, "system");
  EXPECT_EQ(overridden.max_tokens_field, "max_tokens");
}

TEST(ModelEntryTest, ProviderIsDerivedFromBaseUrlWhenLeftOut) {
  auto provider_for = [](const std::string& url) {
    return ParseModel(R"({"method": "openai-chat-completions", "model_id": "x", "base_url": ")" +
                      url + R"("})")
        .provider;
  };
  EXPECT_EQ(provider_for("https://api.openai.com/v1"), "openai");
  EXPECT_EQ(provider_for("https://api.deepseek.com"), "deepseek");
  EXPECT_EQ(provider_for("http://localhost:11434/v1"), "ollama");
  EXPECT_EQ(provider_for("http://127.0.0.1:11434/v1"), "ollama");
  EXPECT_EQ(provider_for("http://127.0.0.1:8080/v1"), "local");
  EXPECT_EQ(provider_for("http://[::1]:8080/v1"), "local");
  EXPECT_EQ(provider_for("https://openrouter.ai/api/v1"), "openrouter.ai");
  // The derived label also picks the defaults.
  ModelConfig openai = ParseModel(
      R"({"method": "openai-chat-completions", "model_id": "x", "base_url": "https://api.openai.com/v1"})");
  EXPECT_EQ(openai.system_role, "developer");
}

TEST(ModelEntryTest, UnknownKeyNamesPathAndKnownKeys) {
  EXPECT_THAT(
      ProblemLines(DocWith(R"("modle_id": "x")", "")),
      ElementsAre("models.flash.modle_id: unknown key (expected one of: provider, method, "
                  "model_id, base_url, api_key_env, api_key, headers, "
                  "context_window_tokens, max_output_tokens, system_role, "
                  "max_tokens_field, idle_timeout_seconds, connect_timeout_seconds, "
                  "cache, max_retries, reasoning_content, reasoning_effort, thought_summaries, "
                  "max_response_bytes, max_stream_seconds, images)"));
}

TEST(ModelEntryTest, RequiredFieldsAreReportedEachWithItsPath) {
  EXPECT_THAT(
      ProblemLines(DocWithModel("{}")),
      ElementsAre(
          "models.m.method: required key is missing (expected one of: openai-chat-completions, "
          "openai-responses, anthropic-messages, google-generate-content)",
          R"(models.m.model_id: required key is missing (expected the provider's model name, such as "gpt-5.1"))",
          R"(models.m.base_url: required key is missing (expected an http(s) URL such as "https://api.openai.com/v1"))"));
}

TEST(ModelEntryTest, EveryMethodIsSupported) {
  for (const char* method : {kMethodOpenAiChat, kMethodOpenAiResponses, kMethodAnthropicMessages,
                             kMethodGoogleGenerateContent}) {
    ModelConfig m = ParseModel(std::string(R"({"method": ")") + method +
                               R"(", "model_id": "x", "base_url": "https://h.example"})");
    EXPECT_EQ(m.method, method);
  }
}

TEST(ModelEntryTest, UnknownMethodAndWrongType) {
  const std::string methods =
      "openai-chat-completions, openai-responses, anthropic-messages, google-generate-content";
  EXPECT_THAT(
      ProblemLines(DocWithModel(
          R"({"method": "openai-chat", "model_id": "x", "base_url": "https://h.example"})")),
      ElementsAre(R"(models.m.method: unknown method "openai-chat" (expected one of: )" + methods +
                  ")"));
  EXPECT_THAT(
      ProblemLines(
          DocWithModel(R"({"method": 1, "model_id": "x", "base_url": "https://h.example"})")),
      ElementsAre("models.m.method: expected a string (one of: " + methods + "), got 1"));
}

TEST(ModelEntryTest, ModelIdMustBeNonEmptyString) {
  EXPECT_THAT(
      ProblemLines(DocWithModel(
          R"({"method": "openai-chat-completions", "model_id": " ", "base_url": "https://h.example"})")),
      ElementsAre(
          R"(models.m.model_id: expected the provider's model name, such as "gpt-5.1", got " ")"));
}

TEST(ModelEntryTest, BaseUrlMustBeHttpUrl) {
  auto problems_for = [](const std::string& url_json) {
    return ProblemLines(DocWithModel(
        R"({"method": "openai-chat-completions", "model_id": "x", "base_url": )" + url_json + "}"));
  };
  const std::string expected = R"((expected an http(s) URL such as "https://api.openai.com/v1"))";
  EXPECT_THAT(problems_for(R"("ftp://h.example")"),
              ElementsAre(R"(models.m.base_url: "ftp://h.example" has scheme "ftp" )" + expected));
  EXPECT_THAT(problems_for(R"("api.deepseek.com")"),
              ElementsAre(R"(models.m.base_url: "api.deepseek.com" has no scheme )" + expected));
  EXPECT_THAT(problems_for(R"("https:///v1")"),
              ElementsAre(R"(models.m.base_url: "https:///v1" has no host )" + expected));
  EXPECT_THAT(problems_for(R"("https://h.example:99999")"),
              ElementsAre(HasSubstr(R"(has an invalid port "99999")")));
  EXPECT_THAT(problems_for(R"("https://h.example/v1?x=1")"),
              ElementsAre(HasSubstr("must not contain a query (?) or fragment (#)")));
  EXPECT_THAT(problems_for(R"("https://h .example")"),
              ElementsAre(HasSubstr("contains whitespace")));
  EXPECT_THAT(problems_for(R"("")"), ElementsAre(HasSubstr("is empty")));
  EXPECT_THAT(problems_for("42"), ElementsAre("models.m.base_url: expected a string, got 42"));
}

TEST(ModelEntryTest, BaseUrlWithCredentialsIsRefusedWithoutEchoingThem) {
  auto lines = ProblemLines(DocWithModel(
      R"({"method": "openai-chat-completions", "model_id": "x", "base_url": "https://me:sk-secret@h.example/v1"})"));
  ASSERT_THAT(lines, ElementsAre(HasSubstr("models.m.base_url: the URL must not contain "
                                           "credentials")));
  EXPECT_THAT(lines[0], Not(HasSubstr("sk-secret")));
}

TEST(ModelEntryTest, BaseUrlTrailingSlashIsDropped) {
  ModelConfig m = ParseModel(
      R"({"method": "openai-chat-completions", "model_id": "x", "base_url": "http://localhost:8080/v1/"})");
  EXPECT_EQ(m.base_url, "http://localhost:8080/v1");
}

TEST(ModelEntryTest, ProviderMustBeLowercaseLabel) {
  EXPECT_THAT(
      ProblemLines(DocWith(R"("provider": "DeepSeek")", "")),
      ElementsAre(
          R"(models.flash.provider: expected a lowercase label such as "openai", "deepseek" or "ollama", got "DeepSeek")"));
}

TEST(ModelEntryTest, ApiKeyEnvMustBeVariableNameAndIsNeverEchoed) {
  auto lines = ProblemLines(DocWithModel(
      R"({"method": "openai-chat-completions", "model_id": "x", "base_url": "https://h.example",
          "api_key_env": "sk-live-123456"})"));
  ASSERT_THAT(lines, ElementsAre(HasSubstr("models.m.api_key_env: expected the name of an "
                                           "environment variable")));
  EXPECT_THAT(lines[0], Not(HasSubstr("sk-live")));
  EXPECT_THAT(ProblemLines(DocWithModel(
                  R"({"method": "openai-chat-completions", "model_id": "x",
                      "base_url": "https://h.example", "api_key_env": "9LIVES"})")),
              ElementsAre(HasSubstr("models.m.api_key_env:")));
}

TEST(ModelEntryTest, TokenCountsMustBePositiveIntegers) {
  EXPECT_THAT(
      ProblemLines(DocWith(R"("context_window_tokens": 0)", "")),
      ElementsAre("models.flash.context_window_tokens: expected a positive integer, got 0"));
  EXPECT_THAT(
      ProblemLines(DocWith(R"("context_window_tokens": "128k")", "")),
      ElementsAre(
          R"(models.flash.context_window_tokens: expected a positive integer, got "128k")"));
  EXPECT_THAT(ProblemLines(DocWith(R"("max_output_tokens": 1.5)", "")),
              ElementsAre("models.flash.max_output_tokens: expected a positive integer, got 1.5"));
  EXPECT_THAT(ProblemLines(DocWith(R"("context_window_tokens": 1000000000)", "")),
              ElementsAre("models.flash.context_window_tokens: expected an integer from 1 to "
                          "100000000, got 1000000000"));
}

TEST(ModelEntryTest, OutputCapMustBeBelowWindow) {
  EXPECT_THAT(
      ProblemLines(DocWith(R"("context_window_tokens": 8192, "max_output_tokens": 8192)", "")),
      ElementsAre("models.flash.max_output_tokens: must be less than context_window_tokens "
                  "(8192), got 8192"));
}

TEST(ModelEntryTest, RoleAndTokenFieldMustBeKnownValues) {
  EXPECT_THAT(
      ProblemLines(DocWith(R"("system_role": "user", "max_tokens_field": "max_output")", "")),
      ElementsAre(
          R"(models.flash.system_role: expected one of "system", "developer", got "user")",
          R"(models.flash.max_tokens_field: expected one of "max_tokens", "max_completion_tokens", got "max_output")"));
}

TEST(ModelEntryTest, TimeoutsMustBePositiveSeconds) {
  EXPECT_THAT(
      ProblemLines(DocWith(R"("idle_timeout_seconds": 0, "connect_timeout_seconds": "5s")", "")),
      ElementsAre(
          "models.flash.idle_timeout_seconds: expected a positive number of seconds, got 0",
          R"(models.flash.connect_timeout_seconds: expected a positive number of seconds, got "5s")"));
  EXPECT_THAT(ProblemLines(DocWith(R"("idle_timeout_seconds": -3)", "")),
              ElementsAre(HasSubstr("models.flash.idle_timeout_seconds: expected a positive")));
  EXPECT_THAT(ProblemLines(DocWith(R"("idle_timeout_seconds": 86401)", "")),
              ElementsAre("models.flash.idle_timeout_seconds: expected at most 86400 seconds, "
                          "got 86401"));
  // A tiny positive value still means at least one millisecond.
  ModelConfig m = ParseModel(
      R"({"method": "openai-chat-completions", "model_id": "x", "base_url": "https://h.example",
          "idle_timeout_seconds": 0.0001})");
  EXPECT_EQ(m.idle_timeout_ms, 1);
}

TEST(ModelEntryTest, ModelNameAndEntryShape) {
  EXPECT_THAT(
      ProblemLines(R"({"models": {"my model": 3}})"),
      ElementsAre(
          R"(models["my model"]: invalid model name (use letters, digits, '_', '.' and '-'))",
          R"(models["my model"]: expected an object, got 3)"));
  EXPECT_THAT(ProblemLines(R"({"models": []})"),
              ElementsAre("models: expected an object, got an array"));
  EXPECT_THAT(
      ProblemLines(R"({"models": {}})"),
      ElementsAre(
          R"(models: at least one model is required (leave "models" out to use the built-in ones))"));
}

TEST(ModelEntryTest, NamesMayUseDotsDashesAndUnderscores) {
  absl::StatusOr<Config> config =
      ParseConfig(R"({"models": {"gpt-4.1_mini": )" + testing::ModelJson() +
                  R"(}, "agents": {"a.b-c_d": {"model": "gpt-4.1_mini"}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->models.contains("gpt-4.1_mini"));
  EXPECT_EQ(config->agents.at("a.b-c_d").model, "gpt-4.1_mini");
}

}  // namespace
}  // namespace raw::config
