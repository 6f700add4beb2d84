#include "daemon/context/cache_key.h"

#include "gtest/gtest.h"

namespace raw::context {
namespace {

std::vector<providers::ToolDefinition> Tools(const std::string& schema) {
  return {{"read_file", "Read a file.", OrderedJson::parse(schema)}};
}

config::ModelConfig Model(const std::string& provider, const std::string& method) {
  config::ModelConfig m;
  m.provider = provider;
  m.method = method;
  return m;
}

TEST(CacheKeyTest, StableForTheSameSessionAndRuntime) {
  auto tools = Tools(R"({"type":"object"})");
  std::string a = DerivedCacheKey("s1", "sys", tools);
  EXPECT_EQ(a, DerivedCacheKey("s1", "sys", tools));
  EXPECT_EQ(a.size(), 20u);
  EXPECT_EQ(a.rfind("raw-", 0), 0u);
}

TEST(CacheKeyTest, ChangesWithTheSessionTheToolsOrTheSystemPrompt) {
  auto tools = Tools(R"({"type":"object"})");
  std::string base = DerivedCacheKey("s1", "sys", tools);
  EXPECT_NE(base, DerivedCacheKey("s2", "sys", tools));
  EXPECT_NE(base, DerivedCacheKey("s1", "sys2", tools));
  EXPECT_NE(base, DerivedCacheKey("s1", "sys", Tools(R"({"type":"object","required":["p"]})")));
  EXPECT_NE(base, DerivedCacheKey("s1", "sys", {}));
}

TEST(CacheKeyTest, WhoGetsAKey) {
  auto tools = Tools(R"({"type":"object"})");
  EXPECT_TRUE(PromptCacheKeyFor(Model("openai", config::kMethodOpenAiChat), "s", "", tools));
  EXPECT_TRUE(PromptCacheKeyFor(Model("openai", config::kMethodOpenAiResponses), "s", "", tools));
  // Other services get no guessed cache field.
  EXPECT_FALSE(PromptCacheKeyFor(Model("deepseek", config::kMethodOpenAiChat), "s", "", tools));
  EXPECT_FALSE(PromptCacheKeyFor(Model("ollama", config::kMethodOpenAiChat), "s", "", tools));
  EXPECT_FALSE(
      PromptCacheKeyFor(Model("anthropic", config::kMethodAnthropicMessages), "s", "", tools));
  // An explicit key takes precedence, for any service that takes one.
  auto explicit_key = Model("deepseek", config::kMethodOpenAiChat);
  explicit_key.cache_key = "team-key";
  EXPECT_EQ(PromptCacheKeyFor(explicit_key, "s", "", tools), "team-key");
  auto openai = Model("openai", config::kMethodOpenAiChat);
  openai.cache_key = "mine";
  EXPECT_EQ(PromptCacheKeyFor(openai, "s", "", tools), "mine");
}

}  // namespace
}  // namespace raw::context
