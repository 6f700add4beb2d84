// Path rules reach into directory walks: grep, glob and list_dir skip what
// the agent's rules withhold, and say so.
#include "daemon/tools/policy/walk_filter.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/policy/rule_set.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools::policy {
namespace {

using config::RuleAction;
using config::RuleConfig;
using ::testing::HasSubstr;
using ::testing::Not;
using tools::testing::TempDir;
using tools::testing::WriteText;

RuleConfig PathRule(RuleAction action, std::string path, std::string tool = "builtin/*") {
  return RuleConfig{action, std::move(tool), std::nullopt, std::move(path), std::nullopt};
}

class WalkFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(project_.path().empty());
    WriteText(project_.Join("src/a.txt"), "TOKEN in src\n");
    WriteText(project_.Join("secret/key.txt"), "TOKEN in secret\n");
    WriteText(project_.Join("secret/deeper/more.txt"), "TOKEN deeper\n");
    WriteText(outside_.Join("private.txt"), "TOKEN outside\n");
    // A link inside the project to a file the rules deny by its target.
    std::filesystem::create_symlink(outside_.Join("private.txt"), project_.Join("src/alias.txt"));
  }

  ToolOutput Run(const ToolSpec& spec, const Json& args, const std::vector<RuleConfig>& rules,
                 bool user_approved = false) {
    auto set = RuleSet::Compile(rules, "agents.coder.rules");
    EXPECT_TRUE(set.ok()) << set.status();
    config::ToolSettings settings;
    CancelToken cancel;
    ToolContext ctx{project_.path(), settings, cancel};
    ctx.withheld = set->WalkFilterFor(spec, project_.path(), user_approved);
    return spec.handler(args, ctx);
  }

  TempDir project_;
  TempDir outside_;
};

TEST_F(WalkFilterTest, GrepFromTheWorkingDirectorySkipsWhatTheRulesDeny) {
  const ToolSpec grep = builtin::MakeGrepTool();
  std::vector<RuleConfig> rules = {PathRule(RuleAction::kDeny, "secret/**")};
  ToolOutput out = Run(grep, Json{{"pattern", "TOKEN"}}, rules);
  EXPECT_THAT(out.content, HasSubstr("src/a.txt:1: TOKEN in src"));
  EXPECT_THAT(out.content, Not(HasSubstr("in secret")));
  EXPECT_THAT(out.content, Not(HasSubstr("deeper")));
  EXPECT_THAT(out.content, HasSubstr("withheld by the agent's rules"));
  // Without the rule the same call reads both.
  ToolOutput open = Run(grep, Json{{"pattern", "TOKEN"}}, {});
  EXPECT_THAT(open.content, HasSubstr("TOKEN in secret"));
  EXPECT_THAT(open.content, Not(HasSubstr("withheld")));
}

TEST_F(WalkFilterTest, AWithheldDirectoryIsNotEntered) {
  // "secret" itself is denied, so nothing below it is even looked at.
  const ToolSpec list = builtin::MakeListDirTool();
  ToolOutput out = Run(list, Json{{"depth", 3}}, {PathRule(RuleAction::kDeny, "secret")});
  EXPECT_THAT(out.content, Not(HasSubstr("secret")));
  EXPECT_THAT(out.content, Not(HasSubstr("key.txt")));
  EXPECT_THAT(out.content, HasSubstr("[1 entry withheld by the agent's rules]"));
  EXPECT_THAT(out.content, HasSubstr("a.txt"));
}

TEST_F(WalkFilterTest, EntriesAreJudgedByTheirResolvedPath) {
  const ToolSpec glob = builtin::MakeGlobTool();
  std::vector<RuleConfig> rules = {PathRule(RuleAction::kDeny, outside_.path() + "/**")};
  ToolOutput out = Run(glob, Json{{"pattern", "**/*.txt"}}, rules);
  EXPECT_THAT(out.content, HasSubstr("src/a.txt"));
  EXPECT_THAT(out.content, Not(HasSubstr("alias.txt")));
  EXPECT_THAT(out.content, HasSubstr("[1 entry withheld"));
}

TEST_F(WalkFilterTest, TheFirstMatchingRuleDecidesAsForACall) {
  const ToolSpec grep = builtin::MakeGrepTool();
  // An earlier allow for one file beats the later deny of its directory.
  std::vector<RuleConfig> rules = {PathRule(RuleAction::kAllow, "secret/key.txt"),
                                   PathRule(RuleAction::kDeny, "secret/**")};
  ToolOutput out = Run(grep, Json{{"pattern", "TOKEN"}}, rules);
  EXPECT_THAT(out.content, HasSubstr("TOKEN in secret"));
  EXPECT_THAT(out.content, Not(HasSubstr("deeper")));
  // Rules for other tools do not apply.
  ToolOutput other = Run(grep, Json{{"pattern", "TOKEN"}},
                         {PathRule(RuleAction::kDeny, "secret/**", "builtin/read_file")});
  EXPECT_THAT(other.content, HasSubstr("TOKEN deeper"));
}

TEST_F(WalkFilterTest, AskRulesWithholdUnlessTheUserApprovedTheCall) {
  const ToolSpec grep = builtin::MakeGrepTool();
  std::vector<RuleConfig> rules = {PathRule(RuleAction::kAsk, "secret/**")};
  EXPECT_THAT(Run(grep, Json{{"pattern", "TOKEN"}}, rules).content,
              Not(HasSubstr("TOKEN in secret")));
  EXPECT_THAT(Run(grep, Json{{"pattern", "TOKEN"}}, rules, /*user_approved=*/true).content,
              HasSubstr("TOKEN in secret"));
}

TEST(WalkFilterCallbackTest, RulesThatCannotWithholdCostNothing) {
  EXPECT_EQ(WalkFilter::Callback({}, false), nullptr);
  EXPECT_EQ(WalkFilter::Callback({{RuleAction::kAllow, std::nullopt}}, false), nullptr);
  // Nothing after a rule without a path pattern is reachable.
  EXPECT_EQ(WalkFilter::Callback({{RuleAction::kAllow, std::nullopt},
                                  {RuleAction::kDeny, std::nullopt}},
                                 false),
            nullptr);
  EXPECT_EQ(WalkFilter::Callback({{RuleAction::kAsk, std::nullopt}}, true), nullptr);
  auto deny_all = WalkFilter::Callback({{RuleAction::kDeny, std::nullopt}}, false);
  ASSERT_NE(deny_all, nullptr);
  EXPECT_TRUE(deny_all("/any/path"));
}

}  // namespace
}  // namespace raw::tools::policy
