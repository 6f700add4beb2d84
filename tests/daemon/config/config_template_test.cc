// BuiltinDefaults and ConfigTemplate.
#include <regex>
#include <string>
#include <string_view>

#include "absl/strings/str_split.h"
#include "daemon/config/builtin_defaults.h"
#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

TEST(BuiltinDefaultsTest, Models) {
  Config config = BuiltinDefaults();
  EXPECT_TRUE(config.builtin_defaults);
  ASSERT_EQ(config.models.size(), 5u);

  const ModelConfig& openai = config.models.at("openai");
  EXPECT_EQ(openai.provider, "openai");
  EXPECT_EQ(openai.method, kMethodOpenAiChat);
  EXPECT_EQ(openai.base_url, "https://api.openai.com/v1");
  EXPECT_EQ(openai.api_key_env, "OPENAI_API_KEY");
  EXPECT_FALSE(openai.model_id.empty());
  EXPECT_EQ(openai.system_role, "developer");
  EXPECT_EQ(openai.max_tokens_field, "max_completion_tokens");

  const ModelConfig& anthropic = config.models.at("anthropic");
  EXPECT_EQ(anthropic.provider, "anthropic");
  EXPECT_EQ(anthropic.method, kMethodAnthropicMessages);
  EXPECT_THAT(anthropic.model_id, ::testing::StartsWith("claude-"));
  EXPECT_EQ(anthropic.base_url, "https://api.anthropic.com/v1");
  EXPECT_EQ(anthropic.api_key_env, "ANTHROPIC_API_KEY");
  EXPECT_EQ(anthropic.max_output_tokens, 8192);  // the Messages API requires a cap
  EXPECT_EQ(anthropic.cache_retention, "5m");

  const ModelConfig& gemini = config.models.at("gemini");
  EXPECT_EQ(gemini.provider, "google");
  EXPECT_EQ(gemini.method, kMethodGoogleGenerateContent);
  EXPECT_THAT(gemini.model_id, ::testing::StartsWith("gemini-"));
  EXPECT_EQ(gemini.base_url, "https://generativelanguage.googleapis.com/v1beta");
  EXPECT_EQ(gemini.api_key_env, "GEMINI_API_KEY");

  const ModelConfig& deepseek = config.models.at("deepseek");
  EXPECT_EQ(deepseek.provider, "deepseek");
  EXPECT_EQ(deepseek.model_id, "deepseek-chat");
  EXPECT_EQ(deepseek.base_url, "https://api.deepseek.com");
  EXPECT_EQ(deepseek.api_key_env, "DEEPSEEK_API_KEY");
  EXPECT_EQ(deepseek.system_role, "system");
  EXPECT_EQ(deepseek.max_tokens_field, "max_tokens");
  EXPECT_FALSE(deepseek.send_reasoning_content);

  const ModelConfig& ollama = config.models.at("ollama");
  EXPECT_EQ(ollama.provider, "ollama");
  EXPECT_EQ(ollama.base_url, "http://127.0.0.1:11434/v1");
  EXPECT_EQ(ollama.api_key_env, "");
  EXPECT_EQ(ollama.max_tokens_field, "max_tokens");

  EXPECT_EQ(openai.method, kMethodOpenAiChat);
  EXPECT_EQ(ollama.method, kMethodOpenAiChat);
  for (const auto& [name, m] : config.models) {
    EXPECT_EQ(m.name, name);
    EXPECT_EQ(m.max_retries, 4) << name;
    EXPECT_EQ(m.cache_key, std::nullopt) << name;
  }
  // Every built-in model is in the automatic order, and only those.
  EXPECT_THAT(kBuiltinModelOrder,
              ElementsAre("openai", "anthropic", "gemini", "deepseek", "ollama"));
  EXPECT_THAT(kBuiltinModelOrder,
              UnorderedElementsAre("openai", "anthropic", "gemini", "deepseek", "ollama"));
}

TEST(BuiltinDefaultsTest, DefaultAgent) {
  Config config = BuiltinDefaults();
  EXPECT_EQ(config.default_agent, "default");
  ASSERT_EQ(config.agents.size(), 1u);
  const AgentConfig& agent = config.agents.at("default");
  EXPECT_EQ(agent.name, "default");
  EXPECT_EQ(agent.model, "");  // chosen by ResolveAgent
  EXPECT_EQ(agent.system_prompt, DefaultSystemPrompt());
  EXPECT_THAT(agent.system_prompt, HasSubstr("coding agent"));
  EXPECT_THAT(agent.tools_use, ElementsAre("builtin/*"));
  EXPECT_EQ(agent.approval_mode, ApprovalMode::kDefault);
  EXPECT_EQ(agent.max_steps, 50);
  EXPECT_EQ(agent.compact.trigger_tokens, std::nullopt);
}

TEST(ConfigTemplateTest, ParsesToTheBuiltinDefaults) {
  std::string text = ConfigTemplate();
  absl::StatusOr<Config> parsed = ParseConfig(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  Config expected = BuiltinDefaults();
  expected.builtin_defaults = false;  // it is a file now
  EXPECT_EQ(*parsed, expected);
}

TEST(ConfigTemplateTest, ExplainsFieldsInComments) {
  std::string text = ConfigTemplate();
  EXPECT_THAT(text, HasSubstr("// "));
  for (const char* field :
       {"\"default_agent\"", "\"provider\"", "\"method\"", "\"model_id\"", "\"base_url\"",
        "\"api_key_env\"", "\"context_window_tokens\"", "\"max_output_tokens\"", "\"system_role\"",
        "\"max_tokens_field\"", "\"idle_timeout_seconds\"", "\"connect_timeout_seconds\"",
        "\"cache\"", "\"max_retries\"", "\"reasoning_content\"",
        "\"system_prompt\"", "\"max_steps\"", "\"use\"", "\"compact\"", "\"timeout_seconds\"",
        "\"max_output_bytes\"", "\"max_read_bytes\""}) {
    EXPECT_THAT(text, HasSubstr(field));
  }
  EXPECT_THAT(text, HasSubstr("OPENAI_API_KEY is set"));
  EXPECT_THAT(text, HasSubstr("DEEPSEEK_API_KEY is set"));
  EXPECT_THAT(text, HasSubstr("ANTHROPIC_API_KEY is set"));
  EXPECT_THAT(text, HasSubstr("GEMINI_API_KEY is set"));
  // No key material, only variable names.
  EXPECT_THAT(text, Not(HasSubstr("sk-")));
}

TEST(ConfigTemplateTest, CommentedOutExamplesAreValidWhenEnabled) {
  // Uncommenting every `// "key": value` line yields a valid file too.
  std::string text = ConfigTemplate();
  std::regex commented_entry(R"(^(\s*)// ("[a-z_]+": .*)$)");
  std::string enabled;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    enabled += std::regex_replace(std::string(line), commented_entry, "$1$2") + "\n";
  }
  ASSERT_NE(enabled, text);
  absl::StatusOr<Config> parsed = ParseConfig(enabled);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << enabled;
  EXPECT_EQ(parsed->models.at("openai").max_output_tokens, 8192);
  EXPECT_TRUE(parsed->agents.at("default").compact.trigger_tokens.has_value());
  EXPECT_EQ(parsed->models.at("openai").cache_key, "my-project");
  EXPECT_EQ(parsed->models.at("anthropic").cache_retention, "1h");
  EXPECT_EQ(parsed->raven.search.backend, SearchBackendKind::kSearxng);
}

}  // namespace
}  // namespace raw::config
