// ResolveAgent with fake environment lookups and a fake server probe.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// An environment holding exactly `vars`.
EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// A probe answering `up` and recording every URL it was asked about.
struct FakeProbe {
  explicit FakeProbe(bool up_answer = false) : up(up_answer) {}
  bool up;
  std::vector<std::string> asked;
  ServerProbe AsProbe() {
    return [this](const std::string& url) {
      asked.push_back(url);
      return up;
    };
  }
};

Config Defaults() { return BuiltinDefaults(); }

TEST(ResolveAgentTest, DefaultAgentTakesOpenAiWhenItsKeyIsSet) {
  FakeProbe probe;
  auto resolved = ResolveAgent(Defaults(), "", FakeEnv({{"OPENAI_API_KEY", "k"}}), probe.AsProbe());
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->agent.name, "default");
  EXPECT_EQ(resolved->model.name, "openai");
  EXPECT_THAT(probe.asked, IsEmpty());  // no probing when a key is set
}

// A session's chosen model replaces the agent's, without any choice by keys
// or probing; one that is not defined says so and names the defined ones.
TEST(ResolveAgentTest, ASessionsModelOverridesTheAgentsModel) {
  FakeProbe probe;
  auto resolved = ResolveAgent(Defaults(), "", FakeEnv({{"OPENAI_API_KEY", "k"}}),
                               probe.AsProbe(), "anthropic");
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->agent.name, "default");
  EXPECT_EQ(resolved->model.name, "anthropic");
  EXPECT_THAT(probe.asked, IsEmpty());

  auto unknown = ResolveAgent(Defaults(), "", FakeEnv({}), probe.AsProbe(), "gone");
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(unknown.status()));
  EXPECT_THAT(unknown.status().message(),
              HasSubstr("the session's model \"gone\" is not a defined model (defined: "));
  EXPECT_THAT(unknown.status().message(), HasSubstr("openai"));
}

TEST(ResolveAgentTest, BuiltinOrderDecidesWhenSeveralKeysAreSet) {
  FakeProbe probe;
  auto resolved =
      ResolveAgent(Defaults(), "default",
                   FakeEnv({{"OPENAI_API_KEY", "a"}, {"DEEPSEEK_API_KEY", "b"}}), probe.AsProbe());
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->model.name, "openai");  // openai before deepseek, although "d" < "o"

  resolved = ResolveAgent(Defaults(), "", FakeEnv({{"DEEPSEEK_API_KEY", "b"}}), probe.AsProbe());
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->model.name, "deepseek");
}

TEST(ResolveAgentTest, BuiltinOrderIsOpenAiAnthropicGeminiDeepSeek) {
  FakeProbe probe;
  std::map<std::string, std::string> keys = {{"OPENAI_API_KEY", "a"},
                                             {"ANTHROPIC_API_KEY", "b"},
                                             {"GEMINI_API_KEY", "c"},
                                             {"DEEPSEEK_API_KEY", "d"}};
  // Remove the chosen model's key each time: the next one in order follows.
  for (const char* expected : {"openai", "anthropic", "gemini", "deepseek"}) {
    auto resolved = ResolveAgent(Defaults(), "", FakeEnv(keys), probe.AsProbe());
    ASSERT_TRUE(resolved.ok()) << resolved.status();
    EXPECT_EQ(resolved->model.name, expected);
    keys.erase(resolved->model.api_key_env);
  }
  EXPECT_THAT(probe.asked, IsEmpty());
}

TEST(ResolveAgentTest, AnthropicAndGeminiKeysSelectTheirModels) {
  FakeProbe probe;
  auto resolved =
      ResolveAgent(Defaults(), "", FakeEnv({{"ANTHROPIC_API_KEY", "k"}}), probe.AsProbe());
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->model.name, "anthropic");
  EXPECT_EQ(resolved->model.method, kMethodAnthropicMessages);

  resolved = ResolveAgent(Defaults(), "", FakeEnv({{"GEMINI_API_KEY", "k"}}), probe.AsProbe());
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->model.name, "gemini");
  EXPECT_EQ(resolved->model.method, kMethodGoogleGenerateContent);
}

TEST(ResolveAgentTest, EmptyKeyValueCountsAsUnset) {
  FakeProbe probe;
  auto resolved =
      ResolveAgent(Defaults(), "", FakeEnv({{"OPENAI_API_KEY", ""}, {"DEEPSEEK_API_KEY", "b"}}),
                   probe.AsProbe());
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->model.name, "deepseek");
}

TEST(ResolveAgentTest, LocalServerIsUsedWhenNoKeyIsSetAndItAnswers) {
  FakeProbe probe(/*up_answer=*/true);
  auto resolved = ResolveAgent(Defaults(), "", FakeEnv({}), probe.AsProbe());
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->model.name, "ollama");
  EXPECT_EQ(resolved->model.base_url, "http://127.0.0.1:11434/v1");
  EXPECT_THAT(probe.asked, ElementsAre("http://127.0.0.1:11434/v1"));
}

TEST(ResolveAgentTest, LocalModelWithAVariableKeyIsNotChosenAutomatically) {
  // Automatic choice reads no variables: a model whose key is `api_key` is
  // used only when an agent names it.
  Config config = Defaults();
  config.models["ollama"].api_key = "${LOCAL_KEY}";
  FakeProbe probe(/*up_answer=*/true);
  auto resolved = ResolveAgent(config, "", FakeEnv({}), probe.AsProbe());
  ASSERT_FALSE(resolved.ok());
  EXPECT_THAT(probe.asked, IsEmpty());
  EXPECT_THAT(std::string(resolved.status().message()),
              HasSubstr("set agents.default.model to \"ollama\""));
  config.agents["default"].model = "ollama";
  resolved = ResolveAgent(config, "", FakeEnv({}), probe.AsProbe());
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->model.api_key, "${LOCAL_KEY}");
}

TEST(ResolveAgentTest, NothingUsableSaysExactlyWhatToDo) {
  FakeProbe probe(/*up_answer=*/false);
  auto resolved = ResolveAgent(Defaults(), "", FakeEnv({}), probe.AsProbe());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(resolved.status().message(),
            "no usable model for agent \"default\": set OPENAI_API_KEY, ANTHROPIC_API_KEY, "
            "GEMINI_API_KEY or DEEPSEEK_API_KEY, start a local OpenAI-compatible server at "
            "http://127.0.0.1:11434/v1 (Ollama), or define a model in the config file (raw "
            "config init writes a starting file)");
  EXPECT_THAT(probe.asked, ElementsAre("http://127.0.0.1:11434/v1"));
}

TEST(ResolveAgentTest, NothingUsableNamesTheConfigFile) {
  Config config = Defaults();
  config.source_path = "/home/u/.config/raw/config.json";
  auto resolved = ResolveAgent(config, "", FakeEnv({}), FakeProbe{}.AsProbe());
  ASSERT_FALSE(resolved.ok());
  EXPECT_THAT(std::string(resolved.status().message()),
              HasSubstr(", or define a model in /home/u/.config/raw/config.json (raw config init "
                        "writes a starting file)"));
}

TEST(ResolveAgentTest, NothingUsableInOwnFileListsItsModels) {
  absl::StatusOr<Config> config = ParseConfig(R"({
    "models": {
      "flash": )" + testing::ModelJson() + R"(,
      "work": {"method": "openai-chat-completions", "model_id": "m",
               "base_url": "https://llm.example/v1", "api_key_env": "WORK_KEY"},
      "box": {"method": "openai-chat-completions", "model_id": "m",
              "base_url": "http://localhost:8080/v1"}
    }})");
  ASSERT_TRUE(config.ok()) << config.status();
  config->source_path = "/cfg.json";
  FakeProbe probe;
  auto resolved = ResolveAgent(*config, "", FakeEnv({}), probe.AsProbe());
  ASSERT_FALSE(resolved.ok());
  // Models outside the built-in names are tried by name: box, flash, work.
  EXPECT_EQ(resolved.status().message(),
            "no usable model for agent \"default\": set DEEPSEEK_API_KEY or WORK_KEY, start a "
            "local OpenAI-compatible server at http://localhost:8080/v1 (local), or define a "
            "model in /cfg.json");
  EXPECT_THAT(probe.asked, ElementsAre("http://localhost:8080/v1"));
}

TEST(ResolveAgentTest, KeylessRemoteModelIsNeverChosenAutomatically) {
  absl::StatusOr<Config> config = ParseConfig(R"({
    "models": {"remote": {"method": "openai-chat-completions", "model_id": "m",
                          "base_url": "https://llm.example/v1"}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  FakeProbe probe(/*up_answer=*/true);
  auto resolved = ResolveAgent(*config, "", FakeEnv({}), probe.AsProbe());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().message(),
            "no usable model for agent \"default\": set agents.default.model to \"remote\" or "
            "define a model in the config file");
  EXPECT_THAT(probe.asked, IsEmpty());  // a keyless remote server is never probed
}

TEST(ResolveAgentTest, ExplicitModelIsReturnedWithoutCheckingItsKey) {
  absl::StatusOr<Config> config = ParseConfig(testing::DocWith("", R"("max_steps": 3)"));
  ASSERT_TRUE(config.ok()) << config.status();
  FakeProbe probe;
  auto resolved = ResolveAgent(*config, "coder", FakeEnv({}), probe.AsProbe());
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->agent.name, "coder");
  EXPECT_EQ(resolved->agent.max_steps, 3);
  EXPECT_EQ(resolved->model.name, "flash");
  EXPECT_EQ(resolved->model.api_key_env, "DEEPSEEK_API_KEY");
  EXPECT_THAT(probe.asked, IsEmpty());
}

TEST(ResolveAgentTest, UnknownAgentListsTheDefinedOnes) {
  absl::StatusOr<Config> config = ParseConfig(R"({"agents": {"coder": {}, "writer": {}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  auto resolved = ResolveAgent(*config, "review", FakeEnv({}), FakeProbe{}.AsProbe());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(resolved.status().message(), "unknown agent \"review\" (defined: coder, writer)");

  config->source_path = "/cfg.json";
  resolved = ResolveAgent(*config, "review", FakeEnv({}), FakeProbe{}.AsProbe());
  EXPECT_EQ(resolved.status().message(),
            "unknown agent \"review\" (defined in /cfg.json: coder, writer)");

  Config defaults = Defaults();
  defaults.source_path = "/missing.json";
  resolved = ResolveAgent(defaults, "review", FakeEnv({}), FakeProbe{}.AsProbe());
  EXPECT_EQ(resolved.status().message(), "unknown agent \"review\" (defined: default)");
}

TEST(ResolveAgentTest, EmptyNameMeansTheDefaultAgent) {
  absl::StatusOr<Config> config = ParseConfig(
      R"({"default_agent": "writer", "agents": {"coder": {"model": "openai"}, "writer": {"model": "deepseek"}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  auto resolved = ResolveAgent(*config, "", FakeEnv({}), FakeProbe{}.AsProbe());
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->agent.name, "writer");
  EXPECT_EQ(resolved->model.name, "deepseek");
}

TEST(ResolveAgentTest, HandBuiltConfigWithUndefinedModelIsAnError) {
  Config config = Defaults();
  config.agents["default"].model = "missing";
  auto resolved = ResolveAgent(config, "", FakeEnv({}), FakeProbe{}.AsProbe());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(resolved.status().message(),
            "agents.default.model: \"missing\" is not a defined model (defined: anthropic, "
            "deepseek, gemini, ollama, openai)");
}

TEST(ResolveAgentTest, AutomaticModelMustFitTheCompactionThreshold) {
  Config config = Defaults();
  config.agents["default"].compact.trigger_tokens = 100000;
  // deepseek's built-in window (128000) fits; ollama sets none.
  auto resolved =
      ResolveAgent(config, "", FakeEnv({{"DEEPSEEK_API_KEY", "k"}}), FakeProbe{}.AsProbe());
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  FakeProbe up(/*up_answer=*/true);
  resolved = ResolveAgent(config, "", FakeEnv({}), up.AsProbe());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().message(),
            "agents.default.compact.trigger_tokens: automatic compaction needs the model's "
            "window: set models.ollama.context_window_tokens");
}

TEST(ResolveAgentTest, MissingLookupsAreTreatedAsNothingSet) {
  auto resolved = ResolveAgent(Defaults(), "", EnvLookup(), ServerProbe());
  ASSERT_FALSE(resolved.ok());
  EXPECT_THAT(std::string(resolved.status().message()), HasSubstr("no usable model"));
}

}  // namespace
}  // namespace raw::config
