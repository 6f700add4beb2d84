// agents.<name>: every field, its defaults and every validation rule.
#include "daemon/config/agent_entry.h"

#include <string>

#include "daemon/config/builtin_defaults.h"
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
using ::testing::IsEmpty;

// DocWith(model_extra, agent_extra) plus MCP server "github", so that
// "mcp/github/..." entries name a defined server.
std::string DocWithServer(const std::string& model_extra, const std::string& agent_extra) {
  std::string doc = DocWith(model_extra, agent_extra);
  doc.pop_back();
  return doc + R"(, "mcp_servers": {"github": {"command": ["github-mcp-server", "stdio"]}}})";
}

AgentConfig ParseAgent(const std::string& agent_extra, const std::string& model_extra = "") {
  absl::StatusOr<Config> config = ParseConfig(DocWithServer(model_extra, agent_extra));
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return {};
  return config->agents.at("coder");
}

TEST(AgentEntryTest, ReadsEveryField) {
  AgentConfig a = ParseAgent(
      R"("system_prompt": "Be brief.", "max_steps": 7,
         "tools": {"use": ["builtin/read_file", "mcp/github/*"]},
         "compact": {"trigger_tokens": 100000, "keep_recent_turns": 0, "max_output_tokens": 900})",
      R"("context_window_tokens": 128000)");
  EXPECT_EQ(a.name, "coder");
  EXPECT_EQ(a.model, "flash");
  EXPECT_EQ(a.system_prompt, "Be brief.");
  EXPECT_EQ(a.max_steps, 7);
  EXPECT_THAT(a.tools_use, ElementsAre("builtin/read_file", "mcp/github/*"));
  EXPECT_EQ(a.compact.trigger_tokens, 100000);
  EXPECT_EQ(a.compact.keep_recent_turns, 0);
  EXPECT_EQ(a.compact.max_output_tokens, 900);
}

TEST(AgentEntryTest, DefaultsOfOptionalFields) {
  absl::StatusOr<Config> config = ParseConfig(R"({"models": {"flash": )" + testing::ModelJson() +
                                              R"(}, "agents": {"coder": {}}})");
  ASSERT_TRUE(config.ok()) << config.status();
  const AgentConfig& a = config->agents.at("coder");
  EXPECT_EQ(a.model, "");  // automatic
  EXPECT_EQ(a.system_prompt, DefaultSystemPrompt());
  EXPECT_EQ(a.max_steps, 50);
  EXPECT_EQ(a.tools_use, DefaultToolsUse());
  EXPECT_EQ(a.compact, CompactSettings{});
  EXPECT_EQ(a.compact.keep_recent_turns, 2);
  EXPECT_EQ(a.compact.max_output_tokens, 512);
}

TEST(AgentEntryTest, EmptyModelPromptAndToolListAreKeptAsWritten) {
  AgentConfig a = ParseAgent(R"("system_prompt": "", "tools": {"use": []})");
  EXPECT_EQ(a.system_prompt, "");
  EXPECT_THAT(a.tools_use, IsEmpty());
  // "tools" without "use" keeps the default selection.
  EXPECT_EQ(ParseAgent(R"("tools": {})").tools_use, DefaultToolsUse());
}

TEST(AgentEntryTest, MaxStepsMustBeInRange) {
  EXPECT_THAT(ProblemLines(DocWith("", R"("max_steps": "ten")")),
              ElementsAre(R"(agents.coder.max_steps: expected a positive integer, got "ten")"));
  EXPECT_THAT(ProblemLines(DocWith("", R"("max_steps": 0)")),
              ElementsAre("agents.coder.max_steps: expected a positive integer, got 0"));
  EXPECT_THAT(ProblemLines(DocWith("", R"("max_steps": 1001)")),
              ElementsAre("agents.coder.max_steps: expected an integer from 1 to 1000, got 1001"));
  EXPECT_EQ(ParseAgent(R"("max_steps": 1000)").max_steps, 1000);
  EXPECT_EQ(ParseAgent(R"("max_steps": 1)").max_steps, 1);
}

TEST(AgentEntryTest, ModelMustBeDefined) {
  std::string doc = R"({"models": {"flash": )" + testing::ModelJson() +
                    R"(}, "agents": {"coder": {"model": "flsh"}}})";
  EXPECT_THAT(ProblemLines(doc),
              ElementsAre(R"(agents.coder.model: "flsh" is not a defined model (defined: flash))"));
  EXPECT_THAT(ProblemLines(R"({"agents": {"coder": {"model": 5}}})"),
              ElementsAre("agents.coder.model: expected a string, got 5"));
}

TEST(AgentEntryTest, ReferenceToBrokenModelIsNotReportedTwice) {
  // "flash" has its own problem; the agent naming it gets no second one.
  EXPECT_THAT(ProblemLines(DocWith(R"("max_output_tokens": -1)", "")),
              ElementsAre("models.flash.max_output_tokens: expected a positive integer, got -1"));
}

TEST(AgentEntryTest, SystemPromptMustBeString) {
  EXPECT_THAT(ProblemLines(DocWith("", R"("system_prompt": ["a"])")),
              ElementsAre("agents.coder.system_prompt: expected a string, got an array"));
}

TEST(AgentEntryTest, ToolsUseEntriesAreCheckedForShapeWithTheirIndex) {
  EXPECT_THAT(
      ProblemLines(DocWith(
          "",
          R"("tools": {"use": ["builtin/*", "bash", "", 3, "builtin//x", "builtin/a b", "builtin/*"]})")),
      ElementsAre(
          R"(agents.coder.tools.use[1]: "bash" does not start with builtin/ or mcp/ (expected a qualified tool name or glob such as "builtin/read_file", "builtin/*" or "mcp/<server>/*"))",
          R"(agents.coder.tools.use[2]: expected a qualified tool name or glob such as "builtin/read_file", "builtin/*" or "mcp/<server>/*", got "")",
          R"(agents.coder.tools.use[3]: expected a qualified tool name or glob such as "builtin/read_file", "builtin/*" or "mcp/<server>/*", got 3)",
          HasSubstr(R"(agents.coder.tools.use[4]: "builtin//x" is not a valid tool name or glob)"),
          HasSubstr(R"(agents.coder.tools.use[5]: "builtin/a b" is not a valid tool name or glob)"),
          R"(agents.coder.tools.use[6]: "builtin/*" is listed twice)"));
}

TEST(AgentEntryTest, ToolsObjectShape) {
  EXPECT_THAT(ProblemLines(DocWith("", R"("tools": ["builtin/bash"])")),
              ElementsAre("agents.coder.tools: expected an object, got an array"));
  EXPECT_THAT(
      ProblemLines(DocWith("", R"("tools": {"use": "builtin/bash"})")),
      ElementsAre(
          R"(agents.coder.tools.use: expected an array of tool names or globs, got "builtin/bash")"));
  EXPECT_THAT(ProblemLines(DocWith("", R"("tools": {"allow": []})")),
              ElementsAre("agents.coder.tools.allow: unknown key (expected one of: use)"));
}

TEST(AgentEntryTest, PackageReferencesAreCheckedForShape) {
  EXPECT_THAT(ProblemLines(DocWith("", R"("tools": {"use": ["builtin/*", "pkg/lint/check"]})")),
              ElementsAre(HasSubstr(
                  R"(agents.coder.tools.use[1]: "pkg/lint/check" is not a package reference (expected pkg/<alias>/mcp/<name>/<tool or glob>))")));
  EXPECT_EQ(CheckToolPattern("pkg/lint.v2/mcp/check/*"), std::nullopt);
  EXPECT_NE(CheckToolPattern("pkg/Lint/mcp/check/*"), std::nullopt);
  EXPECT_THAT(ProblemLines(DocWith("", R"("extends": "pkg/kit/skill/x")")),
              ElementsAre(HasSubstr(
                  R"(agents.coder.extends: "pkg/kit/skill/x" names export kind "skill" where "agent" is expected)")));
  EXPECT_THAT(ProblemLines(DocWith("", R"("skills": ["pkg/kit/skill"], "hooks": ["pkg/kit/hook/a"])")),
              ElementsAre(HasSubstr(R"(agents.coder.skills[0]: "pkg/kit/skill" is not a package reference)")));
}

TEST(AgentEntryTest, ToolPatternShapes) {
  for (const char* ok : {"builtin/read_file", "builtin/*", "mcp/github/create_issue", "mcp/*",
                         "mcp/git-hub/*_issue"}) {
    EXPECT_EQ(CheckToolPattern(ok), std::nullopt) << ok;
  }
  for (const char* bad : {"*", "read_file", "builtin", "builtin/", "Builtin/x", "tools/x",
                          "builtin/x/", "mcp//x", "builtin/x?"}) {
    EXPECT_NE(CheckToolPattern(bad), std::nullopt) << bad;
  }
}

TEST(AgentEntryTest, UnknownAgentKeyAndAgentShape) {
  EXPECT_THAT(ProblemLines(DocWith("", R"("maxsteps": 3)")),
              ElementsAre("agents.coder.maxsteps: unknown key (expected one of: model, "
                          "system_prompt, max_steps, tools, compact, rules, approval_mode, "
                          "approval_timeout_seconds, hooks, skills, pass_secret_env, "
                          "allow_private_addresses, allow_protected_paths, extends, prompts)"));
  EXPECT_THAT(
      ProblemLines(R"({"agents": {"my agent": {}, "x": "coder"}})"),
      ElementsAre(
          R"(agents["my agent"]: invalid agent name (use letters, digits, '_', '.' and '-'))",
          R"(agents.x: expected an object, got "coder")"));
  EXPECT_THAT(
      ProblemLines(R"({"agents": {}})"),
      ElementsAre(
          R"(agents: at least one agent is required (leave "agents" out to use the built-in "default" agent))"));
}

TEST(AgentEntryTest, CompactFieldsAreValidated) {
  EXPECT_THAT(
      ProblemLines(DocWith(
          R"("context_window_tokens": 128000)",
          R"("compact": {"trigger_tokens": 0, "keep_recent_turns": -1, "max_output_tokens": "512", "when": 1})")),
      ElementsAre(
          "agents.coder.compact.when: unknown key (expected one of: trigger_tokens, "
          "keep_recent_turns, max_output_tokens)",
          "agents.coder.compact.trigger_tokens: expected a positive integer, got 0",
          "agents.coder.compact.keep_recent_turns: expected a non-negative integer, got -1",
          R"(agents.coder.compact.max_output_tokens: expected a positive integer, got "512")"));
}

TEST(AgentEntryTest, CompactTriggerNeedsTheModelWindow) {
  EXPECT_THAT(ProblemLines(DocWith("", R"("compact": {"trigger_tokens": 1000})")),
              ElementsAre("agents.coder.compact.trigger_tokens: automatic compaction needs the "
                          "model's window: set models.flash.context_window_tokens"));
}

TEST(AgentEntryTest, CompactTriggerMustLeaveRoomForOutputAndAMargin) {
  // 128000 - 8000 (max_output_tokens) - 6400 (5% of the window) = 113600.
  EXPECT_THAT(
      ProblemLines(DocWith(R"("context_window_tokens": 128000, "max_output_tokens": 8000)",
                           R"("compact": {"trigger_tokens": 113601})")),
      ElementsAre(
          "agents.coder.compact.trigger_tokens: 113601 plus the output reserve (8000, the "
          "model's max_output_tokens) and a safety margin (6400, 5% of the window) exceeds the "
          "context window of model \"flash\" (128000); at most 113600 fits"));
  EXPECT_EQ(ParseAgent(R"("compact": {"trigger_tokens": 113600})",
                       R"("context_window_tokens": 128000, "max_output_tokens": 8000)")
                .compact.trigger_tokens,
            113600);
  // Without max_output_tokens the reserve is 4096: 128000 - 4096 - 6400.
  EXPECT_THAT(ProblemLines(DocWith(R"("context_window_tokens": 128000)",
                                   R"("compact": {"trigger_tokens": 117505})")),
              ElementsAre(HasSubstr("117505 plus the output reserve (4096, 4096 when "
                                    "max_output_tokens is unset) and a safety margin (6400, 5% "
                                    "of the window) exceeds the context window of model "
                                    "\"flash\" (128000); at most 117504 fits")));
  EXPECT_EQ(ParseAgent(R"("compact": {"trigger_tokens": 117504})",
                       R"("context_window_tokens": 128000)")
                .compact.trigger_tokens,
            117504);
  // The margin is rounded up: 5% of 1001 is 50.05, so 51.
  EXPECT_THAT(ProblemLines(DocWith(R"("context_window_tokens": 1001, "max_output_tokens": 100)",
                                   R"("compact": {"trigger_tokens": 851})")),
              ElementsAre(HasSubstr("a safety margin (51, 5% of the window)")));
  EXPECT_EQ(ParseAgent(R"("compact": {"trigger_tokens": 850})",
                       R"("context_window_tokens": 1001, "max_output_tokens": 100)")
                .compact.trigger_tokens,
            850);
}

TEST(AgentEntryTest, CompactRoomHelpers) {
  ModelConfig model;
  EXPECT_EQ(CompactOutputReserve(model), 4096);
  // What an anthropic-messages request sends without a cap of its own.
  model.method = kMethodAnthropicMessages;
  EXPECT_EQ(CompactOutputReserve(model), 8192);
  model.max_output_tokens = 100;
  EXPECT_EQ(CompactOutputReserve(model), 100);
  EXPECT_EQ(CompactSafetyMargin(128000), 6400);
  EXPECT_EQ(CompactSafetyMargin(1001), 51);
  EXPECT_EQ(CompactSafetyMargin(1), 1);
}

}  // namespace
}  // namespace raw::config
