// agents.<name>.{rules, approval_mode, approval_timeout_seconds, hooks,
// skills}, the top-level hooks map and skill_dirs: every field and every
// validation rule, with the exact path of each problem.
#include "daemon/config/policy_entry.h"

#include <set>
#include <string>

#include "daemon/config/config_loader.h"
#include "daemon/config/withheld_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::raw::config::testing::DocWith;
using ::raw::config::testing::ModelJson;
using ::raw::config::testing::ProblemLines;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A document with agent "coder" (agent_extra) and top-level members.
std::string PolicyDoc(const std::string& agent_extra, const std::string& top_extra = "") {
  std::string doc = DocWith("", agent_extra);
  if (top_extra.empty()) return doc;
  doc.pop_back();  // the closing brace
  return doc + ", " + top_extra + "}";
}

TEST(PolicyEntryTest, ReadsRulesModesHooksAndSkills) {
  auto config = ParseConfig(PolicyDoc(
      R"("rules": [{"allow": "builtin/bash", "command": "git status"},
                   {"deny": "builtin/*", "path": "/etc/**"},
                   {"ask": "builtin/web_fetch"}],
         "approval_mode": "ask_all", "approval_timeout_seconds": 1.5,
         "hooks": ["lint"], "skills": ["review", "dep*"])",
      R"("hooks": {"lint": {"event": "pre_tool_use", "command": ["./lint.sh", "-q"],
                            "matcher": "builtin/bash", "timeout_seconds": 5,
                            "on_failure": "block"}},
         "skill_dirs": ["skills", "/opt/skills"])"));
  ASSERT_TRUE(config.ok()) << config.status();
  const AgentConfig& a = config->agents.at("coder");
  ASSERT_EQ(a.rules.size(), 3u);
  EXPECT_EQ(a.rules[0].action, RuleAction::kAllow);
  EXPECT_EQ(a.rules[0].tool, "builtin/bash");
  EXPECT_EQ(a.rules[0].command, "git status");
  EXPECT_EQ(a.rules[1].action, RuleAction::kDeny);
  EXPECT_EQ(a.rules[1].path, "/etc/**");
  EXPECT_EQ(a.rules[2].action, RuleAction::kAsk);
  EXPECT_FALSE(a.rules[2].command.has_value());
  EXPECT_EQ(a.approval_mode, ApprovalMode::kAskAll);
  EXPECT_EQ(a.approval_timeout_ms, 1500);
  EXPECT_THAT(a.hooks, ElementsAre("lint"));
  EXPECT_THAT(a.skills, ElementsAre("review", "dep*"));
  const HookConfig& h = config->hooks.at("lint");
  EXPECT_EQ(h.event, HookEvent::kPreToolUse);
  EXPECT_THAT(h.command, ElementsAre(DefaultParseContext().config_dir + "/lint.sh", "-q"));
  EXPECT_EQ(h.matcher, "builtin/bash");
  EXPECT_EQ(h.timeout_ms, 5000);
  EXPECT_EQ(h.on_failure, HookFailurePolicy::kBlock);
  EXPECT_THAT(config->skill_dirs, ElementsAre("skills", "/opt/skills"));
}

// A hook's program path is the config's, like every other path in it: the
// session's working directory is the project's, and whoever wrote the
// project must not choose what runs at every prompt or tool call.
TEST(PolicyEntryTest, AHookProgramPathIsRelativeToTheConfigFile) {
  const ParseContext context{"/etc/raw-test", "/home/me"};
  auto config = ParseConfig(PolicyDoc("", R"("hooks": {
        "dot": {"event": "turn_end", "command": ["./.raw/hooks/log.sh", "./arg"]},
        "sub": {"event": "turn_end", "command": ["hooks/log.sh"]},
        "home": {"event": "turn_end", "command": ["~/bin/log.sh"]},
        "abs": {"event": "turn_end", "command": ["/usr/bin/logger", "-t", "raw"]},
        "bare": {"event": "turn_end", "command": ["logger"]}})"),
                            context);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->hooks.at("dot").command,
              ElementsAre("/etc/raw-test/.raw/hooks/log.sh", "./arg"));
  EXPECT_THAT(config->hooks.at("sub").command, ElementsAre("/etc/raw-test/hooks/log.sh"));
  EXPECT_THAT(config->hooks.at("home").command, ElementsAre("/home/me/bin/log.sh"));
  EXPECT_THAT(config->hooks.at("abs").command, ElementsAre("/usr/bin/logger", "-t", "raw"));
  EXPECT_THAT(config->hooks.at("bare").command, ElementsAre("logger"));

  std::vector<ConfigProblem> problems;
  EXPECT_FALSE(ParseConfig(PolicyDoc("", R"("hooks": {
        "h": {"event": "turn_end", "command": ["~/x.sh"]}})"),
                           ParseContext{"/etc/raw-test", ""}, &problems)
                   .ok());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, "hooks.h.command[0]");
  EXPECT_THAT(problems[0].message, HasSubstr("HOME is not set"));
}

TEST(PolicyEntryTest, Defaults) {
  auto config = ParseConfig(PolicyDoc(""));
  ASSERT_TRUE(config.ok()) << config.status();
  const AgentConfig& a = config->agents.at("coder");
  EXPECT_TRUE(a.rules.empty());
  EXPECT_EQ(a.approval_mode, ApprovalMode::kDefault);
  EXPECT_EQ(a.approval_timeout_ms, 300000);
  EXPECT_TRUE(a.hooks.empty());
  EXPECT_TRUE(a.skills.empty());
}

TEST(PolicyEntryTest, ReadsUrlRulesAndTheExplicitLifts) {
  auto config = ParseConfig(PolicyDoc(
      R"("rules": [{"allow": "builtin/web_fetch", "url": "https://docs.python.org/*"}],
         "allow_private_addresses": true,
         "allow_protected_paths": ["~/.kube/config", "raw-state"])"));
  ASSERT_TRUE(config.ok()) << config.status();
  const AgentConfig& a = config->agents.at("coder");
  ASSERT_EQ(a.rules.size(), 1u);
  EXPECT_EQ(a.rules[0].url, "https://docs.python.org/*");
  EXPECT_TRUE(a.allow_private_addresses);
  EXPECT_THAT(a.allow_protected_paths, ElementsAre("~/.kube/config", "raw-state"));
  auto defaults = ParseConfig(PolicyDoc(""));
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_FALSE(defaults->agents.at("coder").allow_private_addresses);
  EXPECT_TRUE(defaults->agents.at("coder").allow_protected_paths.empty());
}

TEST(PolicyEntryTest, BadLiftsAndUrlRulesNameTheirPath) {
  EXPECT_THAT(ProblemLines(PolicyDoc(R"("allow_protected_paths": ["~/.ssh/id_rsa"])")),
              ElementsAre(HasSubstr("agents.coder.allow_protected_paths[0]: \"~/.ssh/id_rsa\" is "
                                    "not a protected path (one of: ~/.ssh, ~/.aws")));
  EXPECT_THAT(ProblemLines(PolicyDoc(R"("allow_private_addresses": "yes")")),
              ElementsAre(HasSubstr("agents.coder.allow_private_addresses")));
  EXPECT_THAT(
      ProblemLines(PolicyDoc(R"("rules": [{"allow": "builtin/web_fetch", "url": "re:("}])")),
      ElementsAre(HasSubstr("agents.coder.rules[0].url: ")));
  EXPECT_THAT(ProblemLines(PolicyDoc(
                  R"("rules": [{"allow": "builtin/x", "url": "https://a/*", "path": "b"}])")),
              ElementsAre(HasSubstr("not several")));
}

TEST(PolicyEntryTest, BadRulesNameTheirPath) {
  EXPECT_THAT(
      ProblemLines(PolicyDoc(R"("rules": [{"allow": "builtin/bash", "command": "re:^(git"}])")),
      ElementsAre(HasSubstr("agents.coder.rules[0].command: ")));
  EXPECT_THAT(ProblemLines(PolicyDoc(R"("rules": [{"command": "ls"}])")),
              ElementsAre(HasSubstr("agents.coder.rules[0]: a rule needs exactly one of")));
  EXPECT_THAT(ProblemLines(PolicyDoc(R"("rules": [{"allow": "a", "deny": "b"}])")),
              ElementsAre(HasSubstr("found 2")));
  EXPECT_THAT(ProblemLines(PolicyDoc(R"("rules": [{"allow": "builtin/x", "colour": 1}])")),
              ElementsAre(HasSubstr("agents.coder.rules[0].colour: unknown key")));
  EXPECT_THAT(
      ProblemLines(PolicyDoc(R"("rules": [{"allow": "builtin/x", "path": "a", "command": "b"}])")),
      ElementsAre(HasSubstr("not several")));
  EXPECT_THAT(ProblemLines(PolicyDoc(
                  R"("rules": [{"allow": "builtin/bash", "redirect": "", "command": "b"}])")),
              ElementsAre(HasSubstr("agents.coder.rules[0].redirect: ")));
  EXPECT_THAT(ProblemLines(PolicyDoc(
                  R"("rules": [{"allow": "builtin/bash", "redirect": "/tmp/*", "command": "b"}])")),
              ElementsAre(HasSubstr("not several")));
  EXPECT_THAT(ProblemLines(PolicyDoc(R"("rules": {"allow": "x"})")),
              ElementsAre(HasSubstr("agents.coder.rules: expected an array of rules")));
  EXPECT_THAT(ProblemLines(PolicyDoc(R"("approval_mode": "yolo")")),
              ElementsAre(HasSubstr("agents.coder.approval_mode")));
}

// A hook's command is an argv: its arguments may repeat or be empty, as on
// a command line.
TEST(PolicyEntryTest, AHooksArgumentsMayRepeatOrBeEmpty) {
  auto config = ParseConfig(PolicyDoc("", R"("hooks": {"h": {"event": "turn_end",
      "command": ["curl", "-H", "a: 1", "-H", "b: 2", "-d", "", "http://127.0.0.1:1/"]}})"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->hooks.at("h").command,
              ElementsAre("curl", "-H", "a: 1", "-H", "b: 2", "-d", "", "http://127.0.0.1:1/"));
}

TEST(PolicyEntryTest, BadHooksNameTheirPath) {
  EXPECT_THAT(ProblemLines(PolicyDoc(R"("hooks": ["missing"])")),
              ElementsAre(HasSubstr("agents.coder.hooks[0]: \"missing\" is not a defined hook")));
  EXPECT_THAT(
      ProblemLines(PolicyDoc("", R"("hooks": {"h": {"event": "on_save", "command": ["x"]}})")),
      ElementsAre(HasSubstr("hooks.h.event")));
  EXPECT_THAT(ProblemLines(PolicyDoc("", R"("hooks": {"h": {"event": "turn_end"}})")),
              ElementsAre(HasSubstr("hooks.h.command: required key is missing")));
  EXPECT_THAT(
      ProblemLines(PolicyDoc("", R"("hooks": {"h": {"event": "turn_end", "command": []}})")),
      ElementsAre(HasSubstr("hooks.h.command: expected the command to run, as an array")));
  EXPECT_THAT(
      ProblemLines(PolicyDoc("", R"("hooks": {"h": {"event": "turn_end", "command": ["", "x"]}})")),
      ElementsAre(HasSubstr("hooks.h.command[0]: expected a program name or path")));
  EXPECT_THAT(ProblemLines(PolicyDoc("", R"("hooks": {"h": {"event": "turn_end", "command": ["x"],
                                                "matcher": "builtin/*"}})")),
              ElementsAre(HasSubstr("hooks.h.matcher: only pre_tool_use and post_tool_use")));
  EXPECT_THAT(ProblemLines(PolicyDoc("", R"("hooks": {"h": {"event": "turn_end", "command": ["x"],
                                                        "on_failure": "retry"}})")),
              ElementsAre(HasSubstr("hooks.h.on_failure")));
}

TEST(PolicyEntryTest, BadSkillsAndDirs) {
  EXPECT_THAT(ProblemLines(PolicyDoc(R"("skills": "review")")),
              ElementsAre(HasSubstr("agents.coder.skills: expected an array")));
  EXPECT_THAT(ProblemLines(PolicyDoc(R"("skills": ["a", "a"])")),
              ElementsAre(HasSubstr("agents.coder.skills[1]: \"a\" is listed twice")));
  EXPECT_THAT(ProblemLines(PolicyDoc("", R"("skill_dirs": [3])")),
              ElementsAre(HasSubstr("skill_dirs[0]: expected a directory path")));
}

TEST(PolicyEntryTest, PassSecretEnvNamesOnlyWithheldVariables) {
  // The model's api_key_env and a secret env variable are withheld from
  // commands; the agent passes both back.
  auto config = ParseConfig(PolicyDoc(
      R"("pass_secret_env": ["DEEPSEEK_API_KEY", "GH_TOKEN"])",
      R"("variables": {"GH": {"env": "GH_TOKEN"}, "ORG": {"env": "ORG_ID", "secret": false}})"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(WithheldEnvNames(*config), (std::set<std::string>{"DEEPSEEK_API_KEY", "GH_TOKEN"}));
  EXPECT_TRUE(WithheldEnvFor(*config, config->agents.at("coder")).empty());

  EXPECT_THAT(
      ProblemLines(PolicyDoc(R"("pass_secret_env": ["ORG_ID"])",
                             R"("variables": {"ORG": {"env": "ORG_ID", "secret": false}})")),
      ElementsAre(HasSubstr("agents.coder.pass_secret_env[0]: \"ORG_ID\" is not withheld")));
  EXPECT_THAT(ProblemLines(PolicyDoc(R"("pass_secret_env": ["NOT-A-NAME"])")),
              ElementsAre(HasSubstr("agents.coder.pass_secret_env[0]: expected the name of an "
                                    "environment variable"),
                          HasSubstr("agents.coder.pass_secret_env[0]: \"NOT-A-NAME\" is not "
                                    "withheld")));
}

}  // namespace
}  // namespace raw::config
