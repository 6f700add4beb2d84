// ParseConfig at the document level: sections, defaults, default_agent,
// syntax, comments, duplicates and the collection of every problem.
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "daemon/config/builtin_defaults.h"
#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::raw::config::testing::ModelJson;
using ::raw::config::testing::ProblemLines;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

TEST(ConfigParseTest, MinimalFile) {
  absl::StatusOr<Config> config = ParseConfig(R"({"models": {"flash": )" + ModelJson() +
                                              R"(}, "agents": {"coder": {"model": "flash"}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->models, SizeIs(1));
  EXPECT_THAT(config->agents, SizeIs(1));
  EXPECT_EQ(config->default_agent, "coder");  // the only agent
  EXPECT_FALSE(config->builtin_defaults);
  EXPECT_EQ(config->source_path, "");
  EXPECT_EQ(config->tools, ToolSettings{});
}

TEST(ConfigParseTest, EmptyObjectMeansBuiltinSections) {
  absl::StatusOr<Config> config = ParseConfig("{}");
  ASSERT_TRUE(config.ok()) << config.status();
  Config defaults = BuiltinDefaults();
  EXPECT_EQ(config->models, defaults.models);
  EXPECT_EQ(config->agents, defaults.agents);
  EXPECT_EQ(config->default_agent, "default");
  EXPECT_EQ(config->tools, defaults.tools);
  EXPECT_FALSE(config->builtin_defaults);  // a file existed
}

TEST(ConfigParseTest, SectionsReplaceTheBuiltinOnesIndependently) {
  // Own agents, built-in models.
  absl::StatusOr<Config> config = ParseConfig(R"({"agents": {"coder": {"model": "deepseek"}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->models, BuiltinDefaults().models);
  EXPECT_THAT(config->agents, SizeIs(1));
  EXPECT_EQ(config->default_agent, "coder");

  // Own models, built-in "default" agent.
  config = ParseConfig(R"({"models": {"flash": )" + ModelJson() + "}}");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->models, SizeIs(1));
  EXPECT_EQ(config->agents, BuiltinDefaults().agents);
  EXPECT_EQ(config->default_agent, "default");
}

TEST(ConfigParseTest, DefaultAgent) {
  std::string models = R"("models": {"flash": )" + ModelJson() + "}";
  // "default" wins when defined.
  auto config = ParseConfig("{" + models + R"(, "agents": {"a": {}, "default": {}, "z": {}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->default_agent, "default");
  // Else the first by name.
  config = ParseConfig("{" + models + R"(, "agents": {"zed": {}, "beta": {}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->default_agent, "beta");
  // An explicit one must exist.
  config =
      ParseConfig("{" + models + R"(, "default_agent": "zed", "agents": {"zed": {}, "beta": {}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->default_agent, "zed");
  EXPECT_THAT(ProblemLines("{" + models +
                           R"(, "default_agent": "coder", "agents": {"zed": {}, "beta": {}}})"),
              ElementsAre(R"(default_agent: "coder" is not a defined agent (defined: beta, zed))"));
  EXPECT_THAT(ProblemLines(R"({"default_agent": 1})"),
              ElementsAre("default_agent: expected a string, got 1"));
  // With the built-in agents, only "default" exists.
  EXPECT_THAT(ProblemLines(R"({"default_agent": "coder"})"),
              ElementsAre(R"(default_agent: "coder" is not a defined agent (defined: default))"));
}

TEST(ConfigParseTest, ToolSettings) {
  absl::StatusOr<Config> config = ParseConfig(
      R"({"tools": {"bash": {"timeout_seconds": 600, "max_output_bytes": 1000},
                    "files": {"max_read_bytes": 4096}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->tools.bash.timeout_ms, 600000);
  EXPECT_EQ(config->tools.bash.max_output_bytes, 1000);
  EXPECT_EQ(config->tools.files.max_read_bytes, 4096);
  // Each left-out value keeps its default.
  config = ParseConfig(R"({"tools": {"bash": {"timeout_seconds": 1}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->tools.bash.max_output_bytes, 30000);
  EXPECT_EQ(config->tools.files.max_read_bytes, 262144);

  EXPECT_THAT(
      ProblemLines(
          R"({"tools": {"bash": {"timeout_seconds": "2m", "max_output_bytes": 0, "shell": "zsh"},
                                  "files": {"max_read_bytes": 2147483648}, "web": {}}})"),
      ElementsAre(
          "tools.web: unknown key (expected one of: bash, files, web_fetch)",
          "tools.bash.shell: unknown key (expected one of: timeout_seconds, max_output_bytes)",
          R"(tools.bash.timeout_seconds: expected a positive number of seconds, got "2m")",
          "tools.bash.max_output_bytes: expected a positive integer, got 0",
          "tools.files.max_read_bytes: expected an integer from 1 to 1073741824, got 2147483648"));
  EXPECT_THAT(ProblemLines(R"({"tools": {"files": 5}})"),
              ElementsAre("tools.files: expected an object, got 5"));
}

TEST(ConfigParseTest, UnknownTopLevelKeyAndSchemaKey) {
  EXPECT_THAT(ProblemLines(R"({"model": {}})"),
              ElementsAre("model: unknown key (expected one of: $schema, default_agent, models, "
                          "agents, tools, hooks, skill_dirs, variables, mcp_servers, sessions, "
                          "raven)"));
  EXPECT_THAT(ProblemLines(R"({"$schema": "./config.schema.json"})"), IsEmpty());
  EXPECT_THAT(ProblemLines(R"({"$schema": 1})"), ElementsAre("$schema: expected a string, got 1"));
}

TEST(ConfigParseTest, CommentsAreAccepted) {
  absl::StatusOr<Config> config = ParseConfig(R"(
    // line comment
    {
      /* block
         comment */
      "default_agent": "default", // trailing
      "tools": {"bash": {"timeout_seconds": 5 /* inline */}}
    }
  )");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->tools.bash.timeout_ms, 5000);
}

TEST(ConfigParseTest, SyntaxErrorReportsLineAndColumn) {
  std::vector<ConfigProblem> problems;
  absl::StatusOr<Config> config =
      ParseConfig("{\n  \"models\": {\n    \"a\": 1,\n  }\n}", &problems);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_THAT(problems, SizeIs(1));
  EXPECT_EQ(problems[0].path, "");
  EXPECT_THAT(problems[0].message, StartsWith("invalid JSON: parse error at line 4, column 3"));
  EXPECT_EQ(config.status().message(), problems[0].message);
}

TEST(ConfigParseTest, UnterminatedCommentIsSyntaxError) {
  EXPECT_THAT(ProblemLines("{ /* never closed "), ElementsAre(StartsWith("invalid JSON: ")));
}

TEST(ConfigParseTest, EmptyDocumentAndNonObject) {
  EXPECT_THAT(ProblemLines("  \n\t"),
              ElementsAre(HasSubstr("the document is empty (expected a JSON object")));
  EXPECT_THAT(ProblemLines("[1, 2]"),
              ElementsAre("expected a JSON object at the top level, got an array"));
  EXPECT_THAT(ProblemLines(R"("text")"),
              ElementsAre(R"(expected a JSON object at the top level, got "text")"));
}

TEST(ConfigParseTest, DuplicateKeysAreReportedAtTheirPath) {
  EXPECT_THAT(
      ProblemLines(
          R"({"tools": {"bash": {"timeout_seconds": 1, "timeout_seconds": 2}}, "tools": {}})"),
      ElementsAre(HasSubstr("tools.bash.timeout_seconds: duplicate key"),
                  HasSubstr("tools: duplicate key")));
}

TEST(ConfigParseTest, CollectsEveryProblemInOneRun) {
  const std::string doc = R"({
    "default_agent": "nobody",
    "models": {
      "flash": {"method": "anthropic", "modle_id": "x", "base_url": "ftp://x"}
    },
    "agents": {
      "coder": {"model": "flsh", "max_steps": "ten", "tools": {"use": ["bash"]}}
    },
    "tools": {"bash": {"timeout_seconds": 0}},
    "extra": true
  })";
  std::vector<ConfigProblem> problems;
  absl::StatusOr<Config> config = ParseConfig(doc, &problems);
  ASSERT_FALSE(config.ok());
  std::vector<std::string> lines;
  for (const ConfigProblem& p : problems) lines.push_back(p.ToString());
  EXPECT_THAT(
      lines,
      ElementsAre(
          "extra: unknown key (expected one of: $schema, default_agent, models, agents, tools, hooks, skill_dirs, variables, mcp_servers, sessions, raven)",
          HasSubstr("models.flash.modle_id: unknown key"),
          HasSubstr("models.flash.method: unknown method \"anthropic\""),
          HasSubstr("models.flash.model_id: required key is missing"),
          HasSubstr("models.flash.base_url: \"ftp://x\" has scheme \"ftp\""),
          R"(agents.coder.max_steps: expected a positive integer, got "ten")",
          HasSubstr("agents.coder.tools.use[0]: \"bash\" does not start with builtin/"),
          "tools.bash.timeout_seconds: expected a positive number of seconds, got 0",
          R"(default_agent: "nobody" is not a defined agent (defined: coder))",
          R"(agents.coder.model: "flsh" is not a defined model (defined: flash))"));
  // The status lists the same problems, one per line.
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<std::string> status_lines = absl::StrSplit(config.status().message(), '\n');
  EXPECT_EQ(status_lines, lines);
}

TEST(ConfigParseTest, ProblemListIsClearedOnSuccess) {
  std::vector<ConfigProblem> problems = {{"stale", "left over"}};
  ASSERT_TRUE(ParseConfig("{}", &problems).ok());
  EXPECT_THAT(problems, IsEmpty());
}

TEST(ConfigParseTest, ProblemToString) {
  EXPECT_EQ((ConfigProblem{"agents.coder.model", "bad"}).ToString(), "agents.coder.model: bad");
  EXPECT_EQ((ConfigProblem{"", "invalid JSON"}).ToString(), "invalid JSON");
}

TEST(ConfigParseTest, SpecExamplesParse) {
  // The model and agent examples of the context-and-compaction spec, joined.
  absl::StatusOr<Config> config = ParseConfig(R"({
    "models": {
      "flash": {
        "provider": "deepseek",
        "method": "openai-chat-completions",
        "model_id": "deepseek-flash",
        "base_url": "https://api.deepseek.com",
        "api_key_env": "DEEPSEEK_API_KEY",
        "context_window_tokens": 1048576
      }
    },
    "agents": {
      "deepseek": {
        "model": "flash",
        "tools": { "use": ["builtin/read_file", "builtin/write_file", "builtin/bash"] },
        "compact": {
          "trigger_tokens": 800000,
          "keep_recent_turns": 2,
          "max_output_tokens": 512
        }
      }
    }
  })");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->agents.at("deepseek").compact.trigger_tokens, 800000);
  EXPECT_EQ(config->models.at("flash").context_window_tokens, 1048576);
}

TEST(ConfigParseTest, SessionExpiry) {
  absl::StatusOr<Config> defaults = ParseConfig("{}");
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->sessions.expire_after_days, 30);
  absl::StatusOr<Config> never = ParseConfig(R"({"sessions": {"expire_after_days": 0}})");
  ASSERT_TRUE(never.ok()) << never.status();
  EXPECT_EQ(never->sessions.expire_after_days, 0);
  absl::StatusOr<Config> week = ParseConfig(R"({"sessions": {"expire_after_days": 7}})");
  ASSERT_TRUE(week.ok()) << week.status();
  EXPECT_EQ(week->sessions.expire_after_days, 7);
  EXPECT_THAT(ProblemLines(R"({"sessions": {"expire_after_days": -1, "keep": 1}})"),
              ElementsAre("sessions.keep: unknown key (expected one of: expire_after_days, "
                          "idle_unload_seconds, max_live_bytes)",
                          "sessions.expire_after_days: expected a non-negative integer, got -1"));
  EXPECT_EQ(defaults->sessions.idle_unload_seconds, 300);
  absl::StatusOr<Config> quick = ParseConfig(R"({"sessions": {"idle_unload_seconds": 2}})");
  ASSERT_TRUE(quick.ok()) << quick.status();
  EXPECT_EQ(quick->sessions.idle_unload_seconds, 2);
  EXPECT_EQ(ProblemLines(R"({"sessions": {"idle_unload_seconds": 0}})").size(), 1u);
  EXPECT_EQ(defaults->sessions.max_live_bytes, 8 * 1024 * 1024);
  absl::StatusOr<Config> live = ParseConfig(R"({"sessions": {"max_live_bytes": 65536}})");
  ASSERT_TRUE(live.ok()) << live.status();
  EXPECT_EQ(live->sessions.max_live_bytes, 65536);
  EXPECT_THAT(ProblemLines(R"({"sessions": {"max_live_bytes": 1000}})"),
              ElementsAre("sessions.max_live_bytes: expected an integer of at least 65536, got "
                          "1000"));
  EXPECT_THAT(ProblemLines(R"({"sessions": {"expire_after_days": 1.5}})"),
              ElementsAre("sessions.expire_after_days: expected a non-negative integer, got 1.5"));
  EXPECT_THAT(ProblemLines(R"({"sessions": {"expire_after_days": 99999999}})"),
              ElementsAre("sessions.expire_after_days: expected an integer from 0 to 36500, got "
                          "99999999"));
  EXPECT_THAT(ProblemLines(R"({"sessions": 30})"),
              ElementsAre("sessions: expected an object, got 30"));
}

TEST(ConfigParseTest, HostileInputNeverCrashes) {
  // Deep nesting, odd bytes and huge numbers all end in problems, not crashes.
  std::string deep(5000, '[');
  EXPECT_THAT(ProblemLines(deep), SizeIs(1));
  EXPECT_THAT(ProblemLines(std::string("{\"models\": {\"\xff\": 1}}")), SizeIs(1));
  EXPECT_THAT(ProblemLines(R"({"tools": {"bash": {"timeout_seconds": 1e999}}})"), SizeIs(1));
  EXPECT_THAT(ProblemLines(R"({"agents": {"a": {"max_steps": -99999999999999999999}}})"),
              ElementsAre(HasSubstr("agents.a.max_steps: expected a positive integer")));
}

}  // namespace
}  // namespace raw::config
