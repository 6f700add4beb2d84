// URL rules for builtin/raven_task: the URLs of the Sources a call registers
// meet the url rules of raven_task and of web_fetch (a deny denies the call,
// an ask makes it ask whatever else allows it), every request Raven sends
// meets the deny rules again, and "allow for this session" never adds a
// rule that would let later calls send any URL unasked.

#include <string>
#include <vector>

#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/policy/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/rule_test_support.h"

namespace raw::tools::policy {
namespace {

using config::ApprovalMode;
using config::RuleAction;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using tools::testing::Rules;
using tools::testing::Url;
using tools::testing::Whole;

// A checkpoint registering a Source at each of `urls`.
Json CheckpointCiting(const std::vector<std::string>& urls) {
  Json sources = Json::array();
  for (size_t i = 0; i < urls.size(); ++i) {
    sources.push_back({{"sourceId", "s" + std::to_string(i)},
                       {"url", urls[i]},
                       {"title", "t"},
                       {"locator", "l"},
                       {"excerpt", "e"}});
  }
  return {{"action", "checkpoint"}, {"taskId", "t"}, {"sources", std::move(sources)}};
}

class RavenUrlRulesTest : public ::testing::Test {
 protected:
  Decision Raven(const RuleSet& rules, const Json& args,
                 ApprovalMode mode = ApprovalMode::kDefault) {
    return rules.Evaluate(spec_, args, "/", mode);
  }
  ToolSpec spec_ = builtin::MakeRavenTaskTool();
};

TEST_F(RavenUrlRulesTest, TheSourcesOfACallMeetTheUrlRulesOfRavenAndWebFetch) {
  RuleSet rules = Rules({
      Url(RuleAction::kAllow, "https://docs.python.org/*", "builtin/raven_task"),
      Url(RuleAction::kDeny, "https://paste.example/*", "builtin/web_fetch"),
      Url(RuleAction::kAsk, "*", "builtin/*"),
      Whole(RuleAction::kAllow, "builtin/raven_task"),
  });
  // The tool's own rule allows the call, and its Sources' URLs are allowed.
  EXPECT_EQ(Raven(rules, CheckpointCiting({"https://docs.python.org/3/"})).action,
            RuleAction::kAllow);
  EXPECT_EQ(Raven(rules, {{"action", "status"}}).action, RuleAction::kAllow);
  // A deny written for web_fetch holds for Raven's fetches, whatever allows
  // the call; the reason names the rule and the URL as it is fetched.
  Decision denied = Raven(
      rules, CheckpointCiting({"https://docs.python.org/3/", "HTTPS://PASTE.example/?k=secret#x"}),
      ApprovalMode::kAllowAll);
  EXPECT_EQ(denied.action, RuleAction::kDeny);
  EXPECT_EQ(denied.reason,
            "agents.coder.rules[1] (deny builtin/web_fetch url \"https://paste.example/*\") for "
            "https://paste.example/?k=secret");
  // An ask holds over the whole-tool allow and allow_all.
  Decision asked =
      Raven(rules, CheckpointCiting({"https://evil.example/?d=secret"}), ApprovalMode::kAllowAll);
  EXPECT_EQ(asked.action, RuleAction::kAsk);
  EXPECT_EQ(asked.reason,
            "agents.coder.rules[2] (ask builtin/* url \"*\") for https://evil.example/?d=secret");
}

TEST_F(RavenUrlRulesTest, WithoutUrlRulesTheToolAndTheModeDecide) {
  EXPECT_EQ(Raven(RuleSet(), CheckpointCiting({"https://a.example/"})).action, RuleAction::kAsk);
  EXPECT_EQ(
      Raven(RuleSet(), CheckpointCiting({"https://a.example/"}), ApprovalMode::kAllowAll).action,
      RuleAction::kAllow);
  Decision denied = Raven(Rules({Whole(RuleAction::kDeny, "builtin/raven_task")}),
                          CheckpointCiting({"https://a.example/"}), ApprovalMode::kAllowAll);
  EXPECT_EQ(denied.action, RuleAction::kDeny);
  EXPECT_EQ(denied.reason, "agents.coder.rules[0] (deny builtin/raven_task)");
  // An allow url rule does not allow the call: only the tool's own rules and
  // the approval mode do.
  EXPECT_EQ(Raven(Rules({Url(RuleAction::kAllow, "*", "builtin/raven_task")}),
                  CheckpointCiting({"https://a.example/"}))
                .action,
            RuleAction::kAsk);
  // Url rules for other tools do not apply.
  EXPECT_EQ(Raven(Rules({Url(RuleAction::kDeny, "*", "mcp/*")}),
                  CheckpointCiting({"https://a.example/"}), ApprovalMode::kAllowAll)
                .action,
            RuleAction::kAllow);
}

// In the default mode the calls that touch only the Task record run
// without a question; those that reach the network ask, and the other modes
// and the rules decide as for any tool.
TEST_F(RavenUrlRulesTest, LocalActionsRunUnaskedInTheDefaultMode) {
  for (const char* action : {"start", "status", "steer", "stop", "resume", "export"}) {
    Decision decision = Raven(RuleSet(), {{"action", action}, {"taskId", "t"}});
    EXPECT_EQ(decision.action, RuleAction::kAllow) << action;
    EXPECT_THAT(decision.reason, HasSubstr("changes and sends nothing outside the session"));
    EXPECT_EQ(Raven(RuleSet(), {{"action", action}}, ApprovalMode::kAskAll).action,
              RuleAction::kAsk)
        << action;
  }
  for (const char* action : {"checkpoint", "complete", "discover", "draft"}) {
    EXPECT_EQ(Raven(RuleSet(), {{"action", action}, {"taskId", "t"}}).action, RuleAction::kAsk)
        << action;
  }
  EXPECT_EQ(Raven(RuleSet(), {{"action", 3}}).action, RuleAction::kAsk);
  EXPECT_EQ(Raven(RuleSet(), Json::object()).action, RuleAction::kAsk);
  EXPECT_EQ(
      Raven(Rules({Whole(RuleAction::kAsk, "builtin/raven_task")}), {{"action", "start"}}).action,
      RuleAction::kAsk);
  // The url rules still judge what a call names, whatever its action.
  Json status = CheckpointCiting({"https://paste.example/?k=secret"});
  status["action"] = "status";
  EXPECT_EQ(
      Raven(Rules({Url(RuleAction::kDeny, "https://paste.example/*", "builtin/web_fetch")}), status)
          .action,
      RuleAction::kDeny);
}

// One "allow for this session" must not let every later call send any URL
// unasked: raven_task offers no session rule, so the call is allowed once.
TEST_F(RavenUrlRulesTest, AllowForTheSessionAddsNoRule) {
  EXPECT_THAT(RuleSet::SessionRuleOptions(spec_, {{"action", "start"}}, "/"), IsEmpty());
  EXPECT_THAT(RuleSet::SessionRulesFor(spec_, CheckpointCiting({"https://a.example/"}), "/"),
              IsEmpty());
}

// At run time every request Raven sends (a Source a call registered
// earlier, reopened at completion, included) meets the deny url rules; the
// first url rule that matches decides, as for the call.
TEST_F(RavenUrlRulesTest, RequestsADenyRuleNamesAreRefused) {
  RuleSet rules = Rules({
      Url(RuleAction::kAllow, "https://docs.example/ok/*", "builtin/raven_task"),
      Url(RuleAction::kDeny, "https://docs.example/*", "builtin/web_fetch"),
      Url(RuleAction::kAsk, "*", "builtin/raven_task"),
  });
  auto refused = rules.UrlRefusalFor(spec_);
  ASSERT_NE(refused, nullptr);
  EXPECT_EQ(refused("https://docs.example/ok/page"), std::nullopt);
  EXPECT_EQ(refused("https://elsewhere.example/"), std::nullopt);  // an ask: judged per call
  std::optional<std::string> why = refused("HTTPS://docs.example/x#y");
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why,
            "agents.coder.rules[1] (deny builtin/web_fetch url \"https://docs.example/*\") for "
            "https://docs.example/x");
  // Nothing to refuse without a deny url rule, and only for a tool that
  // fetches URLs of its own.
  EXPECT_EQ(Rules({Url(RuleAction::kAsk, "*", "builtin/*")}).UrlRefusalFor(spec_), nullptr);
  EXPECT_EQ(rules.UrlRefusalFor(builtin::MakeWebFetchTool()), nullptr);
}

TEST_F(RavenUrlRulesTest, TheRefusalOutlivesItsRuleSet) {
  std::function<std::optional<std::string>(const std::string&)> refused;
  {
    RuleSet rules = Rules({Url(RuleAction::kDeny, "*", "builtin/raven_task")});
    refused = rules.UrlRefusalFor(spec_);
  }
  ASSERT_NE(refused, nullptr);
  EXPECT_THAT(refused("https://a.example/").value_or(""), HasSubstr("agents.coder.rules[0]"));
}

}  // namespace
}  // namespace raw::tools::policy
