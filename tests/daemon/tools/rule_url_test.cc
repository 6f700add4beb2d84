// URL rules for builtin/web_fetch: a fetch asks by default (the URL carries
// data out), and url patterns allow or deny by URL as it is fetched.

#include <string>

#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/policy/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/rule_test_support.h"

namespace raw::tools::policy {
namespace {

using config::ApprovalMode;
using config::RuleAction;
using config::RuleConfig;
using ::testing::HasSubstr;
using tools::testing::Rules;
using tools::testing::Url;

class RuleUrlTest : public ::testing::Test {
 protected:
  Decision Fetch(const RuleSet& rules, const std::string& url,
                 ApprovalMode mode = ApprovalMode::kDefault) {
    return rules.Evaluate(spec_, Json{{"url", url}}, "/", mode);
  }
  ToolSpec spec_ = builtin::MakeWebFetchTool();
};

TEST_F(RuleUrlTest, AFetchAsksWhenNoRuleMatches) {
  Decision d = Fetch(RuleSet(), "https://example.com/a");
  EXPECT_EQ(d.action, RuleAction::kAsk);
  EXPECT_EQ(d.reason,
            "builtin/web_fetch is not read-only; no rule matched for https://example.com/a");
  EXPECT_EQ(Fetch(RuleSet(), "https://example.com/a", ApprovalMode::kAllowAll).action,
            RuleAction::kAllow);
}

TEST_F(RuleUrlTest, UrlPatternsAllowAndDenyByUrl) {
  RuleSet rules = Rules({Url(RuleAction::kDeny, "https://docs.python.org/2/*"),
                         Url(RuleAction::kAllow, "https://docs.python.org/*")});
  Decision allowed = Fetch(rules, "https://docs.python.org/3/library/os.html");
  EXPECT_EQ(allowed.action, RuleAction::kAllow);
  EXPECT_EQ(allowed.reason,
            "agents.coder.rules[1] (allow builtin/web_fetch url \"https://docs.python.org/*\") "
            "for https://docs.python.org/3/library/os.html");
  EXPECT_EQ(Fetch(rules, "https://docs.python.org/2/os.html").action, RuleAction::kDeny);
  // Another host, even one that starts the same, is not allowed.
  EXPECT_EQ(Fetch(rules, "https://docs.python.org.evil.example/x").action, RuleAction::kAsk);
  EXPECT_EQ(Fetch(rules, "http://docs.python.org/3/").action, RuleAction::kAsk);
}

TEST_F(RuleUrlTest, RulesSeeTheUrlAsFetched) {
  RuleSet rules = Rules({Url(RuleAction::kDeny, "https://evil.example/*")});
  // Scheme and host case and the fragment do not hide the URL.
  EXPECT_EQ(Fetch(rules, "HTTPS://EVIL.example/x#frag").action, RuleAction::kDeny);
  EXPECT_EQ(Fetch(rules, "  https://evil.example/x").action, RuleAction::kDeny);
  // Nor do a trailing dot, the default port, or unreserved characters
  // percent-encoded.
  RuleSet path = Rules({Url(RuleAction::kDeny, "https://evil.example/a/b")});
  for (const char* url : {"https://evil.example./a/b", "https://evil.example..:443/a/b",
                          "https://evil.example:443/a/b", "http://evil.example:80/a/b",
                          "https://evil.example/%61/b", "https://evil.example/a/x/%2E%2E/b",
                          "https://evil.example/a/x/%2e./b", "https://%65vil.example/a/b"}) {
    Decision d = Fetch(
        url[4] == ':' ? Rules({Url(RuleAction::kDeny, "http://evil.example/a/b")}) : path, url);
    EXPECT_EQ(d.action, RuleAction::kDeny) << url << ": " << d.reason;
  }
  // What keeps its meaning stays: another port, an encoded slash.
  EXPECT_EQ(Fetch(path, "https://evil.example/a%2fb").action, RuleAction::kAsk);
  EXPECT_EQ(Fetch(path, "https://evil.example:8443/a/b").action, RuleAction::kAsk);
  EXPECT_EQ(Fetch(path, "http://evil.example:443/a/b").action, RuleAction::kAsk);
}

TEST_F(RuleUrlTest, OtherSubjectsNeverMatchAFetchNorUrlPatternsOtherTools) {
  RuleConfig path_rule;
  path_rule.action = RuleAction::kAllow;
  path_rule.tool = "builtin/*";
  path_rule.path = "**";
  EXPECT_EQ(Fetch(Rules({path_rule}), "https://example.com/").action, RuleAction::kAsk);
  ToolSpec read = builtin::MakeReadFileTool();
  EXPECT_EQ(Rules({Url(RuleAction::kDeny, "*")})
                .Evaluate(read, Json{{"path", "/tmp/x"}}, "/", ApprovalMode::kDefault)
                .action,
            RuleAction::kAllow);
}

TEST_F(RuleUrlTest, AllowForTheSessionAddsTheExactUrl) {
  std::vector<RuleConfig> added =
      RuleSet::SessionRulesFor(spec_, Json{{"url", "https://example.com/a?q=*"}}, "/");
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].url, "https://example.com/a\\?q=\\*");
  RuleSet rules;
  ASSERT_TRUE(rules.AddSessionRules(added).ok());
  EXPECT_EQ(Fetch(rules, "https://example.com/a?q=*").action, RuleAction::kAllow);
  EXPECT_EQ(Fetch(rules, "https://example.com/a?q=other").action, RuleAction::kAsk);
}

TEST_F(RuleUrlTest, ARuleHasOneSubject) {
  RuleConfig both = Url(RuleAction::kAllow, "https://a/*");
  both.path = "x";
  auto compiled = RuleSet::Compile({both}, "agents.x.rules");
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(std::string(compiled.status().message()),
              HasSubstr("agents.x.rules[0]: a rule has one of a command, a path, a redirect or a url"));
  auto bad = RuleSet::Compile({Url(RuleAction::kAllow, "re:(")}, "agents.x.rules");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("agents.x.rules[0].url: "));
}

}  // namespace
}  // namespace raw::tools::policy
