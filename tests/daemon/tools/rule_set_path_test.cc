// Path rules: patterns anchored at the working directory, paths and
// patterns resolved through symbolic links as the file system has them at
// each evaluation, and what no rule can place is denied.
#include <filesystem>
#include <optional>
#include <string>

#include "daemon/tools/policy/redirect_target.h"
#include "daemon/tools/policy/rule_path.h"
#include "daemon/tools/policy/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/rule_test_support.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools::policy {
namespace {

using config::ApprovalMode;
using config::RuleAction;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using tools::testing::Command;
using tools::testing::kBash;
using tools::testing::kWrite;
using tools::testing::Path;
using tools::testing::Redirect;
using tools::testing::Rules;
using tools::testing::TempDir;

class PathRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(project_.path().empty());
    ASSERT_FALSE(outside_.path().empty());
    std::filesystem::create_directories(project_.Join("src/sub"));
    std::filesystem::create_symlink(outside_.path(), project_.Join("src/link"));
    std::filesystem::create_symlink(outside_.Join("new.txt"), project_.Join("src/dangling"));
  }

  Decision Write(const RuleSet& rules, const std::string& path, const std::string& cwd = "") {
    return rules.Evaluate(kWrite, Json{{"path", path}}, cwd.empty() ? project_.path() : cwd,
                          ApprovalMode::kDefault);
  }

  TempDir project_;
  TempDir outside_;
};

TEST_F(PathRulesTest, RelativePatternsAreAnchoredAtTheWorkingDirectory) {
  RuleSet rules = Rules({Path(RuleAction::kAllow, "src/**")});
  EXPECT_EQ(Write(rules, "src/a.cc").action, RuleAction::kAllow);
  EXPECT_EQ(Write(rules, "./src/sub/b.cc").action, RuleAction::kAllow);
  EXPECT_EQ(Write(rules, project_.Join("src/a.cc")).action, RuleAction::kAllow);
  Decision escaped = Write(rules, "src/../../x.txt");
  EXPECT_EQ(escaped.action, RuleAction::kAsk);
  std::string parent = std::filesystem::path(project_.path()).parent_path().string();
  EXPECT_EQ(escaped.reason,
            "builtin/write_file is not read-only; no rule matched for " + parent + "/x.txt");
  EXPECT_EQ(Write(rules, "../x.txt").action, RuleAction::kAsk);
  EXPECT_EQ(Write(rules, "a.txt").action, RuleAction::kAsk);
  // The same pattern from another working directory means another place.
  EXPECT_EQ(Write(rules, project_.Join("src/a.cc"), outside_.path()).action, RuleAction::kAsk);
}

TEST_F(PathRulesTest, SymlinksAreMatchedByTheirTarget) {
  RuleSet rules =
      Rules({Path(RuleAction::kDeny, outside_.path() + "/**"), Path(RuleAction::kAllow, "src/**")});
  Decision through_link = Write(rules, "src/link/f.txt");
  EXPECT_EQ(through_link.action, RuleAction::kDeny);
  EXPECT_THAT(through_link.reason, HasSubstr("for " + outside_.Join("f.txt")));
  EXPECT_EQ(Write(rules, "src/dangling").action, RuleAction::kDeny);
  // ".." as written is taken lexically, as the file tools take it: they open
  // <cwd>/src/sub/x for "src/link/../sub/x", so that is what rules see.
  Decision parent = Write(rules, "src/link/../sub/x");
  EXPECT_EQ(parent.action, RuleAction::kAllow);
  EXPECT_THAT(parent.reason, HasSubstr("for " + project_.Join("src/sub/x")));
  // And a ".." cannot lead a deny rule astray: "src/link/../../secret" is
  // the project's own secret for the tools, and for the rules.
  RuleSet deny_secret = Rules({Path(RuleAction::kDeny, "secret/**")});
  EXPECT_EQ(Write(deny_secret, "src/link/../../secret/a.txt").action, RuleAction::kDeny);
  RuleSet allow_only = Rules({Path(RuleAction::kAllow, "src/**")});
  EXPECT_EQ(Write(allow_only, "src/link/f.txt").action, RuleAction::kAsk);
  EXPECT_EQ(Write(allow_only, "src/sub/f.txt").action, RuleAction::kAllow);
}

TEST_F(PathRulesTest, PatternsThroughSymlinkedDirectoriesStillMatch) {
  std::string alias = outside_.Join("alias");
  std::filesystem::create_symlink(project_.path(), alias);
  // The working directory and an absolute pattern both name the project
  // through the link.
  RuleSet relative = Rules({Path(RuleAction::kAllow, "src/*.cc")});
  EXPECT_EQ(Write(relative, "src/a.cc", alias).action, RuleAction::kAllow);
  RuleSet absolute = Rules({Path(RuleAction::kAllow, alias + "/src/*.cc")});
  EXPECT_EQ(Write(absolute, "src/a.cc").action, RuleAction::kAllow);
  RuleSet regex = Rules({Path(RuleAction::kAllow, "re:" + project_.path() + "/src/[a-z]+\\.cc")});
  EXPECT_EQ(Write(regex, alias + "/src/a.cc").action, RuleAction::kAllow);
  EXPECT_EQ(Write(regex, "src/A.cc").action, RuleAction::kAsk);
}

// Each evaluation looks at the file system afresh: re-pointing a link
// between two calls moves the second call under the rule that now covers
// the target (LinkMemo lives for one evaluation only).
TEST_F(PathRulesTest, EachEvaluationSeesTheLinksAsTheyAreNow) {
  std::filesystem::create_directories(project_.Join("secret"));
  RuleSet rules = Rules({Path(RuleAction::kDeny, "secret/**"), Path(RuleAction::kAllow, "src/**")});
  const std::string door = project_.Join("src/door");
  std::filesystem::create_symlink(project_.Join("src/sub"), door);
  EXPECT_EQ(Write(rules, "src/door/key").action, RuleAction::kAllow);
  std::filesystem::remove(door);
  std::filesystem::create_symlink(project_.Join("secret"), door);
  EXPECT_EQ(Write(rules, "src/door/key").action, RuleAction::kDeny);
  // The same for the pattern's side: a deny pattern whose directory
  // becomes a link follows it at the next call.
  RuleSet deny_link = Rules({Path(RuleAction::kDeny, "src/door/**")});
  EXPECT_EQ(Write(deny_link, "secret/key").action, RuleAction::kDeny);
  std::filesystem::remove(door);
  std::filesystem::create_symlink(project_.Join("src/sub"), door);
  EXPECT_EQ(Write(deny_link, "secret/key").action, RuleAction::kAsk);
  EXPECT_EQ(Write(deny_link, "src/sub/key").action, RuleAction::kDeny);
}

// A memo answers as the file system did when it first asked, for every
// path after: resolving through one gives what resolving afresh gives.
TEST_F(PathRulesTest, AMemoResolvesAsTheFileSystemDoes) {
  const std::string& p = project_.path();
  std::filesystem::create_symlink("link/../up", project_.Join("src/via"));
  std::filesystem::create_symlink("sub", project_.Join("src/relative"));
  LinkMemo memo;
  for (const char* path :
       {"src/./sub//x/", "", "/../../etc", "src/link", "src/dangling", "missing/../src/link/a",
        "src/link/../sub", "src/via", "src/relative/f", "src/link", "src/relative/g"}) {
    EXPECT_EQ(ResolveRulePath(p, path, &memo), ResolveRulePath(p, path)) << path;
  }
  for (const char* pattern : {"src/**", "src/link/*.txt", "/etc/**", "re:^/x$"}) {
    EXPECT_EQ(AnchorPathPattern(p, pattern, &memo), AnchorPathPattern(p, pattern)) << pattern;
  }
  EXPECT_EQ(memo.Target(project_.Join("src/relative")), "sub");
  EXPECT_EQ(memo.Target(project_.Join("src/sub")), std::nullopt);
  // What it saw it keeps: a memo is for one evaluation.
  std::filesystem::remove(project_.Join("src/relative"));
  EXPECT_EQ(memo.Target(project_.Join("src/relative")), "sub");
  LinkMemo fresh;
  EXPECT_EQ(fresh.Target(project_.Join("src/relative")), std::nullopt);
  // Whole answers too: one evaluation sees one file system, the next one
  // sees the link re-pointed.
  EXPECT_EQ(ResolveRulePath(p, "src/relative/f", &memo), p + "/src/sub/f");
  std::filesystem::create_symlink("link", project_.Join("src/relative"));
  EXPECT_EQ(ResolveRulePath(p, "src/relative/f", &memo), p + "/src/sub/f");
  LinkMemo later;
  EXPECT_EQ(ResolveRulePath(p, "src/relative/f", &later), outside_.Join("f"));
}

// An absolute deny pattern, whose parts are prepared once for every check,
// follows its directories as they are at each check.
TEST_F(PathRulesTest, AnAbsoluteDenyPatternFollowsItsDirectoriesAtEachCheck) {
  std::filesystem::create_directories(project_.Join("secret"));
  const std::string door = project_.Join("door");
  for (const std::string& pattern :
       {door + "/**", door + "/", door, door + "/./*.key", project_.path() + "/src/../door/**"}) {
    RuleSet rules = Rules({Path(RuleAction::kDeny, pattern)});
    EXPECT_EQ(Write(rules, "secret/a.key").action, RuleAction::kAsk) << pattern;
    std::filesystem::create_symlink(project_.Join("secret"), door);
    EXPECT_EQ(Write(rules, "secret/a.key").action, RuleAction::kDeny) << pattern;
    EXPECT_EQ(Write(rules, "door/a.key").action, RuleAction::kDeny) << pattern;
    std::filesystem::remove(door);
    std::filesystem::create_directories(door);
    EXPECT_EQ(Write(rules, "secret/a.key").action, RuleAction::kAsk) << pattern;
    EXPECT_EQ(Write(rules, "door/a.key").action, RuleAction::kDeny) << pattern;
    std::filesystem::remove(door);
  }
}

// A pattern splits where AnchorPathPattern splits it, empty components
// kept as written; the literal part normalizes as ResolveRulePath does.
TEST(PathPatternSplitTest, SplitsBeforeTheFirstGlobComponent) {
  auto split = [](const std::string& pattern) {
    PathPatternSplit parts = SplitPathPattern(pattern);
    return std::make_pair(parts.literal, parts.rest);
  };
  EXPECT_EQ(split("/"), std::make_pair(std::string("/"), std::string()));
  EXPECT_EQ(split("/*"), std::make_pair(std::string("/"), std::string("*")));
  EXPECT_EQ(split("/a/b/**"), std::make_pair(std::string("/a/b"), std::string("**")));
  EXPECT_EQ(split("/a/b/"), std::make_pair(std::string("/a/b/"), std::string()));
  EXPECT_EQ(split("/a//b*/c"), std::make_pair(std::string("/a/"), std::string("b*/c")));
  EXPECT_EQ(split("/a/\\*b/c"), std::make_pair(std::string("/a"), std::string("\\*b/c")));
  EXPECT_EQ(split("/a/x?"), std::make_pair(std::string("/a"), std::string("x?")));
  for (const auto& [path, normal] :
       std::vector<std::pair<std::string, std::string>>{{"/", "/"},
                                                        {"/a/b", "/a/b"},
                                                        {"/a/.b/..c", "/a/.b/..c"},
                                                        {"/a/./b", "/a/b"},
                                                        {"/a/b/..", "/a"},
                                                        {"/a/b/.", "/a/b"},
                                                        {"//a//", "/a"},
                                                        {"/..", "/"},
                                                        {"/.", "/"},
                                                        {"/a/../../b", "/b"}}) {
    EXPECT_EQ(LexicalNormal(path), normal) << path;
  }
  EXPECT_EQ(JoinAnchored("/", "**"), "/**");
  EXPECT_EQ(JoinAnchored("/a*", ""), "/a\\*");
  EXPECT_EQ(JoinAnchored("/a", "*.key"), "/a/*.key");
}

// Nothing exists below a missing component, so the resolver asks nothing
// there; a ".." in a link's target that leads back out of it asks again.
TEST_F(PathRulesTest, NothingBelowAMissingComponentHidesALinkAfterIt) {
  const std::string& p = project_.path();
  std::filesystem::create_symlink("sub", project_.Join("src/relative"));
  std::filesystem::create_symlink("gone/../relative", project_.Join("src/back"));
  std::filesystem::create_symlink("gone/deeper/../../link", project_.Join("src/back2"));
  LinkMemo memo;
  for (const char* path : {"src/back/f", "src/back2/f", "gone/x/y", "src/sub/gone/../link"}) {
    EXPECT_EQ(ResolveRulePath(p, path, &memo), ResolveRulePath(p, path)) << path;
  }
  EXPECT_EQ(ResolveRulePath(p, "src/back/f"), p + "/src/sub/f");
  EXPECT_EQ(ResolveRulePath(p, "src/back2/f"), outside_.Join("f"));
  EXPECT_EQ(ResolveRulePath(p, "gone/x/y"), p + "/gone/x/y");
  RuleResolveOptions physical;
  physical.physical_dots = true;
  EXPECT_EQ(ResolveRulePathWith(p, "gone/../src/link/f", nullptr, physical).path,
            outside_.Join("f"));
  EXPECT_EQ(ResolveRulePathWith(p, "src/sub/none/../../link/f", nullptr, physical).path,
            outside_.Join("f"));
  // A file is no directory: nothing is below it either.
  tools::testing::WriteText(project_.Join("src/file"), "x");
  EXPECT_EQ(ResolveRulePathWith(p, "src/file/x/../../link/f", nullptr, physical).path,
            outside_.Join("f"));
}

// A link the project holds decides nothing for an allow rule: "vendor" ->
// somewhere else does not make "vendor/**" allow writing there, by either
// name. Deny rules still follow it.
TEST_F(PathRulesTest, ALinkInTheProjectDoesNotWidenAnAllowRule) {
  std::filesystem::create_symlink(outside_.path(), project_.Join("vendor"));
  RuleSet allow =
      Rules({Path(RuleAction::kAllow, "vendor/**"), Path(RuleAction::kAllow, "src/**")});
  EXPECT_EQ(Write(allow, "vendor/x.txt").action, RuleAction::kAsk);
  EXPECT_EQ(Write(allow, outside_.Join("x.txt")).action, RuleAction::kAsk);
  EXPECT_EQ(Write(allow, "src/sub/x.txt").action, RuleAction::kAllow);
  // Nor a link to the project's own parent ("up -> ..").
  std::filesystem::create_symlink("..", project_.Join("up"));
  RuleSet allow_up = Rules({Path(RuleAction::kAllow, "up/**")});
  const std::string parent = std::filesystem::path(project_.path()).parent_path().string();
  EXPECT_EQ(Write(allow_up, parent + "/.bashrc").action, RuleAction::kAsk);
  EXPECT_EQ(Write(allow_up, "up/.bashrc").action, RuleAction::kAsk);
  RuleSet deny = Rules({Path(RuleAction::kDeny, "vendor/**")});
  EXPECT_EQ(Write(deny, outside_.Join("x.txt")).action, RuleAction::kDeny);
  EXPECT_EQ(AnchorPathPattern(project_.path(), "vendor/**", nullptr, /*allow_rule=*/true),
            project_.Join("vendor/**"));
  EXPECT_EQ(AnchorPathPattern(project_.path(), "vendor/**"), outside_.path() + "/**");
}

// More links than the kernel follows for one path (a chain made to run out
// the count) leave no rule able to say which file the path names.
TEST_F(PathRulesTest, APathWithTooManyLinksIsDenied) {
  std::filesystem::create_symlink(".", project_.Join("s"));
  std::filesystem::create_symlink(outside_.path(), project_.Join("d"));
  std::string chain;
  for (int i = 0; i < 40; ++i) chain += "s/";
  RuleSet allow = Rules({Path(RuleAction::kAllow, "/**")});
  Decision decision = Write(allow, chain + "d/f.txt");
  EXPECT_EQ(decision.action, RuleAction::kDeny);
  EXPECT_THAT(decision.reason, HasSubstr("more symbolic links than the system follows"));
  EXPECT_EQ(Write(allow, "s/s/d/f.txt").action, RuleAction::kAllow);
  EXPECT_FALSE(ResolveRulePathWith(project_.path(), chain + "d/f.txt", nullptr, {}).complete);
  EXPECT_TRUE(ResolveRulePathWith(project_.path(), "s/s/d/f.txt", nullptr, {}).complete);
}

// bash opens "link/../x" after following the link, so a redirection's
// target is resolved that way, unlike a file tool's path.
TEST_F(PathRulesTest, RedirectTargetsTakeDotDotAfterTheLink) {
  std::filesystem::create_directories(outside_.Join("a"));
  std::filesystem::create_symlink(outside_.Join("a"), project_.Join("src/m"));
  EXPECT_EQ(ResolveRedirectTarget(project_.path(), "src/m/../key"), outside_.Join("key"));
  EXPECT_EQ(ResolveRulePath(project_.path(), "src/m/../key"), project_.Join("src/key"));
  RuleSet rules = Rules({Command(RuleAction::kAllow, "echo *"),
                         Redirect(RuleAction::kDeny, outside_.path() + "/**"),
                         Redirect(RuleAction::kAllow, "src/**")});
  Decision decision = rules.Evaluate(kBash, Json{{"command", "echo k >> src/m/../key"}},
                                     project_.path(), ApprovalMode::kAllowAll);
  EXPECT_EQ(decision.action, RuleAction::kDeny);
  EXPECT_THAT(decision.reason, HasSubstr(outside_.Join("key")));
}

// Through /proc a path names what the process opening it sees: rawd would
// resolve /proc/self/cwd as its own directory, the shell as the session's.
// Such a redirect target is only known when the line runs: no rule matches
// it, so a deny rule cannot be passed by it and an allow rule does not
// cover it.
TEST_F(PathRulesTest, RedirectTargetsThroughProcAreOnlyKnownWhenTheLineRuns) {
  std::filesystem::create_symlink("/proc/self/cwd", project_.Join("here"));
  for (const std::string target :
       {"/proc/self/cwd/.git/hooks/pre-commit", "/proc/thread-self/cwd/x", "/proc/12345/cwd/x",
        "/dev/fd/3", "/dev/stdin", "here/.git/hooks/pre-commit", "/proc/self/cwd/../x"}) {
    EXPECT_EQ(ResolveRedirectTarget(project_.path(), target), std::nullopt) << target;
  }
  EXPECT_EQ(ResolveRedirectTarget(project_.path(), "/dev/stderr"), "/dev/stderr");
  EXPECT_EQ(ResolveRedirectTarget(project_.path(), "/procfs/x"), "/procfs/x");

  RuleSet deny =
      Rules({Command(RuleAction::kAllow, "echo *"), Redirect(RuleAction::kDeny, ".git/**")});
  for (const std::string line : {"echo hook > /proc/self/cwd/.git/hooks/pre-commit",
                                 "echo hook > here/.git/hooks/pre-commit"}) {
    Decision d =
        deny.Evaluate(kBash, Json{{"command", line}}, project_.path(), ApprovalMode::kAllowAll);
    EXPECT_EQ(d.action, RuleAction::kAsk) << line << ": " << d.reason;
    EXPECT_THAT(d.reason, HasSubstr("only known when the line runs")) << line;
  }
  RuleSet allow =
      Rules({Command(RuleAction::kAllow, "echo *"), Redirect(RuleAction::kAllow, "/**")});
  Decision d = allow.Evaluate(kBash, Json{{"command", "echo x > /proc/self/cwd/x"}},
                              project_.path(), ApprovalMode::kDenyAll);
  EXPECT_NE(d.action, RuleAction::kAllow) << d.reason;
  EXPECT_EQ(allow
                .Evaluate(kBash, Json{{"command", "echo x > /dev/stderr"}}, project_.path(),
                          ApprovalMode::kDenyAll)
                .action,
            RuleAction::kAllow);
}

// A "re:" pattern cannot match a path that is not UTF-8: deny and ask rules
// then apply, and allow rules do not.
TEST_F(PathRulesTest, RegexRulesFailClosedOnPathsThatAreNotUtf8) {
  const std::string latin1 = "caf\xe9/.env";
  RuleSet deny = Rules({Path(RuleAction::kDeny, "re:.*/\\.env")});
  EXPECT_EQ(Write(deny, latin1).action, RuleAction::kDeny);
  EXPECT_EQ(Write(deny, "cafe/.env").action, RuleAction::kDeny);
  EXPECT_EQ(Write(deny, "cafe/env").action, RuleAction::kAsk);
  RuleSet allow = Rules({Path(RuleAction::kAllow, "re:.*")});
  EXPECT_EQ(Write(allow, latin1).action, RuleAction::kAsk);
  EXPECT_EQ(Write(allow, "cafe/.env").action, RuleAction::kAllow);
}

// A deny or ask rule that names a directory covers what is inside it.
TEST_F(PathRulesTest, ADenyRuleNamingADirectoryCoversItsContents) {
  std::filesystem::create_directories(project_.Join("secret"));
  for (const char* pattern : {"secret", "secret/"}) {
    RuleSet deny = Rules({Path(RuleAction::kDeny, pattern), Path(RuleAction::kAllow, "**")});
    EXPECT_EQ(Write(deny, "secret/key").action, RuleAction::kDeny) << pattern;
    EXPECT_EQ(Write(deny, "secret/a/b").action, RuleAction::kDeny) << pattern;
    EXPECT_EQ(Write(deny, "secret").action, RuleAction::kDeny) << pattern;
    EXPECT_EQ(Write(deny, "secrets.txt").action, RuleAction::kAllow) << pattern;
  }
  // An allow rule names exactly what it says.
  RuleSet allow = Rules({Path(RuleAction::kAllow, "secret")});
  EXPECT_EQ(Write(allow, "secret/key").action, RuleAction::kAsk);
}

TEST_F(PathRulesTest, ResolveRulePathNormalizesAndFollowsLinks) {
  const std::string& p = project_.path();
  EXPECT_EQ(ResolveRulePath(p, "src/./sub//x/"), p + "/src/sub/x");
  EXPECT_EQ(ResolveRulePath(p, ""), p);
  EXPECT_EQ(ResolveRulePath(p, "/../../etc"), "/etc");
  EXPECT_EQ(ResolveRulePath(p, "src/link"), outside_.path());
  EXPECT_EQ(ResolveRulePath(p, "src/dangling"), outside_.Join("new.txt"));
  EXPECT_EQ(ResolveRulePath(p, "missing/../src/link/a"), outside_.Join("a"));
  EXPECT_EQ(ResolveRulePath(p, "src/link/../sub"), p + "/src/sub");
  // ".." inside a link's target is physical, as for the kernel.
  std::filesystem::create_symlink("link/../up", project_.Join("src/via"));
  EXPECT_EQ(ResolveRulePath(p, "src/via"),
            std::filesystem::path(outside_.path()).parent_path().string() + "/up");
  std::filesystem::create_symlink("loop2", project_.Join("loop1"));
  std::filesystem::create_symlink("loop1", project_.Join("loop2"));
  EXPECT_THAT(ResolveRulePath(p, "loop1/x"), StartsWith(p + "/loop"));
  std::filesystem::create_symlink("sub", project_.Join("src/relative"));
  EXPECT_EQ(ResolveRulePath(p, "src/relative/f"), p + "/src/sub/f");
}

}  // namespace
}  // namespace raw::tools::policy
