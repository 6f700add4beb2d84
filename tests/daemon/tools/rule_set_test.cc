// RuleSet: the first matching rule decides and is named in the reason; tool
// patterns and subject kinds; what the approval mode decides when no rule
// matches; and compile errors that name the rule and its field.
#include "daemon/tools/policy/rule_set.h"

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/rule_test_support.h"

namespace raw::tools::policy {
namespace {

using config::ApprovalMode;
using config::RuleAction;
using config::RuleConfig;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using tools::testing::Bash;
using tools::testing::Command;
using tools::testing::kBash;
using tools::testing::kFetch;
using tools::testing::kMcp;
using tools::testing::kRead;
using tools::testing::kWrite;
using tools::testing::Path;
using tools::testing::Redirect;
using tools::testing::Rules;
using tools::testing::Whole;

TEST(RuleSetTest, FirstMatchingRuleWins) {
  RuleSet allow_first =
      Rules({Command(RuleAction::kAllow, "git *"), Command(RuleAction::kDeny, "git push *")});
  EXPECT_EQ(Bash(allow_first, "git push origin").action, RuleAction::kAllow);
  RuleSet deny_first =
      Rules({Command(RuleAction::kDeny, "git push *"), Command(RuleAction::kAllow, "git *")});
  Decision denied = Bash(deny_first, "git push origin");
  EXPECT_EQ(denied.action, RuleAction::kDeny);
  EXPECT_EQ(
      denied.reason,
      "\"git push origin\": agents.coder.rules[0] (deny builtin/bash command \"git push *\")");
  Decision allowed = Bash(deny_first, "git status");
  EXPECT_EQ(allowed.action, RuleAction::kAllow);
  EXPECT_EQ(allowed.reason,
            "\"git status\": agents.coder.rules[1] (allow builtin/bash command \"git *\")");
}

TEST(RuleSetTest, TheReasonNamesEveryPartThatAsks) {
  RuleSet rules = Rules({Command(RuleAction::kAllow, "git *"), Command(RuleAction::kDeny, "rm *"),
                         Command(RuleAction::kDeny, "shred *")});
  EXPECT_EQ(Bash(rules, "git a && make && npm test | tee log").reason,
            "\"make\": builtin/bash is not read-only; no rule matched; \"npm test\": "
            "builtin/bash is not read-only; no rule matched; \"tee log\": builtin/bash is not "
            "read-only; no rule matched");
  EXPECT_EQ(Bash(rules, "make; rm a; shred b").reason,
            "\"rm a\": agents.coder.rules[1] (deny builtin/bash command \"rm *\"); \"shred b\": "
            "agents.coder.rules[2] (deny builtin/bash command \"shred *\")");
}

// The rules example of docs/tools.md, as the config loader reads it.
RuleSet DocumentedRules() {
  std::ifstream in(std::string(RAW_SOURCE_DIR) + "/docs/tools.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t rules = doc.find("\"rules\": [");
  const size_t begin = rules == std::string::npos ? rules : doc.rfind("```json\n", rules);
  if (begin == std::string::npos) {
    ADD_FAILURE() << "docs/tools.md has no rules example";
    return RuleSet();
  }
  const size_t body = doc.find('\n', begin) + 1;
  const std::string example = doc.substr(body, doc.find("```", body) - body);
  auto config = config::ParseConfig(absl::StrCat("{", example, "}"),
                                    config::ParseContext{"/etc/raw", "/home/me"});
  if (!config.ok() || !config->agents.contains("coder")) {
    ADD_FAILURE() << config.status() << "\n" << example;
    return RuleSet();
  }
  return Rules(config->agents.at("coder").rules);
}

// What the documentation shows as a rule to copy allows what it says, not a
// git command that runs another one.
TEST(RuleSetTest, TheDocumentedRulesAllowNoCommandRunningGitSubcommand) {
  RuleSet rules = DocumentedRules();
  EXPECT_EQ(Bash(rules, "git diff").action, RuleAction::kAllow);
  EXPECT_EQ(Bash(rules, "git diff HEAD~1 -- src").action, RuleAction::kAllow);
  EXPECT_EQ(Bash(rules, "git status").action, RuleAction::kAllow);
  for (const char* command : {"git difftool -y -x 'sh -c \"curl x | sh\"' HEAD~1 HEAD",
                              "git difftool --extcmd=sh HEAD", "git grep -O'sh -c x' y"}) {
    EXPECT_EQ(Bash(rules, command).action, RuleAction::kAsk) << command;
  }
}

TEST(RuleSetTest, MissingOrNonStringSubjectMatchesNoCommandPattern) {
  RuleSet rules = Rules({Command(RuleAction::kAllow, "*"), Whole(RuleAction::kDeny, "builtin/*")});
  for (const Json& arguments : {Json::object(), Json{{"command", 5}}, Json{{"cmd", "ls"}}}) {
    SCOPED_TRACE(arguments.dump());
    Decision decision = rules.Evaluate(kBash, arguments, "/", ApprovalMode::kDefault);
    EXPECT_EQ(decision.action, RuleAction::kDeny);
    EXPECT_THAT(decision.reason, HasSubstr("no \"command\" string"));
  }
  RuleSet only_commands = Rules({Command(RuleAction::kAllow, "*")});
  EXPECT_EQ(only_commands.Evaluate(kBash, Json::object(), "/", ApprovalMode::kDefault).action,
            RuleAction::kAsk);
}

TEST(RuleSetTest, ToolPatternsAndSubjectKinds) {
  RuleSet rules = Rules({Whole(RuleAction::kDeny, "mcp/*"), Command(RuleAction::kAllow, "*", "*"),
                         Path(RuleAction::kAllow, "/**", "*")});
  EXPECT_EQ(rules.Evaluate(kMcp, Json::object(), "/", ApprovalMode::kDefault).action,
            RuleAction::kDeny);
  // A command pattern never applies to a path tool, nor a path pattern to a
  // tool without a subject.
  EXPECT_EQ(rules.Evaluate(kFetch, Json{{"url", "x"}}, "/", ApprovalMode::kAskAll).action,
            RuleAction::kAsk);
  EXPECT_EQ(rules.Evaluate(kWrite, Json{{"path", "/tmp/x"}}, "/", ApprovalMode::kDefault).action,
            RuleAction::kAllow);
}

TEST(RuleSetTest, ApprovalModesDecideUnmatchedCalls) {
  RuleSet none;
  Json read{{"path", "/etc/hostname"}};
  EXPECT_EQ(none.Evaluate(kRead, read, "/", ApprovalMode::kDefault).action, RuleAction::kAllow);
  EXPECT_EQ(none.Evaluate(kRead, read, "/", ApprovalMode::kDefault).reason,
            "builtin/read_file is read-only; no rule matched for /etc/hostname");
  EXPECT_EQ(none.Evaluate(kWrite, read, "/", ApprovalMode::kDefault).action, RuleAction::kAsk);
  EXPECT_EQ(none.Evaluate(kFetch, Json::object(), "/", ApprovalMode::kDefault).action,
            RuleAction::kAllow);
  EXPECT_EQ(none.Evaluate(kRead, read, "/", ApprovalMode::kAskAll).action, RuleAction::kAsk);
  EXPECT_EQ(none.Evaluate(kWrite, read, "/", ApprovalMode::kAllowAll).action, RuleAction::kAllow);
  Decision denied = none.Evaluate(kRead, read, "/", ApprovalMode::kDenyAll);
  EXPECT_EQ(denied.action, RuleAction::kDeny);
  EXPECT_THAT(denied.reason, HasSubstr("approval_mode is deny_all"));

  // Explicit rules still apply under every mode.
  RuleSet rules = Rules({Command(RuleAction::kAllow, "ls *"), Command(RuleAction::kAsk, "rm *")});
  EXPECT_EQ(Bash(rules, "ls -l", ApprovalMode::kDenyAll).action, RuleAction::kAllow);
  EXPECT_EQ(Bash(rules, "ls -l && make", ApprovalMode::kDenyAll).action, RuleAction::kDeny);
  EXPECT_EQ(Bash(rules, "make && rm x", ApprovalMode::kAllowAll).action, RuleAction::kAsk);
  EXPECT_EQ(Bash(rules, "make && ls x", ApprovalMode::kAllowAll).action, RuleAction::kAllow);
  EXPECT_EQ(Bash(rules, "ls -l", ApprovalMode::kAskAll).action, RuleAction::kAllow);
}

TEST(RuleSetTest, InvalidPatternsNameTheRuleAndField) {
  auto bad_regex =
      RuleSet::Compile({Command(RuleAction::kAllow, "ls"), Whole(RuleAction::kAsk, "x"),
                        Command(RuleAction::kDeny, "re:rm (")},
                       "agents.x.rules");
  ASSERT_FALSE(bad_regex.ok());
  EXPECT_EQ(bad_regex.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_regex.status().message()),
              StartsWith("agents.x.rules[2].command: invalid regular expression \"rm (\": "));
  auto bad_path = RuleSet::Compile({Path(RuleAction::kAllow, "src/\\")}, "agents.x.rules");
  ASSERT_FALSE(bad_path.ok());
  EXPECT_THAT(std::string(bad_path.status().message()), StartsWith("agents.x.rules[0].path: "));
  auto bad_tool = RuleSet::Compile({Whole(RuleAction::kAllow, "")}, "agents.x.rules");
  ASSERT_FALSE(bad_tool.ok());
  EXPECT_EQ(bad_tool.status().message(), "agents.x.rules[0].tool: pattern is empty");
  auto both =
      RuleSet::Compile({RuleConfig{RuleAction::kAllow, "*", "ls", "/tmp", std::nullopt}},
                       "agents.x.rules");
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(std::string(both.status().message()),
              HasSubstr("agents.x.rules[0]: a rule has one of a command, a path, a redirect or a url"));
  auto bad_redirect = RuleSet::Compile({Redirect(RuleAction::kAllow, "/tmp/\\")}, "agents.x.rules");
  ASSERT_FALSE(bad_redirect.ok());
  EXPECT_THAT(std::string(bad_redirect.status().message()),
              StartsWith("agents.x.rules[0].redirect: "));
  RuleSet set;
  absl::Status session = set.AddSessionRules({Command(RuleAction::kAllow, "re:(")});
  EXPECT_THAT(std::string(session.message()), StartsWith("session rules[0].command: "));
}

}  // namespace
}  // namespace raw::tools::policy
