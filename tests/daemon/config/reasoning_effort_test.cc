// models.<name>.reasoning_effort: the values it takes, the one method it
// applies to, its path-specific errors, and that docs/config.md and
// docs/config.schema.json describe it as the loader reads it.
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "common/json.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/model_entry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A config whose model "m" has `method` and the members of `extra`.
std::string EffortDoc(const std::string& method, const Json& extra) {
  Json model = {{"method", method}, {"model_id", "x"}, {"base_url", "https://h.example/v1"}};
  model.update(extra);
  return DumpJson(Json{{"models", {{"m", model}}}, {"agents", {{"a", {{"model", "m"}}}}}});
}

std::vector<std::string> Problems(const std::string& method, const Json& extra) {
  return testing::ProblemLines(EffortDoc(method, extra));
}

std::string ReadDoc(const std::string& name) {
  std::ifstream in(std::string(RAW_SOURCE_DIR) + "/docs/" + name);
  EXPECT_TRUE(in.good()) << name;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(ReasoningEffortTest, EveryLevelOnResponses) {
  for (const char* effort : {"minimal", "low", "medium", "high"}) {
    absl::StatusOr<Config> config =
        ParseConfig(EffortDoc(kMethodOpenAiResponses, {{"reasoning_effort", effort}}));
    ASSERT_TRUE(config.ok()) << effort << ": " << config.status();
    EXPECT_EQ(config->models.at("m").reasoning_effort, effort);
  }
}

TEST(ReasoningEffortTest, UnsetByDefault) {
  absl::StatusOr<Config> config =
      ParseConfig(EffortDoc(kMethodOpenAiResponses, {{"max_retries", 2}}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->models.at("m").reasoning_effort, std::nullopt);
}

TEST(ReasoningEffortTest, MustBeAKnownLevel) {
  EXPECT_THAT(Problems(kMethodOpenAiResponses, {{"reasoning_effort", "max"}}),
              ElementsAre(R"(models.m.reasoning_effort: expected one of "minimal", "low", )"
                          R"("medium", "high", got "max")"));
  EXPECT_THAT(Problems(kMethodOpenAiResponses, {{"reasoning_effort", "High"}}),
              ElementsAre(R"(models.m.reasoning_effort: expected one of "minimal", "low", )"
                          R"("medium", "high", got "High")"));
  EXPECT_THAT(Problems(kMethodOpenAiResponses, {{"reasoning_effort", 3}}),
              ElementsAre(R"(models.m.reasoning_effort: expected one of "minimal", "low", )"
                          R"("medium", "high", got 3)"));
}

TEST(ReasoningEffortTest, OnlyForResponses) {
  for (const char* method :
       {kMethodOpenAiChat, kMethodAnthropicMessages, kMethodGoogleGenerateContent}) {
    EXPECT_THAT(Problems(method, {{"reasoning_effort", "low"}}),
                ElementsAre(std::string("models.m.reasoning_effort: only method "
                                        "\"openai-responses\" takes it (sent as "
                                        "reasoning.effort, with reasoning summaries); this model "
                                        "uses \"") +
                            method + "\""));
  }
  // The path names the model it was found in.
  EXPECT_THAT(testing::ProblemLines(testing::DocWith(R"("reasoning_effort": "high")", "")),
              ElementsAre(HasSubstr("models.flash.reasoning_effort: only method")));
}

TEST(ReasoningEffortTest, ReportedWithTheModelsOtherProblems) {
  EXPECT_THAT(Problems(kMethodOpenAiResponses, {{"max_retries", -1}, {"reasoning_effort", "huge"}}),
              ElementsAre(HasSubstr("models.m.max_retries:"),
                          HasSubstr("models.m.reasoning_effort: expected one of")));
}

TEST(ReasoningEffortTest, SchemaListsTheLoadersLevels) {
  absl::StatusOr<Json> schema = ParseJson(ReadDoc("config.schema.json"));
  ASSERT_TRUE(schema.ok()) << schema.status();
  const Json& effort =
      schema->at("definitions").at("model").at("properties").at("reasoning_effort");
  EXPECT_EQ(effort.at("type"), "string");
  std::set<std::string> levels;
  for (absl::string_view level : kReasoningEfforts) levels.emplace(level);
  EXPECT_EQ(effort.at("enum").get<std::set<std::string>>(), levels);
  EXPECT_FALSE(effort.contains("default")) << "unset sends no reasoning settings";
}

// models.<name>.thought_summaries: Gemini's thinkingConfig, on by default,
// off for a model without thinking (which refuses any thinkingConfig).
TEST(ThoughtSummariesTest, IncludedByDefaultOmittedOnRequestOnlyForGoogle) {
  absl::StatusOr<Config> config =
      ParseConfig(EffortDoc(kMethodGoogleGenerateContent, Json::object()));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->models.at("m").include_thoughts);
  config = ParseConfig(EffortDoc(kMethodGoogleGenerateContent, {{"thought_summaries", "omit"}}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->models.at("m").include_thoughts);
  EXPECT_THAT(Problems(kMethodGoogleGenerateContent, {{"thought_summaries", false}}),
              ElementsAre(R"(models.m.thought_summaries: expected one of "include", "omit", )"
                          R"(got false)"));
  EXPECT_THAT(Problems(kMethodAnthropicMessages, {{"thought_summaries", "omit"}}),
              ElementsAre(HasSubstr("models.m.thought_summaries: only method "
                                    "\"google-generate-content\" takes it")));
  absl::StatusOr<Json> schema = ParseJson(ReadDoc("config.schema.json"));
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_EQ(
      schema->at("definitions").at("model").at("properties").at("thought_summaries").at("enum"),
      Json::array({"include", "omit"}));
  EXPECT_THAT(ReadDoc("config.md"), HasSubstr("| `thought_summaries` |"));
}

TEST(ReasoningEffortTest, DocumentedInTheModelTable) {
  std::string doc = ReadDoc("config.md");
  EXPECT_THAT(doc, HasSubstr("| `reasoning_effort` |"));
  for (absl::string_view level : kReasoningEfforts) {
    EXPECT_THAT(doc, HasSubstr("`\"" + std::string(level) + "\"`")) << level;
  }
}

}  // namespace
}  // namespace raw::config
